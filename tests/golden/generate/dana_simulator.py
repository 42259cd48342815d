#!/usr/bin/env python3
"""Golden trajectories of DANA-Zero and DANA-DC from the DANA authors' simulator.

    python3 tests/golden/generate/dana_simulator.py CHECKOUT [--out DIR]
                                                   [--repository OWNER/NAME --commit SHA]

CHECKOUT is a directory holding the simulator of Hakimi, Barkai, Gabel, Schuster 2019 ("Taming
Momentum in a Distributed Asynchronous Environment"): its `utils.py` (load_worker,
delay_compensation, load_master, update_master, update_worker, init_weights, init_momentum) and its
training script (the file that defines `train(epoch, args)` and imports those from utils; found by
content, whatever its name). Nothing of it is copied here: this driver builds the README's problem
(golden_problem.py), sets up `args` the way the script's run() does, and calls the script's own
train() for one "epoch" of 24 batches, recording what it does through wrappers around the utils
functions train() calls.

The simulator is one script: DANA-DC with --dc (the delay-compensation λ, default 2 in its
argument parser); --dc 0 makes the correction term exactly zero, which is DANA-Zero. It has no
separate ASGD, NAG-ASGD or Multi-ASGD. Its default λ = 2 was tuned for ResNet-20 gradients, whose
coordinates are ~1e-3; on this problem |g| ~ 1-3 and λ·g⊙g⊙(θ − Θ̂) feeds itself: λ = 2 (and 1)
overflows to inf/NaN within the 24 updates, which a JSON file cannot hold. The dana-dc files use
--dc-lambda (default 0.1: a correction of the same order as g that stays bounded) and record the
simulator's default beside it. Files written (DIR defaults to tests/golden/data):
dana-zero-{constant,schedule,decay}.json and dana-dc-{constant,schedule,decay}.json.

Stand-ins for what the simulator imports but this problem does not use: `model` (its ResNet-20 and
CIFAR-10 loader, which need torchvision) and `tqdm` (a progress bar), when they cannot be imported.
"""
import argparse
import ast
import copy
import hashlib
import importlib
import os
import subprocess
import sys
import types

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402

MOMENTUM = 0.9
DECAY = 1e-2  # the "decay" variant's weight decay: big enough to matter over 24 steps
HERE = os.path.dirname(os.path.abspath(__file__))


