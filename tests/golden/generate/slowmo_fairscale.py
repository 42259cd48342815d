#!/usr/bin/env python3
"""Golden trajectories of SlowMo (local SGD + slow momentum) from fairscale's own code.

The reference is facebookresearch/fairscale (146f160241651e1211c4247979f159a4ef43b54a; the PyPI
package fairscale 0.4.13 has a byte-identical distributed.py):
fairscale/experimental/nn/data_parallel/gossip/distributed.py, SlowMoDistributedDataParallel.
Nothing of fairscale is copied here: the package (or, given a path, the checkout) is imported.

Why the slow-momentum step is called directly: the wrapper asserts float32 parameters when it
builds the slow-momentum buffers (_init_global_momentum_buffers, distributed.py:672), and the
README's problem is float64. So this driver does, for N = 3 learners in one process, what the
wrapper does around its step, and calls the wrapper's own
SlowMoDistributedDataParallel._perform_local_optimization (distributed.py:770-801) unbound, on an
object holding exactly the attributes _init_global_momentum_buffers would have set for one shard
that owns all P coordinates (portion_start = 0, portion_end = P, old_params = x0,
global_momentum_buffer = 0, slowmo_momentum = β, slowmo_lr = α). The anchor is x0 as when the
caller runs _init_global_momentum_buffers before training, as fairscale's own test does
(tests/experimental/nn/data_parallel/test_gossip.py:279); the tutorial's loop leaves it to the
first perform_slowmo, after the first local step, which anchors the first round at x_1 instead. `--check-wrapper` runs the real
wrapper (gloo, world_size 1, localhost, float32) against this driver with N = 1 in float32.

Per local step k (0-based), as perform_slowmo's caller does it (docstring example):
every learner i computes g at its parameters, optimizer_i.step() (torch.optim.SGD, momentum 0.9,
the PyTorch convention buf ← 0.9·buf + g, x ← x − lr·buf), then, when (k + 1) % τ == 0 (τ =
slowmo_frequency = localsgd_frequency = 4, memory-efficient mode, where the averaging allreduce is
skipped and the slow-momentum gather averages instead), the parameters are averaged as the
gather does it (every learner's x divided by N, then summed in rank order), the slow-momentum
step runs on the average with group['lr'] = the local rate of step k, and its result is broadcast
to every learner; then each learner's LambdaLR scheduler steps. Local momentum buffers are
neither averaged nor reset (fairscale leaves the optimizer state alone).

Usage:
  /work/golden-venv/bin/python slowmo_fairscale.py [FAIRSCALE_CHECKOUT] [--out DIR]
      [--check-wrapper]
"""
import argparse
import os
import sys
import types

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402  the README's problem, shared by every driver here

P, N, K, TAU = gp.P, gp.WORKERS, gp.STEPS, 4
NOISE_SEED = gp.SEED + 1  # e_{k,i}: every learner draws a gradient at every step
COMMIT = "146f160241651e1211c4247979f159a4ef43b54a"


def problem(learners):
    """a, b, x0 of the README's problem (golden_problem); the noise e_{k,i} of learner i at step
    k from RandomState(NOISE_SEED).standard_normal((K, N, P)) (N = 1 keeps learner 0's)."""
    pb = gp.make_problem()
    noise = np.random.RandomState(NOISE_SEED).standard_normal((K, N, P))[:, :learners]
    return pb["a"], pb["b"], pb["x0"], noise


def factor(kind, k):
    """LambdaLR's factor on the base rate 0.1 (the README's rate for step k, up to rounding;
    the rate used is recorded)."""
    if kind == "schedule":
        return min(1.0, (k + 1) / 8) * (0.1 if k >= 16 else 1.0)
    return 1.0


