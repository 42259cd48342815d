"""dsgd.train from Python: a module written in the script trains without an export by hand and
holds its trained weights afterwards; the same config gives the CLI's metrics; bad keys and shapes
are ValueErrors that name them; the process is left as it was found."""
import os
import signal
import subprocess
import sys
import warnings

import pandas as pd
import pytest
import torch

import dsgd
from conftest import SmallCnn, accuracy, fashion_mnist


def test_a_module_trains_with_dana_slim_and_keeps_the_weights_it_was_evaluated_with():
    train, test = fashion_mnist(60000, 10000)
    torch.manual_seed(0)
    net = SmallCnn()
    before = [p.detach().clone() for p in net.parameters()]
    # lr 0.02: at the default 0.05 this network collapsed for two of three seeds at N = 8.
    run = dsgd.train(net, train, test, algo="dana-slim", workers=8, epochs=2, lr=0.02,
                     progress=None)
    assert run.status == "ok"
    assert isinstance(run.metrics, pd.DataFrame)
    assert list(run.metrics.columns[:4]) == ["epoch", "updates", "sim_time", "wall_time"]
    final = run.summary["final_test_acc"]
    assert final > 0.8  # it learned: a uniform guess is 0.1
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))
    # The module's own accuracy on the run's normalised test images is the run's, image for image.
    assert accuracy(net, run.normalize(test[0]), test[1]) == pytest.approx(final, abs=1e-12)
    assert run.model is net


def test_the_same_config_gives_the_clis_metrics():
    keys = dict(algo="dana-zero", workers=4, model="lenet5-bn", epochs=0.25, eval_every=0.125,
                threads=1, seed=3)
    run = dsgd.train(keys.pop("model"), "fashion-mnist", progress=None, out="from-python",
                     **keys)
    executable = dsgd._api.executable()
    subprocess.run([executable, "run", "--out", "from-cli", "--set", "algo=dana-zero",
                    "--set", "workers=4", "--set", "model=lenet5-bn", "--set", "epochs=0.25",
                    "--set", "eval_every=0.125", "--set", "threads=1", "--set", "seed=3"],
                   check=True, capture_output=True)
    python = run.metrics.drop(columns=["wall_time"])
    cli = pd.read_csv("from-cli/metrics.csv").drop(columns=["wall_time"])
    assert len(python) == 2
    pd.testing.assert_frame_equal(python, cli)


def test_an_estimate_is_the_clock_of_the_run_it_describes():
    keys = dict(algo="dana-zero", workers=4, model="lenet5-bn", epochs=0.25, eval_every=0.125,
                threads=1, seed=3, timing__shape=4)
    clock = dsgd.estimate(dataset="fashion-mnist", **keys)
    run = dsgd.train(keys.pop("model"), "fashion-mnist", progress=None, out="estimated", **keys)
    assert clock["epochs"] == [0.25]
    assert clock["sim_time"][-1] == run.metrics["sim_time"].iloc[-1]
    assert "seconds" not in clock  # no cluster prices it
    with pytest.raises(dsgd.ConfigError):
        dsgd.estimate(workers=0)


def test_a_misspelt_key_is_a_value_error_naming_it_and_the_closest_key():
    with pytest.raises(ValueError) as error:
        dsgd.train("lenet5-bn", "fashion-mnist", wrokers=8, progress=None)
    assert isinstance(error.value, dsgd.ConfigError)
    assert "wrokers" in str(error.value) and "workers" in str(error.value)
    assert not os.path.exists("runs")  # nothing was written
    with pytest.raises(dsgd.ConfigError, match="timing.shape"):
        dsgd.train("lenet5-bn", "fashion-mnist", config={"timing.shape": -1}, progress=None)


def test_a_progress_setting_that_is_none_of_the_choices_is_refused_before_the_run():
    with pytest.raises(dsgd.ConfigError, match="progress must be .* not 'loud'") as error:
        dsgd.train("lenet5-bn", "fashion-mnist", epochs=0.01, progress="loud")
    assert error.value.exit_code == 2  # raised in Python, as the binding's ConfigErrors have it
    assert not os.path.exists("runs")


def test_resuming_a_folder_without_a_run_names_it(tmp_path):
    with pytest.raises(dsgd.ConfigError, match="is not a run folder: it has no config.toml"):
        dsgd.resume(tmp_path, progress=None)
    assert list(tmp_path.iterdir()) == []


