"""The functions of the package: train, resume, sweep, report, load_runs and the lists, each the
CLI's verb of the same name run in this process (dsgd._core), with Python's values in and out."""
import os
import shutil
import sys

import torch

from . import _build_info, _core, _inputs, _keys, _progress
from ._errors import ConfigError, DsgdError, raise_for, warn_stopped
from ._run import Run


def _check(overrides, config):
    """The keys' errors before any input is written (the model and the data are checked later,
    by the run itself)."""
    raise_for(_core.check_config(os.fspath(config) if config else "", overrides))


def _execute(config_path, overrides, out, resume_dir, progress):
    view = _progress.make(progress)
    try:
        outcome = _core.run(config_path, overrides, out, resume_dir,
                            view.update if view else None, view.log if view else None)
    finally:
        if view:
            view.close()
    return outcome


def _load_weights(model, path):
    """The trained network's parameters and buffers (model.pt, written at each evaluation) into
    the user's module, in its own dtype."""
    trained = os.path.join(path, "model.pt")
    if model is None or isinstance(model, (str, os.PathLike)) or not os.path.exists(trained):
        return
    with _inputs.quiet_torchscript():
        state = torch.jit.load(trained).state_dict()
    with torch.no_grad():
        model.load_state_dict(state)


def _finish(outcome, model):
    """The Run of a finished call; None on an MPI rank other than 0."""
    path = outcome["path"]
    code = outcome["exit_code"]
    if path and os.path.exists(os.path.join(path, "summary.json")):
        _load_weights(model, path)
    raise_for(outcome)  # after the weights: an interrupted run's module holds its last evaluation
    if not path:
        return None
    run = Run(path, model if not isinstance(model, (str, os.PathLike)) else None)
    if code == 3:
        warn_stopped(run)
    return run


def train(model, train, test=None, *, algo=None, workers=None, epochs=None, out=None,
          config=None, progress="auto", **keys):
    """Trains `model` with a dsgd algorithm and returns the Run.

    model: an nn.Module (compiled with torch.jit.script; after training it holds the weights and
        BatchNorm statistics the final evaluation used), a ScriptModule, a built-in model name
        ("resnet20") or a TorchScript file's path.
    train, test: (images, labels) tensors or map-style Datasets (read once into tensors), or
        train as a dataset name ("fashion-mnist") or folder, as the CLI takes them (test=None).
    algo, workers, epochs and every other config key (`dsgd.keys()`) as keyword arguments;
        dotted keys in `config` ({"timing.shape": 10}) or with "__" for the dot (timing__shape).
        `config` may also be a TOML file's path, read first as `dsgd run -c` does.
    out: the run folder (default runs/<timestamp>-<algo>, as the CLI's).
    progress: "auto" (a tqdm bar when tqdm is installed, else the CLI's lines), "bar", "lines",
        or None.

    Raises ConfigError (a ValueError) for bad keys, values, models or data, before anything
    runs; KeyboardInterrupt when Ctrl-C or SIGTERM stopped the run (it checkpointed first:
    dsgd.resume(path) finishes it); DsgdError for anything else. A run that diverged or collapsed
    returns with its status and a RunStoppedWarning.
    """
    config_path, config_keys = "", {}
    if isinstance(config, dict):
        config_keys = dict(config)
    elif config is not None:
        config_path = os.fspath(config)
    named = {"algo": algo, "workers": workers, "epochs": epochs}
    key_values = {**config_keys, **named, **{_keys.key_name(k): v for k, v in keys.items()}}
    for reserved in ("model", "dataset"):
        if reserved in key_values:
            raise ConfigError(f"'{reserved}' is train()'s own argument, not a key here",
                              f"pass it as train({'model' if reserved == 'model' else '..., train'}=...)")
    overrides = _keys.overrides(key_values)
    _check(overrides, config_path)
    inputs = [f"model={_keys.toml_value(_inputs.model_path(model))}",
              f"dataset={_keys.toml_value(_inputs.dataset_path(train, test))}"]
    if out is None:
        out = _core.default_run_path(algo or _default_algo(config_path, overrides))
    outcome = _execute(config_path, inputs + overrides, os.fspath(out), "", progress)
    return _finish(outcome, model)


def _default_algo(config_path, overrides):
    """The algorithm the resolved config names (config.toml's first key, `algo = "..."`)."""
    import re
    toml = _core.check_config(config_path, overrides)["toml"]
    return re.search(r'^algo = "([^"]*)"', toml, re.MULTILINE).group(1)


def resume(path, model=None, *, progress="auto", **keys):
    """Continues the run in `path` from its last checkpoint, exactly as `dsgd run --resume` does;
    keys that may change on resume (epochs, eval_every, threads, ...) as keyword arguments. With
    `model` (the module the run was started with), the trained weights are loaded into it."""
    overrides = _keys.overrides({_keys.key_name(k): v for k, v in keys.items()})
    outcome = _execute("", overrides, "", os.fspath(path), progress)
    return _finish(outcome, model)


