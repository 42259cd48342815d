#!/usr/bin/env python3
"""Golden trajectories of asynchronous local SGD with Delayed Nesterov (Liu et al. 2024,
arXiv 2401.09135, Algorithm 3) from HALoS's implementation of it.

The reference is utnslab/halos (4b5bf73768c1e039bd1f64c3a310025119f05e20),
src/halos/opt.py, class DelayedNesterovOptimizer ("Implement Delayed Nesterov Update in
https://arxiv.org/pdf/2401.09135"); the paper's authors published no code of it. Nothing of HALoS
is copied here: the module is imported from the checkout's path.

The protocol (tests/golden/README.md's problem, N = 3 workers, its worker order): worker w of
update k was sent x; it takes H = 2 local steps of plain SGD at the step's rate,
x <- x - lr * (a * (x - b) + e_{k,h}), e_{k,h} from RandomState(SEED + 2).standard_normal((K, H,
P)); its pseudo-gradient delta = sent - x_end becomes p.grad of the outer optimizer,
DelayedNesterovOptimizer(lr = 0.7, beta = 0.9, buffer_size = N = 3, c), whose step() moves the
server's parameters; the worker is sent them. Recorded per update: the worker, the rate, the
local noise, what it was sent, its pseudo-gradient and what it is sent next.

Usage: /work/golden-venv/bin/python delayed_nesterov_halos.py HALOS_CHECKOUT [--out DIR]
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402  the README's problem, shared by every driver here

COMMIT = "4b5bf73768c1e039bd1f64c3a310025119f05e20"
H, OUTER_LR, BETA = 2, 0.7, 0.9


def run(DelayedNesterov, variant, c):
    pb = gp.make_problem()
    a, b = pb["a"], pb["b"]
    local_noise = np.random.RandomState(gp.SEED + 2).standard_normal((gp.STEPS, H, gp.P))
    theta = torch.nn.Parameter(torch.tensor(pb["x0"], dtype=torch.float64))
    outer = DelayedNesterov([theta], lr=OUTER_LR, beta=BETA, c=c, buffer_size=gp.WORKERS)
    sent = [pb["x0"].copy() for _ in range(gp.WORKERS)]
    steps = []
    for k, w in enumerate(pb["order"]):
        lr = gp.lr_at(variant, k)
        x = sent[w].copy()
        for h in range(H):
            x = x - lr * (a * (x - b) + local_noise[k][h])
        delta = sent[w] - x
        theta.grad = torch.tensor(delta, dtype=torch.float64)
        outer.step()
        steps.append({"worker": w, "lr": lr, "local_noise": [gp.vec(e) for e in local_noise[k]],
                      "received": gp.vec(sent[w]), "delta": gp.vec(delta),
                      "sent": gp.vec(theta.detach().numpy())})
        sent[w] = theta.detach().numpy().copy()
    return {"rule": "async-local-dn", "reference": {"repository": "utnslab/halos",
                                                   "commit": COMMIT,
                                                   "path": "src/halos/opt.py",
                                                   "class": "DelayedNesterovOptimizer"},
            "variant": variant, "dtype": "float64",
            "options": {"local.steps": H, "outer.lr": OUTER_LR, "outer.momentum": BETA,
                        "dn.period": gp.WORKERS, "dn.c": c, "momentum": 0.0},
            "workers": gp.WORKERS, "a": gp.vec(a), "b": gp.vec(b), "x0": gp.vec(pb["x0"]),
            "seed": gp.SEED, "steps": steps}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.checkout, "src"))
    from halos.opt import DelayedNesterovOptimizer  # noqa: E402  the reference itself
    for variant in ("constant", "schedule"):
        for c in (0.0, 0.2):
            gp.write(os.path.join(args.out, f"async-local-dn-{variant}-c{c}.json"),
                     run(DelayedNesterovOptimizer, variant, c))


if __name__ == "__main__":
    main()
