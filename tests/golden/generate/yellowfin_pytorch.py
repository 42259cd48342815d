#!/usr/bin/env python3
"""Golden trajectories of YellowFin from its authors' PyTorch tuner.

    python3 tests/golden/generate/yellowfin_pytorch.py CHECKOUT [--commit SHA] [--out DIR]
                                                       [--check-float32]

CHECKOUT is a checkout of github.com/JianGoForIt/YellowFin_Pytorch (the files were made from
b87aed1490d1210d280cfe20e5f8d9e11a2efbe2); this driver imports `YFOptimizer` from
CHECKOUT/tuner_utils/yellowfin.py and copies none of its code. It drives the tuner as the
server's optimizer on the problem and asynchronous protocol of tests/golden/README.md and writes
DIR/yellowfin-<variant>.json (DIR defaults to tests/golden/data). --commit names the commit when
CHECKOUT is not a git work tree (e.g. a `git archive` extract). Runs with Debian's Python 3 and
PyTorch 1.13 (and numpy 1.24); the tuner was written for PyTorch 0.2-1.0.

What is patched, and why (everything else runs as published):

* float64 state. The tuner keeps two of its statistics in float32 whatever the parameters' dtype:
  the curvature window `torch.FloatTensor(curv_win_width, 1)` (yellowfin.py:210) and the variance
  accumulator `np.array(0.0, dtype=np.float32)` (yellowfin.py:264). The module's globals `torch`
  and `np` are replaced by thin proxies whose `FloatTensor` is `torch.DoubleTensor` and whose
  `float32` is `np.float64`; every other attribute is the real module's. Everything else the
  tuner computes is then float64 (its other statistics are Python floats or 0-dim tensors of the
  parameters' dtype). --check-float32 runs every variant without the proxies too and prints how
  far the float32 statistics move the trajectory (nothing is written).
* The silent restore. `step()` wraps its work in `try/except:` (yellowfin.py:529-568) and, on any
  exception, reloads its last checkpoint with every parameter perturbed by 1e-8. A golden file
  must never come from that path, so the instance's `load_state_dict_perturb` is replaced by one
  that raises: generation stops instead.
* Deprecated PyTorch APIs the tuner calls (`Tensor.add_(Number, Tensor)` at yellowfin.py:274 and
  `torch.nn.utils.clip_grad_norm` at :519, :522, :526, :555) still work in 1.13 with a
  UserWarning each; they are left alone and their warnings silenced.
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import torch

P = 6
WORKERS = 3
SEED = 7
REPOSITORY = "JianGoForIt/YellowFin_Pytorch"
PATH = "tuner_utils/yellowfin.py"

# name -> (YFOptimizer keyword arguments beyond var_list, updates, lr_factor, description).
# Every keyword not listed is the constructor's default (yellowfin.py:13-17).
VARIANTS = {
    "default": ({}, 60, 1.0,
                "every constructor default: curv_win_width 20, beta 0.999, zero_debias, log-space "
                "smoothing of h_max and h_min, adapt_clip on, no clip_thresh; lr_factor 1"),
    "window5": ({"curv_win_width": 5}, 40, 1.0,
                "defaults with curv_win_width 5 (the window wraps after 5 updates; the slow "
                "start ends at update 50)"),
    "clip": ({"curv_win_width": 5, "clip_thresh": 4.5, "adapt_clip": False}, 40, 1.0,
             "window5 with clip_thresh 4.5 and adapt_clip False (the authors' README: turn "
             "adapt_clip off to clip by hand): a gradient of global norm above 4.5 is scaled to "
             "4.5 (torch.nn.utils.clip_grad_norm) before the statistics see it"),
    "nodebias": ({"curv_win_width": 5, "zero_debias": False}, 40, 1.0,
                 "window5 with zero_debias False"),
    "linear": ({"curv_win_width": 5, "h_max_log_smooth": False, "h_min_log_smooth": False}, 40,
               1.0, "window5 with h_max and h_min smoothed linearly instead of in log space"),
    "noadapt": ({"curv_win_width": 5, "adapt_clip": False}, 40, 1.0,
                "window5 with adapt_clip False (no stat-protect clip, no exploding-gradient "
                "clip, no catastrophic-move clamp): the authors' README's 'clipping off'"),
    "linear-noadapt": ({"curv_win_width": 5, "adapt_clip": False, "h_max_log_smooth": False,
                        "h_min_log_smooth": False}, 40, 1.0,
                       "window5, linear h smoothing, adapt_clip False: the tuner nearest to "
                       "dsgd's (see the differences listed in the driver's notes)"),
    "lrfactor": ({"curv_win_width": 5}, 40, 0.5,
                 "window5 with set_lr_factor(0.5) before the first step"),
}


class _Proxy:
    """A module whose named attributes are overridden; every other one is the real module's."""

    def __init__(self, module, **overrides):
        self._module = module
        self.__dict__.update(overrides)

    def __getattr__(self, name):
        return getattr(self._module, name)


