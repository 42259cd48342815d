"""dsgd from Python: train a PyTorch model with DANA, Hier-AVG and their baselines on simulated
or MPI workers, sweep configurations, and read the results as pandas DataFrames.

    import dsgd
    run = dsgd.train(net, (x_train, y_train), (x_test, y_test),
                     algo="dana-slim", workers=8, epochs=3)
    run.metrics                      # one row per evaluation (metrics.csv)
    run.summary["final_test_acc"]    # and the rest of summary.json

The engine is dsgd's C++ one, in this process (dsgd._core, built against the LibTorch of the
torch imported here). docs/python.md describes every function.
"""
from __future__ import annotations

import atexit as _atexit
import re as _re

import torch as _torch

from . import _build_info


def _release(version: str) -> str:
    match = _re.match(r"\d+\.\d+\.\d+", version)
    return match.group(0) if match else version


if _release(_torch.__version__) != _build_info.torch_version:
    raise ImportError(
        f"dsgd was built against LibTorch {_build_info.torch_version}, but this Python imports "
        f"torch {_torch.__version__} ({_torch.__file__}), and one process holds one LibTorch. "
        f"Reinstall dsgd with this interpreter (pip install --no-build-isolation "
        f"--force-reinstall <dsgd checkout>), or use the one it was built for: "
        f"{_build_info.python}")

from . import _core  # noqa: E402  (after the check: a mismatched module may not even load)
from ._api import (algorithms, datasets, estimate, keys, load_runs, models, report,  # noqa: E402
                   resume, sweep, train)
from ._errors import (CollapsedError, ConfigError, DataError, DivergedError,  # noqa: E402
                      DsgdError, HangError, RunInterrupted, RunStoppedWarning)
from ._run import Run  # noqa: E402

__version__ = _build_info.version  # CMakeLists.txt's project(VERSION)
__all__ = ["train", "resume", "estimate", "sweep", "report", "load_runs", "algorithms", "models",
           "datasets", "keys", "Run", "DsgdError", "ConfigError", "DataError", "DivergedError",
           "CollapsedError", "HangError", "RunInterrupted", "RunStoppedWarning"]

# MPI stays initialised between runs of this process (it cannot start twice): end it at exit.
_atexit.register(_core.finish_mpi)
