#!/usr/bin/env python3
"""Golden trajectories of DC-ASGD from MXNet's own `DCASGD` optimizer (tests/golden/README.md).

The reference is MXNet 1.9.1 (`pip install mxnet==1.9.1 numpy==1.23.5`, in a virtual environment
of its own: MXNet 1.9.1 reads `numpy.bool`, which numpy 1.24 removed), whose
python/mxnet/optimizer/optimizer.py is byte-identical to the apache/mxnet tag 1.9.1
(3f8f3be9987e259491ddc5a78aa9c6903e0b21e3). Nothing of MXNet is copied here: this file imports the
installed package and calls `DCASGD.update` as a parameter server would, with two drivings:

* per-worker (the files in data/): the DC-ASGD paper's server keeps θ̂_i, what it last sent worker
  i. MXNet keeps one `previous_weight` per weight *index* (set to θ before the update it just
  applied), so one DCASGD state is built per worker copy of previous_weight: the state passed for
  worker w's message is (the one shared momentum buffer, previous_weight_w), and previous_weight_w
  is set to the θ the server sends w after the update (MXNet's own assignment of the pre-update θ
  is overwritten by that send).
* shared (--shared, for the notes only): MXNet as its dist_async kvstore server runs it, through
  `mxnet.optimizer.get_updater` with one state per key, whatever the worker.

MXNet 1.9.1's `update` tests `if mom:` on the momentum NDArray, which raises ValueError for a
multi-element weight (apache/mxnet issue #11965; 2.x tests `mom is not None`). With momentum > 0
the momentum state is therefore handed over as an instance of `_MomentumState`, an NDArray
subclass (no new storage, same handle) whose truth value is True: the only change, and the one
the code means. Momentum 0 needs nothing.

Usage:
  /work/golden-venv/mxnet/bin/python dc_asgd_mxnet.py [MXNET_CHECKOUT_AT_1.9.1] [--out DIR]
      [--shared DIR]
The optional checkout path is only used to check that the installed optimizer.py is the tagged one.
"""
import argparse
import hashlib
import inspect
import os
import sys

import numpy as np

import mxnet as mx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402  the README's problem, shared by every driver here

N, K = gp.WORKERS, gp.STEPS
REFERENCE = {"repository": "apache/mxnet", "commit": "3f8f3be9987e259491ddc5a78aa9c6903e0b21e3",
             "tag": "1.9.1", "package": "mxnet==1.9.1 (PyPI)",
             "path": "python/mxnet/optimizer/optimizer.py",
             "function": "mxnet.optimizer.DCASGD.update (class at line 1376, update at 1408-1429)"}


def problem():
    pb = gp.make_problem()
    return pb["a"], pb["b"], pb["x0"], pb["noise"], pb["order"]


def schedule(kind, k):
    return gp.lr_at(kind, k)


class _Schedule(mx.lr_scheduler.LRScheduler):
    """MXNet calls lr_scheduler(num_update) after counting the update: num_update = k + 1."""

    def __init__(self, kind):
        super().__init__(base_lr=0.1)
        self.kind = kind

    def __call__(self, num_update):
        return schedule(self.kind, num_update - 1)


class _MomentumState(mx.nd.NDArray):
    """The momentum NDArray with the truth value DCASGD.update means by `if mom:` (see above)."""
    __slots__ = []

    def __bool__(self):
        return True


def nd(x):
    return mx.nd.array(np.asarray(x, dtype=np.float64), dtype=np.float64)


