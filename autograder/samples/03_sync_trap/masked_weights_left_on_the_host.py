"""The class weights passed to cross_entropy as they came, on the host: no sync, the right values on a CPU, and an error on a GPU (cross_entropy refuses weights on another device). The visible test asks for their copy to the device."""
# score: 12
# zero: 03-masked-test, 03-masked-hidden-test
# %% 03-masked
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    kept = keep.sum()
    losses, wrong = [], []
    for _ in range(num_epochs):
        logits = model(X)
        per_row = nn.functional.cross_entropy(logits, y, weight=class_weights,
                                              reduction="none")
        loss = (per_row * keep).sum() / kept
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append(((logits.argmax(dim=1) != y) & keep).sum())
    return torch.stack(losses), torch.stack(wrong)