def git_blob(path):
    """The git blob id of a file: identifies the exact text driven, whatever repository holds it."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def find_train_script(checkout):
    for name in sorted(os.listdir(checkout)):
        if not name.endswith(".py") or name == "utils.py":
            continue
        with open(os.path.join(checkout, name)) as f:
            text = f.read()
        if "def train(epoch, args)" in text and "update_worker" in text:
            return name
    raise SystemExit("no training script (def train(epoch, args) using update_worker) in " + checkout)


def parser_defaults(path):
    """The defaults of the script's argparse options, read from its source (run() parses sys.argv
    and loads CIFAR-10, so it is not called)."""
    tree = ast.parse(open(path).read())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            if node.args and isinstance(node.args[0], ast.Constant):
                for kw in node.keywords:
                    if kw.arg == "default":
                        try:
                            out[node.args[0].value] = ast.literal_eval(kw.value)
                        except ValueError:
                            pass
    return out


def install_stand_ins():
    try:
        importlib.import_module("tqdm")
    except ImportError:
        class _Bar:
            def __init__(self, iterable=None, *a, **k):
                self.iterable = iterable

            def __iter__(self):
                return iter(self.iterable)

            def set_description(self, *a, **k):
                pass

            def close(self):
                pass

        sys.modules["tqdm"] = types.SimpleNamespace(tqdm=_Bar)
    try:
        importlib.import_module("torchvision")
        has_torchvision = True
    except ImportError:
        has_torchvision = False
    if not has_torchvision:
        def _unused(*a, **k):
            raise RuntimeError("the golden driver does not use the simulator's model or data")
        sys.modules["model"] = types.SimpleNamespace(resnet20_cifar=_unused,
                                                     get_cifar_10_data_set=_unused)


class Quadratic(torch.nn.Module):
    """One float64 Parameter x of size P; the batch tells it which update k it serves."""

    def __init__(self, x0):
        super().__init__()
        self.x = torch.nn.Parameter(torch.tensor(x0, dtype=torch.float64))
        self.k = None

    def forward(self, data):
        self.k = int(data[0])
        return self.x.view(1, -1)


class QuadraticLoss:
    """loss_k(x) = sum_j a_j (x_j - b_j)^2 / 2 + sum_j e_kj x_j (README)."""

    def __init__(self, model, problem):
        self.model = model
        self.a = torch.tensor(problem["a"], dtype=torch.float64)
        self.b = torch.tensor(problem["b"], dtype=torch.float64)
        self.noise = torch.tensor(problem["noise"], dtype=torch.float64)

    def __call__(self, output, target):
        x = output.view(-1)
        e = self.noise[self.model.k]
        return (0.5 * self.a * (x - self.b) ** 2).sum() + (e * x).sum()


def params_of(model):
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()]).clone()


def run(utils, script, problem, variant, dc):
    torch.manual_seed(0)  # nothing here is random; fixed anyway
    steps = gp.STEPS
    lrs = [gp.lr_at(variant, k) for k in range(steps)]
    weight_decay = DECAY if variant == "decay" else 0.0

    model = Quadratic(problem["x0"])
    args = types.SimpleNamespace()
    args.cuda = False
    args.model = model
    args.loss_fn = QuadraticLoss(model, problem)
    args.dc = dc
    args.sim_size = gp.WORKERS
    # run()'s set-up, with its own helpers: one torch SGD whose momentum buffer is swapped per
    # worker, zero buffers, master and worker copies of the weights, and DANA's sum of buffers.
    args.optimizer = torch.optim.SGD(model.parameters(), lr=lrs[0], momentum=MOMENTUM,
                                     weight_decay=weight_decay)
    assert len(args.optimizer.param_groups) == 1
    for p in model.parameters():
        args.optimizer.state[p]["momentum_buffer"] = torch.zeros_like(p.data)
    args.master_weights = utils.init_weights(model.parameters())
    args.worker_weights = [utils.init_weights(model.parameters()) for _ in range(gp.WORKERS)]
    args.worker_momentum = [utils.init_momentum(model.parameters()) for _ in range(gp.WORKERS)]
    args.worker_order = iter(problem["order"])
    args.momentum_sum = {id(p): torch.zeros_like(p) for p in model.parameters()}
    # train() pops one rate per batch before the update (its warm-up list): the rate in force for
    # update k is lrs[k], used both by optimizer.step() and by update_worker's look-ahead.
    args.warmup_lr = list(lrs)
    args.train_loader = [(torch.tensor([k]), torch.zeros(1, dtype=torch.long))
                         for k in range(steps)]

    records = []
    originals = {name: getattr(script, name) for name in
                 ("load_worker", "delay_compensation", "update_master", "update_worker")}

    def load_worker(a, worker_rank):
        originals["load_worker"](a, worker_rank)
        records.append({"worker": int(worker_rank),
                        "lr": float(a.optimizer.param_groups[0]["lr"]),
                        "received": params_of(a.model)})

    def delay_compensation(a):
        records[-1]["gradient"] = torch.cat([p.grad.detach().reshape(-1)
                                             for p in a.model.parameters()]).clone()
        originals["delay_compensation"](a)
        records[-1]["compensated"] = torch.cat([p.grad.detach().reshape(-1)
                                                for p in a.model.parameters()]).clone()

    def update_master(a):
        originals["update_master"](a)
        records[-1]["center"] = torch.cat([w.detach().reshape(-1)
                                           for w in a.master_weights]).clone()

    def update_worker(a, worker_rank):
        originals["update_worker"](a, worker_rank)
        rec = records[-1]
        rec["sent"] = torch.cat([w.detach().reshape(-1)
                                 for w in a.worker_weights[worker_rank]]).clone()
        rec["evaluated"] = params_of(a.model)
        rec["momentum"] = torch.cat([m.detach().reshape(-1) for m in
                                     a.worker_momentum[worker_rank].values()]).clone()

    for name, fn in (("load_worker", load_worker), ("delay_compensation", delay_compensation),
                     ("update_master", update_master), ("update_worker", update_worker)):
        setattr(script, name, fn)
    try:
        script.train(0, args)
    finally:
        for name, fn in originals.items():
            setattr(script, name, fn)

    assert len(records) == steps, len(records)
    out = []
    for k, rec in enumerate(records):
        assert rec["worker"] == problem["order"][k]
        assert rec["lr"] == lrs[k], (rec["lr"], lrs[k])
        expect = gp.gradient(problem, k, rec["received"].numpy())
        assert np.allclose(rec["gradient"].numpy(), expect, rtol=1e-13, atol=1e-13)
        step = {"worker": rec["worker"], "lr": rec["lr"], "noise": gp.vec(problem["noise"][k]),
                "received": gp.vec(rec["received"]), "gradient": gp.vec(rec["gradient"])}
        if dc != 0:
            step["compensated"] = gp.vec(rec["compensated"])
        step.update({"sent": gp.vec(rec["sent"]), "center": gp.vec(rec["center"]),
                     "evaluated": gp.vec(rec["evaluated"]),
                     "momentum": gp.vec(rec["momentum"])})
        out.append(step)
    return out, weight_decay


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "data"))
    ap.add_argument("--repository", default=None, help="owner/name of the checkout, if known")
    ap.add_argument("--commit", default=None, help="its commit, if known")
    ap.add_argument("--dc-lambda", type=float, default=0.1,
                    help="λ of the dana-dc files (the simulator's default, 2, diverges here)")
    opts = ap.parse_args()

    checkout = os.path.abspath(opts.checkout)
    train_name = find_train_script(checkout)
    repository, commit = opts.repository, opts.commit
    if os.path.isdir(os.path.join(checkout, ".git")) or os.path.isfile(
            os.path.join(checkout, ".git")):
        commit = commit or subprocess.check_output(
            ["git", "-C", checkout, "rev-parse", "HEAD"], text=True).strip()
    defaults = parser_defaults(os.path.join(checkout, train_name))

    install_stand_ins()
    sys.path.insert(0, checkout)
    utils = importlib.import_module("utils")
    script = importlib.import_module(train_name[:-3])

    problem = gp.make_problem()
    reference = {
        "repository": repository or "UNIDENTIFIED",
        "commit": commit or "UNIDENTIFIED",
        "path": "utils.py",
        "function": train_name + ":train(epoch, args) -> utils.load_worker, delay_compensation, "
                    "load_master, optimizer.step (torch.optim.SGD), update_master, update_worker",
        "blobs": {"utils.py": git_blob(os.path.join(checkout, "utils.py")),
                  train_name: git_blob(os.path.join(checkout, train_name))},
        "torch": torch.__version__,
    }
    dc_default = float(defaults["--dc"])
    for rule, dc in (("dana-zero", 0.0), ("dana-dc", opts.dc_lambda)):
        for variant in ("constant", "schedule", "decay"):
            steps, weight_decay = run(utils, script, problem, variant, dc)
            options = {"momentum": MOMENTUM, "weight_decay": weight_decay}
            if rule == "dana-dc":
                options["dc.lambda"] = dc
                options["dc.adaptive"] = False
            document = {
                "rule": rule,
                "reference": copy.deepcopy(reference),
                "variant": variant,
                "dtype": "float64",
                "options": options,
                "workers": gp.WORKERS,
                "a": gp.vec(problem["a"]), "b": gp.vec(problem["b"]), "x0": gp.vec(problem["x0"]),
                "seed": gp.SEED,
                "center_is": "theta: master_weights after optimizer.step() (update_master)",
                "evaluated_is": "the model's parameters after update_worker, which evaluate() "
                                "tests: the look-ahead just sent to the worker, "
                                "theta - lr*momentum*sum_j v_j (equal to sent)",
                "momentum_is": "v_w after the update, in torch's convention (lr outside v): "
                               "v <- momentum*v + (g' + weight_decay*theta), theta <- theta - lr*v",
                "lr_note": "train() sets param_groups lr from its warm-up list before each batch; "
                           "the same lr multiplies the step (optimizer.step) and the whole "
                           "look-ahead sum lr*momentum*sum_j v_j (update_worker), including "
                           "buffers accumulated while other rates were in force",
                "steps": steps,
            }
            if rule == "dana-dc":
                document["dc_lambda_note"] = (
                    "the simulator's --dc default is %g; on this problem it overflows to inf/NaN "
                    "within 24 updates, so these files use dc.lambda = %g" % (dc_default, dc))
                document["compensated_is"] = ("g + dc*g*g*(theta - received): delay_compensation "
                                              "on the raw gradient, before torch adds weight decay")
            gp.write(os.path.join(opts.out, "%s-%s.json" % (rule, variant)), document)
            print("wrote", os.path.normpath(os.path.join(opts.out, "%s-%s.json" % (rule, variant))))


if __name__ == "__main__":
    main()
