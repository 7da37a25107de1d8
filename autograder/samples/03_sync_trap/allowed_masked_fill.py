"""Another way to write the loss: masked_fill, and each row's class weight picked with weight[y] (an integer index, no wait), copied to the device every epoch with non_blocking=True."""
# score: 15
# kind: allowed
# %% 03-masked
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, wrong = [], []
    n_kept = keep.sum()
    for epoch in range(num_epochs):
        weight = class_weights.to(device, non_blocking=True)
        logits = model(X)
        nll = nn.functional.cross_entropy(logits, y, reduction="none") * weight[y]
        loss = nll.masked_fill(~keep, 0.0).sum() / n_kept
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append((logits.argmax(dim=1).ne(y) * keep).sum())
    return torch.stack(losses), torch.stack(wrong)
