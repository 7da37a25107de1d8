"""Ignores `device`: .cuda() when a GPU is there, else leaves the model on the CPU."""


# score: 9
# zero: 02-build-model-test, 02-build-model-hidden-test
# kind: mistake
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0))
    if torch.cuda.is_available():
        model = model.cuda()
    return model


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
