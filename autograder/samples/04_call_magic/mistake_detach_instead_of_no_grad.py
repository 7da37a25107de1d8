"""No torch.no_grad(): the batches build graphs and the result is only detached at the end."""


# score: 9
# zero: 04-predict-test, 04-predict-hidden-test
# kind: mistake
# %% 04-predict
def predict(model, X, batch_size=32):
    outputs = []
    for i in range(0, len(X), batch_size):
        outputs.append(model(X[i : i + batch_size]))
    return torch.cat(outputs).detach()


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)