def test_a_cpp_data_error_arrives_as_dsgd_data_error(tmp_path):
    with pytest.raises(dsgd.DataError, match="dataset folder not found") as error:
        dsgd.train("lenet5-bn", "fashion-mnist", data_dir=str(tmp_path / "missing"),
                   epochs=0.1, progress=None, out="no-data")
    assert isinstance(error.value, ValueError) and not isinstance(error.value, dsgd.ConfigError)
    assert error.value.exit_code == 2 and error.value.hint  # the CLI's code and hint


def test_config_values_cross_as_python_values():
    """Keys cross as a dict into the C++ codec: types are its to check, and what a Python value
    cannot be says which key holds it."""
    with pytest.raises(dsgd.ConfigError, match="lr"):
        dsgd.train("lenet5-bn", "fashion-mnist", lr="fast", progress=None)
    with pytest.raises(TypeError, match="timing.speeds"):
        dsgd.train("lenet5-bn", "fashion-mnist", config={"timing": {"speeds": [1.0, object()]}},
                   progress=None)
    assert not os.path.exists("runs")


def test_on_evaluation_gets_each_metrics_row_as_it_is_made(monkeypatch):
    train, test = fashion_mnist(2048, 512)
    rows = []
    run = dsgd.train(SmallCnn(), train, test, algo="ssgd", workers=2, epochs=0.5,
                     eval_every=0.125, progress=None, on_evaluation=rows.append,
                     config={"timing": {"shape": 10.0}})
    metrics = run.metrics
    assert len(rows) == len(metrics) == 4
    for row, (_, expected) in zip(rows, metrics.iterrows()):
        for column in ("epoch", "updates", "sim_time", "train_loss", "test_acc"):
            # metrics.csv keeps six significant digits; the callback gets the double.
            assert row[column] == pytest.approx(expected[column], rel=1e-5)
    # A callback that fails is reported (Python's unraisable hook), and the run goes on.
    def broken(row):
        raise RuntimeError("tracker down")
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    again = dsgd.train(SmallCnn(), train, test, algo="sgd", epochs=0.25, eval_every=0.125,
                       progress=None, on_evaluation=broken)
    assert again.status == "ok" and len(again.metrics) == 2
    assert len(reported) == 2 and "tracker down" in str(reported[0].exc_value)


def test_wrong_shapes_name_both_shapes():
    x = torch.zeros(100, 1, 28, 28, dtype=torch.uint8)
    with pytest.raises(dsgd.ConfigError, match=r"\[99\].*\[100, 1, 28, 28\]"):
        dsgd.train(SmallCnn(), (x, torch.zeros(99, dtype=torch.long)), (x, torch.zeros(100)),
                   progress=None)
    with pytest.raises(dsgd.ConfigError, match=r"\[100, 1, 28, 28\].*\[100, 1, 32, 32\]"):
        dsgd.train(SmallCnn(), (x, torch.zeros(100, dtype=torch.long)),
                   (torch.zeros(100, 1, 32, 32), torch.zeros(100, dtype=torch.long)),
                   progress=None)


