"""The functions of the package: train, resume, sweep, report, load_runs and the lists, each the
CLI's verb of the same name run in this process (dsgd._core), with Python's values in and out."""
from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

import torch

from . import _build_info, _core, _inputs, _progress
from ._errors import ConfigError, DivergedError, DsgdError
from ._run import Run, metrics_frame, warn_stopped

if TYPE_CHECKING:
    import pandas

PathLike = Union[str, "os.PathLike[str]"]
EvaluationCallback = Callable[[dict], None]


def _key_name(name: str) -> str:
    """A keyword argument's config key: a double underscore for each dot (timing__shape)."""
    return name.replace("__", ".")


def _execute(config_path: str, keys: dict, out: str, resume_dir: str, progress: Optional[str],
             on_evaluation: Optional[EvaluationCallback]) -> _core.RunOutcome:
    view = _progress.make(progress)
    try:
        return _core.run(config_path, keys, out, resume_dir, view.update if view else None,
                         view.log if view else None, on_evaluation)
    finally:
        if view:
            view.close()


def _load_weights(model: Any, path: str) -> None:
    """The trained network's parameters and buffers (model.pt, written at each evaluation) into
    the user's module, in its own dtype."""
    trained = os.path.join(path, "model.pt")
    if model is None or isinstance(model, (str, os.PathLike)) or not os.path.exists(trained):
        return
    with _inputs.quiet_torchscript():
        state = torch.jit.load(trained).state_dict()
    with torch.no_grad():
        model.load_state_dict(state)


def _finish(outcome: _core.RunOutcome, model: Any) -> Optional[Run]:
    """The Run of a finished call; None on an MPI rank other than 0. A run that stopped with an
    error raises it once the module holds the weights of the run's last evaluation."""
    path, error = outcome["path"], outcome["error"]
    if path and os.path.exists(os.path.join(path, "summary.json")):
        _load_weights(model, path)
    if error is not None and not isinstance(error, DivergedError):
        raise error
    if not path:
        return None
    run = Run(path, model if not isinstance(model, (str, os.PathLike)) else None)
    if error is not None:
        warn_stopped(run)
    return run


def train(model: Any, train: Any, test: Any = None, *, algo: Optional[str] = None,
          workers: Optional[int] = None, epochs: Optional[float] = None,
          out: Optional[PathLike] = None, config: Union[dict, PathLike, None] = None,
          progress: Optional[str] = "auto",
          on_evaluation: Optional[EvaluationCallback] = None, **keys: Any) -> Optional[Run]:
    """Trains `model` with a dsgd algorithm and returns the Run.

    model: an nn.Module (compiled with torch.jit.script; after training it holds the weights and
        BatchNorm statistics the final evaluation used), a ScriptModule, a built-in model name
        ("resnet20") or a TorchScript file's path.
    train, test: (images, labels) tensors or map-style Datasets (read once into tensors), or
        train as a dataset name ("fashion-mnist") or folder, as the CLI takes them (test=None).
        A language model's: 1-D integer tensors of token ids, the training and the validation
        stream (text.vocabulary_size defaults to the largest id + 1), or a token corpus's name or
        path ("shakespeare", a text file or folder, nanoGPT's train.bin/val.bin folder).
    algo, workers, epochs and every other config key (`dsgd.keys()`) as keyword arguments;
        dotted keys in `config` ({"timing.shape": 10}) or with "__" for the dot (timing__shape).
        `config` may also be a TOML file's path, read first as `dsgd run -c` does.
    out: the run folder (default runs/<timestamp>-<algo>, as the CLI's).
    progress: "auto" (a tqdm bar when tqdm is installed, else the CLI's lines), "bar", "lines",
        or None.
    on_evaluation: called with each evaluation's metrics (a dict: epoch, updates, sim_time,
        train_loss, test_loss, test_acc, test_ppl for a language model, ...; metrics.csv's
        row) as it is made, from the training
        thread, which waits for it: log to TensorBoard or any tracker there
        (examples/tensorboard_callback.py). An exception in it is reported, and the run goes on.

    Raises ConfigError (a ValueError) for bad keys, values and models, before anything runs, and
    DataError (a ValueError) for data that cannot be read; RunInterrupted (a KeyboardInterrupt)
    when Ctrl-C or SIGTERM stopped the run (it checkpointed first: dsgd.resume(path) finishes
    it); DsgdError for anything else. A run that diverged or collapsed returns with its status
    and a RunStoppedWarning.
    """
    _progress.check(progress)
    config_path = ""
    key_values: dict = {}
    if isinstance(config, dict):
        key_values.update(config)
    elif config is not None:
        config_path = os.fspath(config)
    key_values.update({"algo": algo, "workers": workers, "epochs": epochs})
    key_values.update({_key_name(k): v for k, v in keys.items()})
    for reserved in ("model", "dataset"):
        if reserved in key_values:
            argument = "model" if reserved == "model" else "..., train"
            raise ConfigError(f"'{reserved}' is train()'s own argument, not a key here",
                              f"pass it as train({argument}=...)")
    # The keys' errors before the inputs are written (the model and the data are checked by the
    # run itself): a bad key costs no TorchScript compilation and no hashing of the data.
    _core.check_config(config_path, key_values)
    key_values["model"] = _inputs.model_path(model)
    if _inputs.is_tokens(train):
        key_values["dataset"], vocabulary = _inputs.tokens_path(train, test)
        if key_values.get("text.vocabulary_size") is None:
            key_values["text.vocabulary_size"] = vocabulary
    else:
        key_values["dataset"] = _inputs.dataset_path(train, test)
    outcome = _execute(config_path, key_values, os.fspath(out) if out else "", "", progress,
                       on_evaluation)
    return _finish(outcome, model)


