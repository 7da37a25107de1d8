"""Seeds after the model is built, so its weights are not reproducible."""


# score: 10
# zero: 02-build-model-hidden-test
# kind: mistake
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0)).to(device)
    torch.manual_seed(seed)
    return model


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
