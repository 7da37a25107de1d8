"""A newcomer's correct answer from the text: train_step as a callable dataclass instance (Day 04's __call__), the MSE written out as ((prediction - y) ** 2).mean(), a foreach SGD, and the gradients dropped after the update rather than before."""


# score: 9
# kind: allowed
# %% 10-lean-step
from dataclasses import dataclass


def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


@dataclass
class TrainStep:
    """One MSE step; called like a function."""

    steps: int = 0

    def __call__(self, model, optimizer, X, y):
        prediction = model(X)
        loss = ((prediction - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        self.steps += 1
        return loss.detach()


train_step = TrainStep()