def test_a_module_that_cannot_be_scripted_says_how_to_fix_it():
    class Dynamic(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(784, 10)

        def forward(self, x, **options):
            return self.fc(x.flatten(1))

    train, test = fashion_mnist(256, 64)
    with pytest.raises(dsgd.ConfigError, match="torch.jit.script") as error:
        dsgd.train(Dynamic(), train, test, progress=None)
    assert "trace" in str(error.value)


def test_the_process_is_left_as_it_was_found():
    train, test = fashion_mnist(1024, 256)
    torch.set_num_threads(1)
    previous_default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        net = SmallCnn()  # float64 parameters: trained as float32, given back as float64
        assert next(net.parameters()).dtype == torch.float64
        torch.manual_seed(1234)
        expected_draw = torch.rand(3, dtype=torch.float32)
        torch.manual_seed(1234)
        run = dsgd.train(net, train, test, algo="sgd", epochs=0.5, threads=2, progress=None)
        assert run.status == "ok"
        assert torch.get_default_dtype() == torch.float64
        assert torch.get_num_threads() == 1
        assert torch.equal(torch.rand(3, dtype=torch.float32), expected_draw)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert next(net.parameters()).dtype == torch.float64
        second = dsgd.train(SmallCnn(), train, test, algo="sgd", epochs=0.25, progress=None)
        assert second.status == "ok"
    finally:
        torch.set_default_dtype(previous_default)


def test_a_diverged_run_returns_with_its_status_and_a_warning():
    train, test = fashion_mnist(2048, 256)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = dsgd.train(SmallCnn(), train, test, algo="sgd", lr=1e6, epochs=1,
                         warmup_epochs=0, eval_every=0.25, progress=None)
    assert run.status in ("diverged", "collapsed")
    assert any(issubclass(w.category, dsgd.RunStoppedWarning) for w in caught)


def test_lists_load_runs_and_report():
    assert "dana-slim" in set(dsgd.algorithms()["name"])
    assert "resnet20" in set(dsgd.models()["name"])
    assert "fashion-mnist" in set(dsgd.datasets()["name"])
    keys = dsgd.keys().set_index("key")
    assert "precision" in keys.index
    assert keys.loc["epochs", "may_change_on_resume"]
    assert not keys.loc["workers", "may_change_on_resume"]
    train, test = fashion_mnist(1024, 256)
    for workers in (2, 4):
        dsgd.train(SmallCnn(), train, test, algo="asgd", workers=workers, epochs=0.5,
                   eval_every=0.25, out=f"runs/n{workers}", progress=None)
    frame = dsgd.load_runs("runs")
    assert sorted(set(frame["run"])) == ["n2", "n4"]
    assert set(frame["workers"]) == {2, 4}
    assert len(frame) == 4 and "test_acc" in frame.columns
    path = dsgd.report("runs", plots=False)
    assert open(path).read().count("| n") >= 2


def test_progress_shows_as_a_tqdm_bar_or_as_the_clis_lines(capsys):
    train, test = fashion_mnist(2048, 512)
    dsgd.train(SmallCnn(), train, test, algo="sgd", epochs=0.5, eval_every=0.25,
               progress="bar", out="bar")
    err = capsys.readouterr().err
    assert "upd" in err and "%|" in err, err  # tqdm's bar, in Python's stderr
    assert "epoch 0.50" in err  # the evaluation lines, written above the bar
    dsgd.train(SmallCnn(), train, test, algo="sgd", epochs=0.5, eval_every=0.25,
               progress="lines", out="lines")
    err = capsys.readouterr().err
    assert "epoch 0.25" in err and "epoch 0.50" in err and "%|" not in err


def test_a_cluster_counts_seconds_and_the_report_re_times_sync_runs():
    train, test = fashion_mnist(1024, 256)
    dsgd.train(SmallCnn(), train, test, algo="ssgd", workers=4, epochs=0.5, eval_every=0.25,
               cluster="flat-25g", out="priced", progress=None)
    frame = dsgd.load_runs("priced")
    assert "seconds" in frame.columns and (frame["seconds"] > 0).all()
    # Beside the seconds, the same as a duration to the second (shown as h:mm:ss).
    assert list(frame.columns).index("time") == list(frame.columns).index("seconds") + 1
    assert (abs(frame["time"].dt.total_seconds() - frame["seconds"]) <= 0.5).all()
    dsgd.train(SmallCnn(), train, test, algo="ssgd", workers=4, epochs=0.5, eval_every=0.25,
               out="plain", progress=None)
    path = dsgd.report("plain", plots=False, cluster="nvlink8-10g")
    assert "time on the cluster" in open(path).read()
    path = dsgd.report("plain", plots=False, cluster=["nvlink8-10g", "flat-25g"])
    assert "| whole run on nvlink8-10g | whole run on flat-25g |" in open(path).read()
    dsgd.train(SmallCnn(), train, test, algo="asgd", workers=2, epochs=0.25, out="async",
               progress=None)
    with pytest.raises(dsgd.ConfigError, match="asynchronous"):
        dsgd.report("async", plots=False, cluster="flat-25g")
    with pytest.raises(dsgd.ConfigError, match="unknown device 'a100'"):
        dsgd.report("plain", plots=False, cluster="flat-25g", device="a100")


def test_the_tensorboard_callback_example_runs():
    """examples/tensorboard_callback.py: TensorBoard's SummaryWriter when installed, else printed
    rows; either way one record per evaluation (four), then the run's final accuracy."""
    example = os.path.join(os.environ["DSGD_SOURCE_DIR"], "examples", "tensorboard_callback.py")
    result = subprocess.run([sys.executable, example, "0.25"], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    assert "final test accuracy" in result.stdout
    try:
        import torch.utils.tensorboard  # noqa: F401
        events = [f for f in os.listdir("runs/tensorboard") if f.startswith("events.out")]
        assert events
    except ImportError:
        assert result.stdout.count("'test_acc'") == 4
