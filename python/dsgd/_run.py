"""A finished (or stopped) run as Python sees it: its folder, its metrics as a pandas DataFrame,
its summary as a dict, and the input normalisation it trained with."""
import json
import os

import torch


class Run:
    """One run folder. `metrics` and `summary` read the folder each time, so a Run of a run that
    goes on elsewhere (a resume, a campaign) shows its latest rows."""

    def __init__(self, path, model=None):
        self.path = os.fspath(path)
        #: The nn.Module or ScriptModule the run trained, holding the weights and BatchNorm
        #: statistics its final evaluation used; None for a built-in model or a path.
        self.model = model

    def __repr__(self):
        s = self.summary
        return (f"Run({self.path!r}: {s.get('algo')} x{s.get('workers')}, status {self.status}, "
                f"final test accuracy {s.get('final_test_acc', float('nan')):.4f})")

    @property
    def summary(self):
        """summary.json: status, final and best accuracy, counts, times, normalisation."""
        with open(os.path.join(self.path, "summary.json")) as f:
            return json.load(f)

    @property
    def status(self):
        return self.summary.get("status")

    @property
    def metrics(self):
        """metrics.csv as a DataFrame: one row per evaluation, the same columns."""
        import pandas as pd
        return pd.read_csv(os.path.join(self.path, "metrics.csv"))

    @property
    def config(self):
        """The resolved config, as config.toml holds it (text)."""
        with open(os.path.join(self.path, "config.toml")) as f:
            return f.read()

    @property
    def normalization(self):
        """(mean, std, unit): every input was fed as (x / unit - mean) / std per channel, unit
        being 255 for uint8 images and 1 for float ones."""
        n = self.summary["normalization"]
        return n["mean"], n["std"], n["unit"]

    def normalize(self, images):
        """`images` as the run fed them to the network: the same float32 arithmetic, so that an
        evaluation in Python gives the run's logits."""
        mean, std, _ = self.normalization
        images = torch.as_tensor(images)
        if images.dim() == 3:
            images = images.unsqueeze(1)
        channels = images.shape[1]
        mean = mean * channels if len(mean) == 1 else mean
        std = std * channels if len(std) == 1 else std
        unit = 255.0 if images.dtype == torch.uint8 else 1.0
        # (x / unit − mean) / std folded into x * scale − shift, each factor rounded to float32
        # from double as dsgd does (data/worker_stream.cpp).
        scale = torch.tensor([1.0 / (unit * float(s)) for s in std], dtype=torch.float64)
        shift = torch.tensor([float(m) / float(s) for m, s in zip(mean, std)],
                             dtype=torch.float64)
        scale = scale.float().view(1, channels, 1, 1)
        shift = shift.float().view(1, channels, 1, 1)
        return images.to(torch.float32).contiguous().mul_(scale).sub_(shift)

    def trained_module(self):
        """The trained network as a ScriptModule (model.pt), for a model given as TorchScript or
        nn.Module; None for a built-in model."""
        from ._inputs import quiet_torchscript
        path = os.path.join(self.path, "model.pt")
        if not os.path.exists(path):
            return None
        with quiet_torchscript():
            return torch.jit.load(path)
