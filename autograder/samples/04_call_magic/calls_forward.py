"""Model.forward(x), hooks skipped."""


# score: 9
# zero: 04-predict-hidden-test, 04-predict-test
# kind: mistake
# %% 04-predict
def predict(model, X, batch_size=32):
    with torch.no_grad():
        outputs = [
            model.forward(X[i : i + batch_size]) for i in range(0, len(X), batch_size)
        ]
    return torch.cat(outputs)


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
