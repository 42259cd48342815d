"""A finished (or stopped) run as Python sees it: its folder, its metrics as a pandas DataFrame,
its summary as a dict, and the input normalisation it trained with, each read by the engine's own
code (the run folder reader of `dsgd report`, the normalisation of its data loader)."""
from __future__ import annotations

import math
import os
import warnings
from typing import TYPE_CHECKING, Any, Optional, Union

import torch
from torch.utils import dlpack

from . import _core
from ._errors import RunStoppedWarning

if TYPE_CHECKING:
    import pandas


def metrics_frame(found: _core.RunFolder) -> pandas.DataFrame:
    """A run's metrics (as the engine's reader found them) as a DataFrame in metrics.csv's column
    order, typed as pandas.read_csv types the file dsgd wrote (it writes whole numbers without a
    point): a column of whole numbers is int64, any other float64 (an empty cell is NaN). A run
    priced on a cluster has, beside its `seconds`, `time`: the same as a Timedelta to the second,
    which pandas shows as days and h:mm:ss."""
    import pandas as pd

    columns: dict[str, Any] = {}
    for name in found["columns"]:
        values = found["metrics"][name]
        whole = all(math.isfinite(v) and v == int(v) for v in values)
        columns[name] = pd.Series(values, dtype="int64" if whole and values else "float64")
        if name == "seconds":
            columns["time"] = pd.to_timedelta(columns[name], unit="s").dt.round("s")
    return pd.DataFrame(columns)


class Run:
    """One run folder. `metrics` and `summary` read the folder each time, so a Run of a run that
    goes on elsewhere (a resume, a campaign) shows its latest rows."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], model: Any = None) -> None:
        self.path = os.fspath(path)
        #: The nn.Module or ScriptModule the run trained, holding the weights and BatchNorm
        #: statistics its final evaluation used; None for a built-in model or a path.
        self.model = model

    def __repr__(self) -> str:
        s = self.summary
        metric = s.get("metric", "test_acc")  # runs from before tasks: accuracy
        name = "validation perplexity" if metric == "test_ppl" else "test accuracy"
        return (f"Run({self.path!r}: {s.get('algo')} x{s.get('workers')}, status {self.status}, "
                f"final {name} {s.get('final_' + metric, float('nan')):.4f})")

    @property
    def summary(self) -> dict[str, Any]:
        """summary.json: status, task and metric, its final and best values (final_test_acc, or
        a language model's final_test_ppl), counts, times, normalisation or tokens."""
        summary = _core.read_run(self.path)["summary"]
        if summary is None:
            raise FileNotFoundError(f"{self.path} has no summary.json: the run has not evaluated "
                                    f"yet, or this is not a run folder")
        return summary

    @property
    def status(self) -> Optional[str]:
        return self.summary.get("status")

    @property
    def metrics(self) -> pandas.DataFrame:
        """metrics.csv as a DataFrame: one row per evaluation, the same columns (an empty cell,
        a column this kind of run does not fill, is NaN)."""
        return metrics_frame(_core.read_run(self.path))

    @property
    def config(self) -> str:
        """The resolved config, as config.toml holds it (text)."""
        with open(os.path.join(self.path, "config.toml")) as f:
            return f.read()

    @property
    def normalization(self) -> tuple[list[float], list[float], float]:
        """(mean, std, unit): every input was fed as (x / unit - mean) / std per channel, unit
        being 255 for uint8 images and 1 for float ones."""
        n = self.summary["normalization"]
        return n["mean"], n["std"], n["unit"]

    def normalize(self, images: Any) -> torch.Tensor:
        """`images` ([n, C, H, W] or [n, H, W], uint8 or float32) as the run fed them to the
        network, by the engine's own normalisation: an evaluation in Python gives the run's
        logits."""
        mean, std, _ = self.normalization
        images = torch.as_tensor(images)
        if images.dim() == 3:
            images = images.unsqueeze(1)
        if images.is_floating_point():
            images = images.float()
        normalized = _core.normalize(dlpack.to_dlpack(images.contiguous()), list(mean), list(std))
        return dlpack.from_dlpack(normalized)

    def trained_module(self) -> Optional[torch.jit.ScriptModule]:
        """The trained network as a ScriptModule (model.pt), for a model given as TorchScript or
        nn.Module; None for a built-in model."""
        from ._inputs import quiet_torchscript  # the model's reader, not needed to read a run
        path = os.path.join(self.path, "model.pt")
        if not os.path.exists(path):
            return None
        with quiet_torchscript():
            return torch.jit.load(path)


def warn_stopped(run: Run) -> None:
    """Says that `run` ended early with a result (diverged or collapsed), as a RunStoppedWarning."""
    warnings.warn(f"the run in {run.path} ended early: {run.status} "
                  f"({run.summary.get('error', '')})", RunStoppedWarning, stacklevel=3)