def resume(path: PathLike, model: Any = None, *, progress: Optional[str] = "auto",
           on_evaluation: Optional[EvaluationCallback] = None, **keys: Any) -> Optional[Run]:
    """Continues the run in `path` from its last checkpoint, exactly as `dsgd run --resume` does;
    keys that may change on resume (epochs, eval_every, threads, ...) as keyword arguments. With
    `model` (the module the run was started with), the trained weights are loaded into it."""
    _progress.check(progress)
    key_values = {_key_name(k): v for k, v in keys.items()}
    outcome = _execute("", key_values, "", os.fspath(path), progress, on_evaluation)
    return _finish(outcome, model)


def estimate(config: Optional[PathLike] = None, **keys: Any) -> dict[str, Any]:
    """How long the run that `config` (a TOML file) and `keys` describe would take, before it
    trains: its own simulator on its own clock with no gradient computed (`dsgd estimate`,
    docs/time.md). Returns the clock at each epoch's end: "epochs", "sim_time", and "seconds"
    where a cluster prices the run, with "step" (the step timed when it started) and "compute"."""
    key_values = {_key_name(k): v for k, v in keys.items()}
    key_values["engine"] = "sim"  # the simulator prices a run, whatever its engine (as the CLI's)
    return _core.estimate(os.fspath(config) if config else "", key_values)


def executable() -> str:
    """The dsgd command a sweep starts its runs with: beside this Python (a venv's bin/), on
    PATH, or the build tree's."""
    beside = os.path.join(os.path.dirname(sys.executable), "dsgd")
    for candidate in (os.environ.get("DSGD_EXECUTABLE"), beside, shutil.which("dsgd"),
                      _build_info.executable):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise DsgdError("no dsgd executable for the sweep's runs",
                    "install dsgd with pip (it installs the command), or set DSGD_EXECUTABLE")


def sweep(spec: PathLike, *, jobs: int = 1, out: Optional[PathLike] = None,
          threads: Optional[int] = None) -> str:
    """Runs every point of a sweep spec (docs/experiments.md) that is not finished, `jobs` at a
    time, each in a `dsgd run` process of its own; again, it continues. Returns the sweep folder.
    Raises KeyboardInterrupt when Ctrl-C stopped it (the runs checkpointed), DsgdError when a run
    failed."""
    result = _core.sweep(os.fspath(spec), os.fspath(out) if out else "", int(jobs),
                         int(threads or 0), executable())
    if result["interrupted_by"]:
        raise KeyboardInterrupt(f"the sweep in {result['path']} stopped; sweep() again continues")
    if result["failed"]:
        raise DsgdError(f"{result['failed']} run(s) of the sweep in {result['path']} failed",
                        "each run's log is next to its folder (<run>.log)")
    return result["path"]


