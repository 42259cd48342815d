"""The fixed tiny problem of tests/golden/README.md, shared by the generators in this folder.

Everything here is our own code: the problem (a, b, x0, the noise e_k and the worker order), the
two learning-rate variants, and the writer of the JSON file. The generators import the reference
code they drive from a checkout whose path they are given; none of it is copied here.
"""
import json
import os

import numpy as np

P = 6          # coordinates of x
WORKERS = 3    # N
STEPS = 24     # updates
SEED = 11612   # numpy seed of a, b, x0, the noise and the worker order

CONSTANT_LR = 0.1


def make_problem(workers=WORKERS, steps=STEPS, seed=SEED):
    """a in [0.5, 2], b and x0 ~ N(0, 1), e_k ~ N(0, 1), and which worker sends update k.

    The draws are made in a fixed order from one RandomState, so every file of a given `workers`
    holds the same problem; the worker order of N = 1 is all zeros (no draw is skipped: the noise
    is the same as with N = 3).
    """
    rng = np.random.RandomState(seed)
    a = rng.uniform(0.5, 2.0, P)
    b = rng.standard_normal(P)
    x0 = rng.standard_normal(P)
    noise = rng.standard_normal((steps, P))
    order = rng.randint(0, WORKERS, steps)
    if workers == 1:
        order = np.zeros(steps, dtype=np.int64)
    elif workers != WORKERS:
        raise ValueError("the README's problem has N = 3 (or N = 1) workers")
    return {"a": a, "b": b, "x0": x0, "noise": noise, "order": [int(w) for w in order]}


def lr_at(variant, k):
    """The rate in force for update k (0-based): README, 'Learning rate'."""
    if variant in ("constant", "decay"):
        return CONSTANT_LR
    if variant == "schedule":
        return 0.1 * min(1.0, (k + 1) / 8.0) * (0.1 if k >= 16 else 1.0)
    raise ValueError("unknown variant " + variant)


def gradient(problem, k, x):
    """g_k(x) = a * (x - b) + e_k, in numpy float64 (for checks; the generators differentiate the
    README's loss with autograd)."""
    return problem["a"] * (np.asarray(x) - problem["b"]) + problem["noise"][k]


def vec(t):
    """A float64 vector as a list of Python floats (json writes them round-trip exact)."""
    return [float(v) for v in np.asarray(t, dtype=np.float64).reshape(-1)]


def write(path, document):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
