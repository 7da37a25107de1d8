"""Task 3.5's central mistake: the loss still reads per_row[keep], a boolean mask whose size the host must learn every epoch. The visible test counts the syncs on a CPU."""
# score: 12
# zero: 03-masked-test, 03-masked-hidden-test
# %% 03-masked
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    weight = class_weights.to(device, non_blocking=True)
    losses, wrong = [], []
    for _ in range(num_epochs):
        logits = model(X)
        per_row = nn.functional.cross_entropy(logits, y, weight=weight,
                                              reduction="none")
        loss = per_row[keep].mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append(((logits.argmax(dim=1) != y) & keep).sum())
    return torch.stack(losses), torch.stack(wrong)