def load_tuner(checkout, float64):
    path = os.path.join(checkout, PATH)
    spec = importlib.util.spec_from_file_location("yellowfin_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if float64:
        module.torch = _Proxy(torch, FloatTensor=torch.DoubleTensor)
        module.np = _Proxy(np, float32=np.float64)
    return module


def commit_of(checkout, given):
    if given:
        return given
    try:
        return subprocess.check_output(["git", "-C", checkout, "rev-parse", "HEAD"],
                                       stderr=subprocess.DEVNULL, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        sys.exit("CHECKOUT is not a git work tree: name its commit with --commit")


def problem(updates):
    """The README's problem, drawn in this order from numpy's RandomState(7)."""
    rng = np.random.RandomState(SEED)
    a = rng.uniform(0.5, 2.0, P)
    b = rng.standard_normal(P)
    x0 = rng.standard_normal(P)
    noise = rng.standard_normal((updates, P))
    order = rng.randint(0, WORKERS, updates)
    return a, b, x0, noise, order


def scalar(value):
    """A tuner scalar (Python float, numpy scalar/0-dim array or 0-dim tensor) as a float."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        return value.item()
    return float(value)


def run(module, variant, kwargs, updates, lr_factor):
    a, b, x0, noise, order = problem(updates)
    at, bt = torch.tensor(a), torch.tensor(b)
    theta = torch.nn.Parameter(torch.tensor(x0))  # float64
    opt = module.YFOptimizer([theta], **kwargs)
    opt.set_lr_factor(lr_factor)

    def no_restore(state_dict):
        raise RuntimeError("YFOptimizer.step() hit an exception and would restore its checkpoint "
                           "(yellowfin.py:560-568); no golden file is written from that path")

    opt.load_state_dict_perturb = no_restore
    eps = module.eps
    width = opt._curv_win_width
    sent = [theta.detach().clone() for _ in range(WORKERS)]  # protocol step 1
    steps = []
    for k in range(updates):
        w = int(order[k])
        received = sent[w]
        gradient = at * (received - bt) + torch.tensor(noise[k])
        iteration = opt._iter  # the tuner's 0-based counter before this step
        theta.grad = gradient.clone()
        opt.step()
        if opt._iter != iteration + 1:
            raise RuntimeError("YFOptimizer.step() did not complete update %d" % k)
        group = opt._optimizer.param_groups[0]
        applied = theta.grad.detach().clone()  # after every clip the tuner made
        center = theta.detach().clone()
        sent[w] = center
        gs = opt._global_state
        tuned = iteration > 0  # get_mu/get_lr run from the second step on (yellowfin.py:415)
        buf = opt._optimizer.state[theta].get("momentum_buffer")
        tuner = {
            "iter": iteration,
            "tuned": tuned,
            "h": scalar(gs["grad_norm_squared"]),
            "h_min": scalar(opt._h_min),
            "h_max": scalar(opt._h_max),
            "variance": scalar(opt._grad_var),
            "distance": scalar(opt._dist_to_opt),
            "root": opt.get_cubic_root() if tuned else None,
            "mu_t": scalar(opt._mu_t),
            "lr_t": scalar(opt._lr_t),
            "lr_t_before_slow_start": ((1.0 - math.sqrt(opt._mu_t)) ** 2
                                       / (scalar(opt._h_min) + eps)) if tuned else None,
            "slow_start": min(1.0, (iteration + 1) / (10.0 * width)) if tuned else None,
            "lr_smoothed": scalar(opt._lr),
            "mu_smoothed": scalar(opt._mu),
            "lr_factor": opt._lr_factor,
            "averages": {
                "grad_norm_squared_avg": scalar(gs["grad_norm_squared_avg"]),
                "grad_norm_avg": scalar(gs["grad_norm_avg"]),
                "dist_to_opt_avg": scalar(gs["dist_to_opt_avg"]),
                "h_min_avg": scalar(gs["h_min_avg"]),
                "h_max_avg": scalar(gs["h_max_avg"]),
                "grad_avg": opt._optimizer.state[theta]["grad_avg"].tolist(),
            },
            "exploding_grad_detected": bool(opt._exploding_grad_detected),
            "clipped": not torch.equal(applied, gradient),
            "catastrophic_clamp": tuned and opt._adapt_clip
                                  and scalar(group["lr"]) != scalar(opt._lr_t * opt._lr_factor),
            "applied_gradient": applied.tolist(),
            "buffer": None if buf is None else buf.tolist(),
        }
        steps.append({
            "worker": w,
            "lr": scalar(group["lr"]),
            "momentum": scalar(group["momentum"]),
            "h_min": tuner["h_min"],
            "h_max": tuner["h_max"],
            "noise": noise[k].tolist(),
            "received": received.tolist(),
            "gradient": gradient.tolist(),
            "sent": center.tolist(),
            "center": center.tolist(),
            "tuner": tuner,
        })
    return a, b, x0, steps


def document(variant, kwargs, updates, lr_factor, description, commit, digest, a, b, x0, steps):
    width = kwargs.get("curv_win_width", 20)
    return {
        "rule": "yellowfin",
        "reference": {"repository": REPOSITORY, "commit": commit, "path": PATH,
                      "function": "YFOptimizer.step", "file_sha256": digest},
        "variant": variant,
        "description": description,
        "dtype": "float64",
        # dsgd's keys for the nearest dsgd setting; dsgd does not reproduce the reference at any
        # setting (see the notes on yellowfin).
        "options": {"yf.window": width, "yf.beta": kwargs.get("beta", 0.999),
                    "yf.lr_factor": lr_factor, "yf.slow_start": True,
                    "yf.closed_loop": False, "yf.tune_steps": 0},
        "reference_options": dict(kwargs, lr_factor=lr_factor),
        "workers": WORKERS,
        "updates": updates,
        "seed": "numpy.random.RandomState(7): a = uniform(0.5, 2, 6), b = normal(6), "
                "x0 = normal(6), noise = normal((updates, 6)), worker = randint(0, 3, updates)",
        "notes": "lr and momentum: the SGD group's lr and momentum YFOptimizer.step() applied "
                 "(buf <- momentum*buf + applied_gradient, theta <- theta - lr*buf; buf starts "
                 "as a copy of applied_gradient at the first step with momentum != 0, i.e. "
                 "update 1). Update 0 is untuned: lr 1e-4, momentum 0 (the constructor's lr "
                 "and mu). gradient: the worker's message; tuner.applied_gradient: what SGD "
                 "used after the tuner's clips. h_min/h_max: the debiased envelopes of this "
                 "update, which mu_t and lr_t of this update used.",
        "a": a.tolist(), "b": b.tolist(), "x0": x0.tolist(),
        "steps": steps,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout")
    parser.add_argument("--commit")
    parser.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "data")))
    parser.add_argument("--check-float32", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    torch.set_num_threads(1)
    with open(os.path.join(args.checkout, PATH), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()

    if args.check_float32:
        for variant, (kwargs, updates, lr_factor, _) in VARIANTS.items():
            _, _, _, s64 = run(load_tuner(args.checkout, True), variant, kwargs, updates, lr_factor)
            _, _, _, s32 = run(load_tuner(args.checkout, False), variant, kwargs, updates,
                               lr_factor)
            worst = max(abs(p - q) / max(abs(p), 1e-300)
                        for x, y in zip(s64, s32) for p, q in zip(x["center"], y["center"]))
            print("%-15s float32 statistics move the centre by at most %.3g relative"
                  % (variant, worst))
        return

    commit = commit_of(args.checkout, args.commit)
    module = load_tuner(args.checkout, True)
    os.makedirs(args.out, exist_ok=True)
    for variant, (kwargs, updates, lr_factor, description) in VARIANTS.items():
        a, b, x0, steps = run(module, variant, kwargs, updates, lr_factor)
        path = os.path.join(args.out, "yellowfin-%s.json" % variant)
        with open(path, "w") as f:
            json.dump(document(variant, kwargs, updates, lr_factor, description, commit, digest,
                               a, b, x0, steps), f, indent=1)
            f.write("\n")
        clipped = sum(s["tuner"]["clipped"] for s in steps)
        print("%s: %d updates, %d clipped, final |x - b| = %.4g" % (
            path, updates, clipped, float(np.linalg.norm(np.array(steps[-1]["center"]) - b))))


if __name__ == "__main__":
    main()
