#!/usr/bin/env python3
"""Golden trajectories of Gap-Aware SGD from FTPipe's own code (tests/golden/README.md).

The reference is saareliad/FTPipe (986014df3bb985595f22139ab355a48ca00dc12f), the pipeline code of
the Gap-Aware authors' group: pipe/pipeline/gap_aware/sgd_gap_aware.py (class GapAware, the
Gap-Aware for their 'sgd1' optimizer), pipe/pipeline/gap_aware/interface.py (GapAwareBase: max_lr,
step count, patch_scheduler), pipe/pipeline/trainers/gap_aware_trainer.py
(GapAwareTrainerMixin.apply_gap_aware, the per-step glue) and pipe/optimizers/sgd.py ('sgd1',
PyTorch's SGD: buf ← μ·buf + d, p ← p − lr·buf). Nothing of FTPipe is copied here: the checkout
is imported. Its package __init__ files pull in the whole pipeline (transformers, ...), so the
parent packages are registered as empty namespace stubs pointing at the checkout's folders and
only the four modules above (and what they import: interface.py, required.py,
trainers/interface.py, trainers/statistics/interface.py) are executed.

The asynchronous protocol is driven as FTPipe's partition manager drives a stage with weight
stashing (pipe/pipeline/partition_manager.py, run_batch_backward): the worker's gradient is
computed at the parameters it was sent (the stashed weights, loaded into the model), then
`apply_gap_aware(real_theta=θ, delay=...)` (update_running_stats, then apply_on_theta if the delay
is > 0), then the true weights are restored, optimizer.step(), and the LR scheduler steps once per
update (PER_STEP_SCHEDULER). The optimizer, the scheduler and GapAware are built in
prepare_pipeline.py's order (optimizer, scheduler, GapAware, patch_scheduler), so max_lr starts
at the first step's rate. The gradient is set directly, g_k = a ⊙ (x − b) + e_k.

FTPipe has no DANA (per-worker look-ahead) server: its look-ahead is pipeline weight prediction
(pipe/pipeline/weight_prediction, MSNAG on the one momentum buffer), not DANA-Zero. No dana-ga
file comes from it.

Usage:
  /work/golden-venv/bin/python gap_aware_ftpipe.py /work/golden-src/FTPipe [--out DIR]
"""
import argparse
import importlib
import os
import sys
import types

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402  the README's problem, shared by every driver here

N, K = gp.WORKERS, gp.STEPS
COMMIT = "986014df3bb985595f22139ab355a48ca00dc12f"


def problem():
    pb = gp.make_problem()
    return pb["a"], pb["b"], pb["x0"], pb["noise"], pb["order"]


def factor(kind, k):
    """LambdaLR's factor on the base rate 0.1 (the README's rate for update k, up to rounding;
    the rate used is recorded)."""
    if kind == "schedule":
        return min(1.0, (k + 1) / 8) * (0.1 if k >= 16 else 1.0)
    return 1.0


def load_ftpipe(checkout):
    root = os.path.join(checkout, "pipe")
    for name, folder in (("pipe", ""), ("pipe.optimizers", "optimizers"),
                         ("pipe.pipeline", "pipeline"), ("pipe.pipeline.gap_aware", "pipeline/gap_aware"),
                         ("pipe.pipeline.trainers", "pipeline/trainers"),
                         ("pipe.pipeline.trainers.statistics", "pipeline/trainers/statistics")):
        stub = types.ModuleType(name)
        stub.__path__ = [os.path.join(root, folder)]
        sys.modules[name] = stub
    sgd = importlib.import_module("pipe.optimizers.sgd")
    ga = importlib.import_module("pipe.pipeline.gap_aware.sgd_gap_aware")
    base = importlib.import_module("pipe.pipeline.gap_aware.interface")
    trainer = importlib.import_module("pipe.pipeline.trainers.gap_aware_trainer")
    return sgd.SGD, ga.GapAware, base.GapAwareBase, trainer.GapAwareTrainerMixin


