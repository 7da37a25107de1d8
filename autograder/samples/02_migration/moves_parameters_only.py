"""Buffers not moved."""


# score: 9
# zero: 02-build-model-hidden-test, 02-build-model-test
# kind: mistake
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0))
    for p in model.parameters():
        p.data = p.data.to(device)
    return model


model = build_and_move_model(device, X_train)
