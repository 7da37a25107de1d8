"""names = [] as a class attribute: every Counter appends to the same list."""


# score: 9
# zero: 04-counter-test, 04-counter-hidden-test
# kind: mistake
# %% 04-counter
class Counter:
    count = 0
    names = []

    def __call__(self, name):
        self.count += 1
        self.names.append(name)
        return self.count


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)
