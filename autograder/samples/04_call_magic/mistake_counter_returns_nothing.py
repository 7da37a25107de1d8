"""__call__ counts but returns None."""


# score: 9
# zero: 04-counter-test, 04-counter-hidden-test
# kind: mistake
# %% 04-counter
class Counter:
    def __init__(self):
        self.count = 0
        self.names = []

    def __call__(self, name):
        self.count += 1
        self.names.append(name)


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)
