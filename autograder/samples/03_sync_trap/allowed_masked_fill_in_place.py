"""The masked mean written with an in-place masked write of one number (per_row[~keep] = 0.0), which PyTorch turns into masked_fill_: no wait, so full marks."""
# score: 15
# kind: allowed
# %% 03-masked
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    weight = class_weights.to(device, non_blocking=True)
    losses, wrong = [], []
    for _ in range(num_epochs):
        logits = model(X)
        per_row = nn.functional.cross_entropy(logits, y, weight=weight,
                                              reduction="none")
        per_row[~keep] = 0.0
        loss = per_row.sum() / keep.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append(((logits.argmax(dim=1) != y) & keep).sum())
    return torch.stack(losses), torch.stack(wrong)
