"""range(len(X) // batch_size) batches: the last, smaller batch is never predicted."""


# score: 9
# zero: 04-predict-test, 04-predict-hidden-test
# kind: mistake
# %% 04-predict
def predict(model, X, batch_size=32):
    with torch.no_grad():
        outputs = [
            model(X[k * batch_size : (k + 1) * batch_size])
            for k in range(len(X) // batch_size)
        ]
    return torch.cat(outputs)


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)
