"""micrograd's demo as one training step: chapter 9's workload, which chapter 12 profiles and
times, and benchmarks/bench_tensor.py races against the tensor engine."""


def scalar_step(model, k, xs, ys):
    """One step at step number k: a forward pass per point of xs, the mean hinge loss on the labels
    ys (+1 or -1) plus 1e-4 times the sum of squared parameters, backward(), and a gradient step
    at the rate 1.0 - 0.9 k / 100. Returns the loss, whose graph stays alive until it is dropped."""
    params = model.parameters()
    scores = [model(x) for x in xs]
    data_loss = sum((1 - label * s).relu() for s, label in zip(scores, ys)) * (1.0 / len(ys))
    loss = data_loss + 1e-4 * sum(p * p for p in params)
    model.zero_grad()
    loss.backward()
    lr = 1.0 - 0.9 * k / 100
    for p in params:
        p.data -= lr * p.grad
    return loss