def executable():
    """The dsgd command a sweep starts its runs with: beside this Python (a venv's bin/), on
    PATH, or the build tree's."""
    beside = os.path.join(os.path.dirname(sys.executable), "dsgd")
    for candidate in (os.environ.get("DSGD_EXECUTABLE"), beside, shutil.which("dsgd"),
                      _build_info.executable):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise DsgdError("no dsgd executable for the sweep's runs",
                    "install dsgd with pip (it installs the command), or set DSGD_EXECUTABLE")


def sweep(spec, *, jobs=1, out=None, threads=None):
    """Runs every point of a sweep spec (docs/experiments.md) that is not finished, `jobs` at a
    time, each in a `dsgd run` process of its own; again, it continues. Returns the sweep folder.
    Raises KeyboardInterrupt when Ctrl-C stopped it (the runs checkpointed), DsgdError when a run
    failed."""
    result = _core.sweep(os.fspath(spec), os.fspath(out) if out else "", int(jobs),
                         int(threads or 0), executable())
    raise_for(result)
    if result["interrupted_by"]:
        raise KeyboardInterrupt(f"the sweep in {result['path']} stopped; sweep() again continues")
    if result["failed"]:
        raise DsgdError(f"{result['failed']} run(s) of the sweep in {result['path']} failed",
                        "each run's log is next to its folder (<run>.log)")
    return result["path"]


def report(*dirs, out=None, plots=True, target=None, cluster=None, cluster_file=None,
           device=None):
    """Writes the markdown report of run or sweep folders (`dsgd report`); returns its path.

    cluster: re-time the synchronous runs on this named cluster (`dsgd list clusters`; docs/time.md),
    as `dsgd report --cluster` does; an asynchronous run is refused with a ConfigError unless it
    was made on that cluster. device: compute on this device in place of the cluster's own
    (`dsgd report --device`)."""
    command = "dsgd.report(" + ", ".join(repr(os.fspath(d)) for d in dirs) + (
        f", cluster={cluster!r}" if cluster else "") + (
        f", device={device!r}" if device else "") + ")"
    result = _core.report([os.fspath(d) for d in dirs], os.fspath(out) if out else "",
                          bool(plots), float(target or 0.0), command, cluster or "",
                          os.fspath(cluster_file) if cluster_file else "", device or "")
    raise_for(result)
    return result["path"]


def _run_folders(root):
    for folder, _, files in os.walk(root):
        if "metrics.csv" in files:
            yield folder


def _typed(label):
    """A sweep label as the value it names: 4 for "4", 0.1 for "0.1", strings as they are."""
    for kind in (int, float):
        try:
            return kind(label)
        except ValueError:
            pass
    return label


def load_runs(*dirs):
    """Every run below `dirs` as one DataFrame: each run's metrics.csv rows with the run's folder
    (`run`, relative to its root), its status and its main settings (algo, workers, model,
    dataset) as columns; a sweep's runs also carry their labels (the sweep's dimensions)."""
    import json

    import pandas as pd

    frames = []
    for root in dirs:
        root = os.fspath(root)
        labels_of = {}
        sweep_json = os.path.join(root, "sweep.json")
        if os.path.exists(sweep_json):
            with open(sweep_json) as f:
                for point in json.load(f)["points"]:
                    labels_of[os.path.normpath(os.path.join(root, point["dir"]))] = dict(
                        point["labels"])
        for folder in _run_folders(root):
            metrics = pd.read_csv(os.path.join(folder, "metrics.csv"))
            summary = {}
            if os.path.exists(os.path.join(folder, "summary.json")):
                with open(os.path.join(folder, "summary.json")) as f:
                    summary = json.load(f)
            columns = {"run": os.path.relpath(folder, root) if folder != root else
                       os.path.basename(os.path.abspath(root)),
                       "status": summary.get("status")}
            for key in ("algo", "workers", "model", "dataset"):
                columns[key] = summary.get(key)
            for name, value in labels_of.get(os.path.normpath(folder), {}).items():
                columns[name] = _typed(value)
            for name, value in reversed(list(columns.items())):
                metrics.insert(0, name, value)
            frames.append(metrics)
    if not frames:
        raise ConfigError("no runs (folders with metrics.csv) below " + ", ".join(map(str, dirs)),
                          "give run folders, folders of runs, or sweep folders")
    return pd.concat(frames, ignore_index=True)


def _frame(rows, columns):
    import pandas as pd
    return pd.DataFrame(list(rows), columns=columns)


def algorithms():
    """Every algorithm: name, family, description (`dsgd list algorithms`)."""
    return _frame(_core.algorithms(), ["name", "family", "description"])


def models():
    """The built-in models (`dsgd list models`); any nn.Module or TorchScript file trains too."""
    return _frame(_core.models(), ["name", "description"])


def datasets():
    """The named datasets (`dsgd list datasets`); tensors, Datasets and folders train too."""
    return _frame(_core.datasets(), ["name", "description"])


def keys():
    """Every config key: key, type, default, help, and the algorithms it applies to."""
    return _frame(_core.keys(), ["key", "type", "default", "help", "applies_to"])
