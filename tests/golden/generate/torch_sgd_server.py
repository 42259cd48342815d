#!/usr/bin/env python3
"""Golden trajectories of PyTorch's torch.optim.SGD used as a parameter server's optimizer.

    python3 tests/golden/generate/torch_sgd_server.py [--out DIR]

The reference is the installed torch (Debian's python3-torch 1.13.1+dfsg; torch.__version__ is
recorded in every file), not a checkout: nothing of it is copied here. The server holds θ as one
float64 Parameter of size 6 and one torch.optim.SGD over it. Update k of the README's protocol:
worker w computed g_k at the θ it was last sent; the server sets θ.grad = g_k, sets
param_groups[0]["lr"] to that update's rate, calls optimizer.step(), and sends θ (after the step)
to w. torch's SGD (torch/optim/sgd.py, _single_tensor_sgd) computes, for that one θ:

    d = g + weight_decay * θ          θ: the server's current θ, not the θ̂ g was computed at
    v = momentum * v + d              (v = d on the first step)
    θ = θ - lr * (d + momentum * v)   nesterov=True
    θ = θ - lr * v                    otherwise (momentum 0: θ = θ - lr * d)

Files (DIR defaults to tests/golden/data), N = 3 workers unless said:
  asgd-{constant,schedule,decay}        momentum 0
  asgd-m-{constant,schedule,decay}      momentum 0.9
  nag-asgd-{constant,schedule,decay}    momentum 0.9, nesterov=True
  nag-asgd-n1-constant                  N = 1: single-worker SGD with Nesterov momentum
"decay" is the constant rate with weight_decay = 1e-2 in torch's SGD.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DECAY = 1e-2
RULES = {  # dsgd's name: (momentum, nesterov)
    "asgd": (0.0, False),
    "asgd-m": (0.9, False),
    "nag-asgd": (0.9, True),
}


def run(problem, workers, variant, momentum, nesterov):
    weight_decay = DECAY if variant == "decay" else 0.0
    theta = torch.nn.Parameter(torch.tensor(problem["x0"], dtype=torch.float64))
    optimizer = torch.optim.SGD([theta], lr=gp.lr_at(variant, 0), momentum=momentum,
                                nesterov=nesterov, weight_decay=weight_decay)
    a = torch.tensor(problem["a"], dtype=torch.float64)
    b = torch.tensor(problem["b"], dtype=torch.float64)
    # 1. before the first update every worker is sent θ0
    sent = [theta.detach().clone() for _ in range(workers)]
    steps = []
    for k, w in enumerate(problem["order"]):
        lr = gp.lr_at(variant, k)
        received = sent[w]
        # 2. worker w: g_k at what it was sent, by autograd on the README's loss
        x = received.clone().requires_grad_(True)
        e = torch.tensor(problem["noise"][k], dtype=torch.float64)
        loss = (0.5 * a * (x - b) ** 2).sum() + (e * x).sum()
        (g,) = torch.autograd.grad(loss, x)
        # the server: its optimizer steps θ with that (stale) gradient
        theta.grad = g.detach().clone()
        optimizer.param_groups[0]["lr"] = lr
        optimizer.step()
        sent[w] = theta.detach().clone()
        step = {"worker": int(w), "lr": lr, "noise": gp.vec(problem["noise"][k]),
                "received": gp.vec(received), "gradient": gp.vec(g),
                "sent": gp.vec(sent[w]), "center": gp.vec(theta.detach())}
        buf = optimizer.state[theta].get("momentum_buffer")
        if buf is not None:
            step["momentum"] = gp.vec(buf)
        steps.append(step)
    return steps, weight_decay


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "data"))
    opts = ap.parse_args()

    reference = {"repository": "pytorch/pytorch", "commit": torch.__version__,
                 "path": "torch/optim/sgd.py", "function": "SGD.step",
                 "package": "Debian python3-torch 1.13.1+dfsg-4 (torch.__version__ %s)"
                            % torch.__version__}
    jobs = [(rule, gp.WORKERS, variant) for rule in RULES
            for variant in ("constant", "schedule", "decay")]
    jobs.append(("nag-asgd", 1, "constant"))
    for rule, workers, variant in jobs:
        momentum, nesterov = RULES[rule]
        problem = gp.make_problem(workers=workers)
        steps, weight_decay = run(problem, workers, variant, momentum, nesterov)
        name = "%s-%s%s" % (rule, "n1-" if workers == 1 else "", variant)
        document = {
            "rule": rule,
            "reference": dict(reference),
            "variant": ("n1-" if workers == 1 else "") + variant,
            "dtype": "float64",
            "options": {"momentum": momentum, "weight_decay": weight_decay},
            "workers": workers,
            "a": gp.vec(problem["a"]), "b": gp.vec(problem["b"]), "x0": gp.vec(problem["x0"]),
            "seed": gp.SEED,
            "torch_options": {"momentum": momentum, "nesterov": nesterov,
                              "weight_decay": weight_decay, "dampening": 0.0},
            "center_is": "theta, the server's parameter after optimizer.step() (= sent)",
            "evaluated_is": "not applicable: torch.optim.SGD evaluates nothing",
            "momentum_is": "torch's momentum_buffer after the step (lr outside v)",
            "weight_decay_note": "torch adds weight_decay*theta at the server's current theta, "
                                 "not at the stale parameters the gradient was computed at",
            "steps": steps,
        }
        path = os.path.join(opts.out, name + ".json")
        gp.write(path, document)
        print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