def report(*dirs: PathLike, out: Optional[PathLike] = None, plots: bool = True,
           target: Optional[float] = None,
           cluster: Union[str, Sequence[str], None] = None,
           cluster_file: Optional[PathLike] = None, device: Optional[str] = None) -> str:
    """Writes the markdown report of run or sweep folders (`dsgd report`); returns its path.

    cluster: re-time the synchronous runs on this named cluster (`dsgd list clusters`;
    docs/time.md), as `dsgd report --cluster` does; an asynchronous run is refused with a
    ConfigError unless it was made on that cluster. A list of names re-times on each: the first
    prices the tables and figures, and a section sets every cluster's times side by side.
    device: compute on this device in place of the cluster's own (`dsgd report --device`)."""
    clusters = [cluster] if isinstance(cluster, str) else list(cluster or [])
    command = "dsgd.report(" + ", ".join(repr(os.fspath(d)) for d in dirs) + (
        f", cluster={cluster!r}" if cluster else "") + (
        f", device={device!r}" if device else "") + ")"
    return _core.report([os.fspath(d) for d in dirs], os.fspath(out) if out else "",
                        bool(plots), float(target or 0.0), command, clusters,
                        os.fspath(cluster_file) if cluster_file else "", device or "")


def _typed(label: str) -> Union[int, float, str]:
    """A sweep label as the value it names: 4 for "4", 0.1 for "0.1", strings as they are."""
    for kind in (int, float):
        try:
            return kind(label)
        except ValueError:
            pass
    return label


def _run_name(folder: str, roots: list[str]) -> str:
    """A run's folder relative to the root it was found under (its own name for a root itself)."""
    for root in roots:
        relative = os.path.relpath(folder, root)
        if not relative.startswith(os.pardir):
            return relative if relative != os.curdir else os.path.basename(os.path.abspath(root))
    return folder


def load_runs(*dirs: PathLike) -> pandas.DataFrame:
    """Every run below `dirs`, found as `dsgd report` finds them, as one DataFrame: each run's
    metrics.csv rows with its folder (`run`, relative to its root), its status and main settings
    (algo, workers, model, dataset) as columns, and its labels: a sweep's dimensions, or for
    loose runs their folder (`run`) and a seed folder's seed. A synchronous simulator run's
    clock columns (compute_time, sim_time, seconds) are derived from its config, as the report
    derives them."""
    import pandas as pd

    roots = [os.fspath(d) for d in dirs]
    frames = []
    for found in _core.load_runs(roots):
        metrics = metrics_frame(found)
        summary = found["summary"] or {}
        columns: dict = {"run": _run_name(found["dir"], roots), "status": found["status"]}
        for key in ("algo", "workers", "model", "dataset"):
            columns[key] = summary.get(key)
        for name, value in found["labels"]:
            columns[name] = value if name == "run" else _typed(value)
        for name, value in reversed(list(columns.items())):
            metrics.insert(0, name, value)
        frames.append(metrics)
    if not frames:
        raise ConfigError("no started runs below " + ", ".join(roots),
                          "give run folders, folders of runs, or sweep folders")
    return pd.concat(frames, ignore_index=True)


def _frame(rows: list, columns: list[str]) -> pandas.DataFrame:
    import pandas as pd
    return pd.DataFrame(list(rows), columns=columns)


def algorithms() -> pandas.DataFrame:
    """Every algorithm: name, family, description (`dsgd list algorithms`)."""
    return _frame(_core.algorithms(), ["name", "family", "description"])


def models() -> pandas.DataFrame:
    """The built-in models (`dsgd list models`); any nn.Module or TorchScript file trains too."""
    return _frame(_core.models(), ["name", "description"])


def datasets() -> pandas.DataFrame:
    """The named datasets (`dsgd list datasets`); tensors, Datasets and folders train too."""
    return _frame(_core.datasets(), ["name", "description"])


def keys() -> pandas.DataFrame:
    """Every config key: key, type, default, help, the algorithms it applies to, and whether
    dsgd.resume (and `dsgd run --resume`) may change it."""
    return _frame(_core.keys(),
                  ["key", "type", "default", "help", "applies_to", "may_change_on_resume"])
