"""Mean and std of the whole array (no dim=0): one number instead of one per feature."""


# score: 10
# zero: 02-build-model-hidden-test
# kind: mistake
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(), X_train.std())
    return model.to(device)


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
