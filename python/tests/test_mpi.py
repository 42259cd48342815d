"""engine="mpi" from Python: `mpirun -n N+1 python3 script.py` runs the call as MPI ranks (rank 0
gets the Run, the others None) and trains what `mpirun dsgd run` trains with the same keys (to the
digit for the synchronous family; the asynchronous one's arrival order is the machine's), also
when mpi4py initialised MPI first."""
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

import dsgd

MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
COMMON = dict(model="lenet5-bn", epochs=0.1, eval_every=0.05, seed=2)

SCRIPT = """
import os, sys
{preamble}
import dsgd
keys = {keys!r}
run = dsgd.train(keys.pop("model"), "fashion-mnist", engine="mpi", out="from-python",
                 progress=None, **keys)
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
got = "none" if run is None else f"{{type(run).__name__}} {{run.status}}"
print(f"rank {{rank}}: {{got}}", flush=True)
"""


def mpirun(ranks, command):
    return subprocess.run(MPIRUN + ["-n", str(ranks)] + command, env=ENV, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="no mpirun")
@pytest.mark.parametrize("algo, workers, ranks", [("dana-slim", 2, 3), ("ssgd", 2, 2)])
@pytest.mark.parametrize("mpi4py_first", [False, True])
def test_a_script_under_mpirun_trains_what_the_cli_trains(algo, workers, ranks, mpi4py_first):
    if mpi4py_first:
        pytest.importorskip("mpi4py")
    keys = dict(COMMON, algo=algo, workers=workers)
    preamble = "from mpi4py import MPI\nassert MPI.Is_initialized()" if mpi4py_first else ""
    with open("script.py", "w") as f:
        f.write(SCRIPT.format(preamble=preamble, keys=keys))
    python = mpirun(ranks, [sys.executable, "script.py"])
    assert python.returncode == 0, python.stdout + python.stderr
    assert "rank 0: Run ok" in python.stdout
    for rank in range(1, ranks):
        assert f"rank {rank}: none" in python.stdout, python.stdout

    sets = []
    for key, value in keys.items():
        sets += ["--set", f"{key}={value}"]
    cli = mpirun(ranks, [dsgd._api.executable(), "run", "--engine", "mpi", "--out", "from-cli"]
                 + sets)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    # The MPI engine's times (sim_time, wall_time) are measured, not simulated; so is the order
    # in which real asynchronous workers arrive, so only a synchronous run learns the same to the
    # last digit twice.
    from_python = dsgd.Run("from-python").metrics
    from_cli = pd.read_csv("from-cli/metrics.csv")
    learned = ["epoch", "updates", "lr"]
    if algo == "ssgd":
        learned += ["train_loss", "test_loss", "test_acc"]
    else:
        assert (from_python["test_acc"] > 0.5).all() and (from_cli["test_acc"] > 0.5).all()
    pd.testing.assert_frame_equal(from_python[learned], from_cli[learned])