def run(SlowMo, kind, alpha, beta, learners=N, dtype=torch.float64):
    a, b, x0, noise = problem(learners)
    xs = [torch.nn.Parameter(torch.tensor(x0, dtype=dtype)) for _ in range(learners)]
    opts = [torch.optim.SGD([x], lr=0.1, momentum=0.9) for x in xs]
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, lambda k: factor(kind, k)) for o in opts]
    slow = types.SimpleNamespace(portion_start=0, portion_end=P, slowmo_momentum=beta,
                                 slowmo_lr=alpha, old_params=torch.tensor(x0, dtype=dtype),
                                 global_momentum_buffer=torch.zeros(P, dtype=dtype))
    steps = []
    for k in range(K):
        lr = opts[0].param_groups[0]["lr"]
        received = [x.detach().numpy().astype(np.float64).copy() for x in xs]
        grads = [a * (r - b) + noise[k][i] for i, r in enumerate(received)]
        for x, o, g in zip(xs, opts, grads):
            x.grad = torch.tensor(g, dtype=dtype)
            o.step()
            x.grad = None
        step = {"step": k, "lr": lr, "noise": noise[k].tolist(), "received": [r.tolist() for r in received],
                "gradient": [g.tolist() for g in grads],
                "local": [x.detach().numpy().astype(np.float64).tolist() for x in xs],
                "local_momentum": [o.state[x]["momentum_buffer"].numpy().astype(np.float64).tolist()
                                   for x, o in zip(xs, opts)]}
        if (k + 1) % TAU == 0:
            with torch.no_grad():
                mean = xs[0] / learners               # gather: p /= world_size, reduce(SUM)
                for x in xs[1:]:
                    mean = mean + x / learners
                xs[0].copy_(mean)
            step["average"] = mean.numpy().astype(np.float64).tolist()
            SlowMo._perform_local_optimization(slow, opts[0])
            with torch.no_grad():
                for x in xs[1:]:                      # scatter: broadcast from the owner
                    x.copy_(xs[0])
            step["outer_momentum"] = slow.global_momentum_buffer.numpy().astype(np.float64).tolist()
            step["center"] = xs[0].detach().numpy().astype(np.float64).tolist()
        for s in scheds:
            s.step()
        steps.append(step)
    return {
        "rule": "kavg",
        "reference": {"repository": "facebookresearch/fairscale", "commit": COMMIT,
                      "package": "fairscale==0.4.13 (PyPI, same distributed.py)",
                      "path": "fairscale/experimental/nn/data_parallel/gossip/distributed.py",
                      "function": "SlowMoDistributedDataParallel._perform_local_optimization "
                                  "(the slow-momentum step), called unbound; local SGD is "
                                  "torch.optim.SGD(momentum=0.9)"},
        "variant": f"{kind}-alpha{alpha:g}-beta{beta:g}",
        "dtype": "float64",
        "options": {"kavg.period": TAU, "outer.lr": alpha, "outer.momentum": beta,
                    "outer.nesterov": False, "momentum": 0.9, "nesterov": False,
                    "weight_decay": 0.0, "average_momentum": False},
        "schedule": kind,
        "learners": learners,
        "seed": gp.SEED, "noise_seed": NOISE_SEED,
        "fields": {
            "steps[k]": "local step k (0-based) of every learner; every learner computes a "
                        "gradient at every step, so there is no worker order",
            "lr": "the local rate of step k (LambdaLR, stepped after the step and after any "
                  "slow-momentum step); also group['lr'] of the slow-momentum step at step k",
            "noise": "[learner][P]: e_{k,i}; gradient[i] = a ⊙ (received[i] − b) + noise[i]",
            "received": "[learner][P]: learner i's parameters before local step k",
            "local": "[learner][P]: learner i's parameters after local step k, before averaging",
            "local_momentum": "[learner][P]: torch.optim.SGD's momentum_buffer after step k "
                              "(x ← x − lr·buf; dsgd's v = lr·buf at a constant rate)",
            "average": "(outer steps only) mean of `local` as fairscale's gather forms it",
            "outer_momentum": "(outer steps only) fairscale's global_momentum_buffer after the "
                              "step: u ← β·u + (anchor − average)/lr, in units of 1/lr; dsgd's "
                              "momentum_buffer is lr·outer_momentum at a constant rate",
            "center": "(outer steps only) the new global parameters anchor − lr·α·u, given to "
                      "every learner and the next anchor",
        },
        "a": a.tolist(), "b": b.tolist(), "x0": x0.tolist(),
        "steps": steps,
    }


def check_wrapper(SlowMo):
    """The real wrapper, world_size 1 (gloo, localhost), float32, against run(learners=1)."""
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    if not torch.cuda.is_available():
        torch.cuda.synchronize = lambda *args, **kw: None  # the wrapper syncs after collectives
    dist.init_process_group("gloo", rank=0, world_size=1)
    overall = 0.0
    for kind, alpha, beta in (("constant", 1.0, 0.5), ("schedule", 1.2, 0.7)):
        worst = 0.0
        mine = run(SlowMo, kind, alpha, beta, learners=1, dtype=torch.float32)
        a, b, x0, noise = problem(1)

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.x = torch.nn.Parameter(torch.tensor(x0, dtype=torch.float32))

            def forward(self, k):
                e = torch.tensor(noise[k][0], dtype=torch.float32)
                at = torch.tensor(a, dtype=torch.float32)
                bt = torch.tensor(b, dtype=torch.float32)
                return (0.5 * at * (self.x - bt) ** 2).sum() + (e * self.x).sum()

        net = SlowMo(Model(), nprocs_per_node=1, slowmo_momentum=beta, slowmo_lr=alpha,
                     slowmo_frequency=TAU, localsgd_frequency=TAU, slowmo_memory_efficient=True)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        # As fairscale's tests/experimental/nn/data_parallel/test_gossip.py:279 does: the anchor
        # is then x0. Left to perform_slowmo, the first call (after the first local step) would
        # record the parameters after step 0 as the anchor instead (see the notes).
        net._init_global_momentum_buffers(opt)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: factor(kind, k))
        for k in range(K):
            opt.zero_grad()
            net(k).backward()
            opt.step()
            net.zero_grad(set_to_none=True)
            net.perform_slowmo(opt)
            sched.step()
            want = np.array(mine["steps"][k].get("center", mine["steps"][k]["local"][0]))
            got = net.module.x.detach().numpy().astype(np.float64)
            worst = max(worst, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
        print(f"wrapper vs driver, {kind} alpha={alpha} beta={beta}, float32: "
              f"max relative difference {worst:.2e}")
        overall = max(overall, worst)
    dist.destroy_process_group()
    if overall > 1e-5:
        sys.exit("the driver does not follow the wrapper")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", nargs="?", help="facebookresearch/fairscale checkout "
                        "(default: the installed package)")
    parser.add_argument("--out", default=os.path.join(here, "..", "data"))
    parser.add_argument("--check-wrapper", action="store_true")
    args = parser.parse_args()
    if args.checkout:
        sys.path.insert(0, os.path.abspath(args.checkout))
    from fairscale.experimental.nn.data_parallel.gossip.distributed import (
        SlowMoDistributedDataParallel as SlowMo)
    print("fairscale from", sys.modules[SlowMo.__module__].__file__)
    if args.check_wrapper:
        check_wrapper(SlowMo)
    os.makedirs(args.out, exist_ok=True)
    for alpha, beta in ((1.0, 0.5), (1.2, 0.7)):
        for kind in ("constant", "schedule"):
            data = run(SlowMo, kind, alpha, beta)
            name = os.path.join(args.out, f"kavg-slowmo-{data['variant']}.json")
            gp.write(name, data)
            print("wrote", os.path.relpath(name))


if __name__ == "__main__":
    main()