def run(kind, momentum, lamda, wd, shared):
    a, b, x0, noise, workers = problem()
    opt = mx.optimizer.DCASGD(momentum=momentum, lamda=lamda, wd=wd, rescale_grad=1.0,
                              lr_scheduler=_Schedule(kind))
    weight = nd(x0)
    sent = [x0.copy() for _ in range(N)]          # step 1 of the protocol: θ0 to 0 .. N−1
    sent_at = [0] * N
    steps = []
    if shared:
        updater = mx.optimizer.get_updater(opt)
    else:
        mom, _ = opt.create_state(0, weight)        # (momentum or None, previous weight)
        if mom is not None:
            mom.__class__ = _MomentumState
        previous = [nd(s) for s in sent]            # one previous_weight per worker
    for k in range(K):
        w = int(workers[k])
        received = sent[w]
        g = a * (received - b) + noise[k]
        if shared:
            updater(0, nd(g), weight)
            mom_now = updater.states[0][0]
        else:
            opt.update(0, weight, nd(g), (mom, previous[w]))
            mom_now = mom
            previous[w][:] = weight                 # θ̂_w ← the θ sent to w
        lr = opt._get_lr(0)
        assert lr == schedule(kind, k), (lr, k)
        theta = weight.asnumpy().astype(np.float64)
        step = {"worker": w, "delay": k - sent_at[w], "lr": lr, "noise": noise[k].tolist(),
                "received": received.tolist(), "gradient": g.tolist(), "sent": theta.tolist(),
                "center": theta.tolist()}
        if mom_now is not None:
            step["mxnet_mom"] = mom_now.asnumpy().astype(np.float64).tolist()
        steps.append(step)
        sent[w] = theta
        sent_at[w] = k + 1
    variant = f"{'decay' if wd else kind}-m{momentum:g}-lambda{lamda:g}"
    return {
        "rule": "dc-asgd",
        "reference": REFERENCE,
        "variant": variant,
        "dtype": "float64",
        "options": {"momentum": momentum, "weight_decay": wd, "dc.lambda": lamda,
                    "dc.adaptive": False},
        "schedule": kind,
        "protocol": ("mxnet-shared-state: one DCASGD state per key, previous_weight = θ before the "
                     "previous update (MXNet's kvstore server)") if shared else
                    ("per-worker previous_weight: previous_weight_w = the θ last sent to w "
                     "(DC-ASGD paper's θ̂_w); one momentum buffer shared by all workers"),
        "workers": N,
        "seed": gp.SEED,
        "fields": {
            "delay": "updates applied since the worker was last sent its parameters",
            "gradient": "g_k(received), what was passed to DCASGD.update as grad (MXNet adds "
                        "wd*weight at the server's current weight inside update)",
            "sent": "θ after update k, sent to steps[k].worker; equal to center",
            "mxnet_mom": "MXNet's momentum state after update k (momentum > 0): mom = γ·mom − "
                         "lr·(…); θ ← θ + mom, so dsgd's v is −mxnet_mom",
        },
        "a": a.tolist(), "b": b.tolist(), "x0": x0.tolist(),
        "steps": steps,
    }


def check_source(checkout):
    path = os.path.join(checkout, "python/mxnet/optimizer/optimizer.py")
    with open(path, "rb") as f:
        theirs = hashlib.sha256(f.read()).hexdigest()
    with open(inspect.getsourcefile(mx.optimizer.DCASGD), "rb") as f:
        ours = hashlib.sha256(f.read()).hexdigest()
    if theirs != ours:
        sys.exit(f"installed mxnet optimizer.py differs from {path}")
    print(f"installed optimizer.py == {path} (sha256 {ours[:16]}…)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", nargs="?", help="apache/mxnet checkout at tag 1.9.1")
    parser.add_argument("--out", default=os.path.join(here, "..", "data"))
    parser.add_argument("--shared", metavar="DIR",
                        help="also write the shared-state (kvstore) trajectories into DIR")
    args = parser.parse_args()
    print("mxnet", mx.__version__)
    if mx.__version__ != "1.9.1":
        sys.exit("this driver documents MXNet 1.9.1")
    if args.checkout:
        check_source(args.checkout)
    runs = [(kind, m, lam, wd) for m in (0.0, 0.9) for lam in (0.04, 0.5)
            for kind, wd in (("constant", 0.0), ("schedule", 0.0), ("constant", 1e-2))]
    os.makedirs(args.out, exist_ok=True)
    for kind, m, lam, wd in runs:
        data = run(kind, m, lam, wd, shared=False)
        name = os.path.join(args.out, f"dc-asgd-{data['variant']}.json")
        gp.write(name, data)
        print("wrote", os.path.relpath(name))
    if args.shared:
        os.makedirs(args.shared, exist_ok=True)
        for kind, m, lam, wd in runs:
            try:
                data = run(kind, m, lam, wd, shared=True)
            except ValueError as e:  # 1.9.1's `if mom:` (issue #11965), momentum > 0
                print(f"shared {kind} m={m} lambda={lam} wd={wd}: ValueError: {e}")
                continue
            name = os.path.join(args.shared, f"dc-asgd-shared-{data['variant']}.json")
            gp.write(name, data)
            print("wrote", name)


if __name__ == "__main__":
    main()
