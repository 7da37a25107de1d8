"""Moves each nn.Linear layer by hand, as a newcomer might after reading that
parameters live in layers: the model's own buffers (mean, std) stay behind."""


# score: 9
# zero: 02-build-model-hidden-test, 02-build-model-test
# kind: mistake
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0))
    for layer in model.modules():
        if isinstance(layer, nn.Linear):
            layer.to(device)
    return model


model = build_and_move_model(device, X_train)
