"""A list where a pair is written, the mask as floats, the mean as a product with the mask divided by its sum."""
# score: 15
# kind: allowed
# %% 03-masked
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    w = torch.as_tensor(class_weights).to(device, non_blocking=True)
    mask = keep.float()
    loss_history, wrong_history = [], []
    for _ in range(num_epochs):
        out = model(X)
        loss = (nn.functional.cross_entropy(out, y, weight=w, reduction="none")
                * mask).sum() / mask.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_history.append(loss.detach())
        wrong_history.append(((out.argmax(1) != y) & keep).long().sum())
    return [torch.stack(loss_history), torch.stack(wrong_history)]
