"""dsgd.sweep and dsgd.report from Python: the sweep runs its points as `dsgd run` processes,
started again it finishes only what was left, and load_runs labels each run by the sweep's
dimensions."""
import os

import dsgd

SPEC = """
out = "grid"
[set]
dataset = "synthetic"
model = "mlp"
batch_size = 16
epochs = 0.5
eval_every = 0.25
[grid]
algo = ["asgd", "dana-zero"]
workers = [2, 4]
"""


def test_a_sweep_from_python_runs_every_point_once_and_loads_as_one_frame():
    with open("spec.toml", "w") as f:
        f.write(SPEC)
    assert dsgd.sweep("spec.toml", jobs=2) == "grid"
    frame = dsgd.load_runs("grid")
    assert len(frame) == 8  # 4 points, 2 evaluations each
    assert set(zip(frame["algo"], frame["workers"])) == {
        ("asgd", 2), ("asgd", 4), ("dana-zero", 2), ("dana-zero", 4)}
    assert set(frame["status"]) == {"ok"}
    stamp = os.path.getmtime("grid/algo=asgd/workers=2/metrics.csv")
    dsgd.sweep("spec.toml", jobs=2)  # finished runs are skipped
    assert os.path.getmtime("grid/algo=asgd/workers=2/metrics.csv") == stamp
    report = open(dsgd.report("grid", plots=False)).read()
    assert "| dana-zero |" in report


def test_load_runs_derives_a_synchronous_runs_clock_from_its_config():
    # A K-AVG run whose clock columns were recorded under another clock (scaled here) loads with
    # the clock its config gives, the one the run records now and the report derives.
    dsgd.train("mlp", "synthetic", algo="kavg", workers=4, **{"kavg.period": 4}, batch_size=16,
               epochs=0.5, eval_every=0.25, progress=None, out="kavg")
    with open("kavg/metrics.csv") as f:
        rows = [line.rstrip("\n").split(",") for line in f]
    derived = [float(row[rows[0].index("sim_time")]) for row in rows[1:]]
    scaled = [rows[0]] + [
        [str(1.25 * float(v)) if rows[0][c] in ("sim_time", "compute_time") else v
         for c, v in enumerate(row)] for row in rows[1:]]
    with open("kavg/metrics.csv", "w") as f:
        f.write("".join(",".join(row) + "\n" for row in scaled))
    frame = dsgd.load_runs("kavg")
    assert list(frame["sim_time"]) == derived
