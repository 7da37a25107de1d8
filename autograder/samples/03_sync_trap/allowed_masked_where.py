"""Another way the instructions allow: torch.where for the masked loss, count_nonzero for the mistakes, the weights copied once with non_blocking=True."""
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
        loss = torch.where(keep, per_row, 0.0).sum() / keep.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append(torch.count_nonzero(keep & (logits.argmax(1) != y)))
    return torch.stack(losses), torch.stack(wrong)