def run(ftpipe, kind, momentum=0.9):
    SGD, GapAware, GapAwareBase, Mixin = ftpipe
    a, b, x0, noise, workers = problem()
    x = torch.nn.Parameter(torch.tensor(x0, dtype=torch.float64))
    optimizer = SGD([x], lr=0.1, momentum=momentum)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: factor(kind, k))
    ga = GapAware(optimizer)  # big_gamma 0.999, epsilon 1e-8: the class defaults
    GapAwareBase.patch_scheduler(scheduler)
    trainer = types.SimpleNamespace(gap_aware=ga)  # what apply_gap_aware reads
    sent = [x0.copy() for _ in range(N)]
    sent_at = [0] * N
    steps = []
    for k in range(K):
        w = int(workers[k])
        received = sent[w]
        g = a * (received - b) + noise[k]
        lr = optimizer.param_groups[0]["lr"]
        max_lr = optimizer.param_groups[0][GapAwareBase.MAX_LR_NAME]
        with torch.no_grad():
            true_theta = x.detach().clone()
            x.copy_(torch.from_numpy(received))            # stashed weights loaded
        x.grad = torch.from_numpy(g.copy())
        delay = k - sent_at[w]
        Mixin.apply_gap_aware(trainer, real_theta=[[true_theta]], delay=delay)
        applied = x.grad.detach().numpy().copy()            # g / C (C = 1 when delay = 0)
        with torch.no_grad():
            x.copy_(true_theta)                             # true weights restored
        optimizer.step()
        x.grad = None
        scheduler.step()
        theta = x.detach().numpy().copy()
        steps.append({
            "worker": w, "delay": delay, "lr": lr, "noise": noise[k].tolist(),
            "received": received.tolist(), "gradient": g.tolist(), "sent": theta.tolist(),
            "center": theta.tolist(), "penalized": applied.tolist(), "max_lr": max_lr,
            "ga_step_count": ga.step_count,
            "ga_running_avg_step": ga.running_avg_step[id(x)].numpy().tolist(),
            "momentum_buffer": optimizer.state[x]["momentum_buffer"].numpy().tolist(),
        })
        sent[w] = theta
        sent_at[w] = k + 1
    return {
        "rule": "ga-asgd",
        "reference": {"repository": "saareliad/FTPipe", "commit": COMMIT,
                      "path": "pipe/pipeline/gap_aware/sgd_gap_aware.py",
                      "function": "GapAware.update_running_avg + GapAware.apply_on_theta via "
                                  "GapAwareTrainerMixin.apply_gap_aware, then 'sgd1' "
                                  "(pipe/optimizers/sgd.py) SGD.step"},
        "variant": kind,
        "dtype": "float64",
        "options": {"momentum": momentum, "weight_decay": 0.0, "ga.beta": 0.999,
                    "ga.epsilon": 1e-8},
        "workers": N,
        "seed": gp.SEED,
        "fields": {
            "delay": "updates applied since the worker was last sent its parameters "
                     "(FTPipe applies the penalty only when it is > 0)",
            "lr": "pg['lr'] when the update was applied (LambdaLR, stepped after every update)",
            "max_lr": "pg['max_lr'] read by apply_on_theta at update k",
            "penalized": "p.grad after apply_on_theta: gradient / C",
            "ga_step_count": "GapAware.step_count after update_running_stats at update k (k + 1)",
            "ga_running_avg_step": "GapAware.running_avg_step after update k's "
                                   "update_running_avg (which reads the momentum buffer "
                                   "before update k's step)",
            "momentum_buffer": "PyTorch-convention buffer after update k (θ ← θ − lr·buf)",
        },
        "a": a.tolist(), "b": b.tolist(), "x0": x0.tolist(),
        "steps": steps,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", help="saareliad/FTPipe checkout")
    parser.add_argument("--out", default=os.path.join(here, "..", "data"))
    args = parser.parse_args()
    ftpipe = load_ftpipe(os.path.abspath(args.checkout))
    os.makedirs(args.out, exist_ok=True)
    for kind in ("constant", "schedule"):
        data = run(ftpipe, kind)
        name = os.path.join(args.out, f"ga-asgd-{kind}.json")
        gp.write(name, data)
        print("wrote", os.path.relpath(name))


if __name__ == "__main__":
    main()
