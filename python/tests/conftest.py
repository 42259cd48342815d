"""What the Python package's tests share: a scratch cache and run folders, Fashion-MNIST as tensors
(Debian's dataset-fashion-mnist, which the README's set-up installs), a small CNN written as an
nn.Module, and a way to run a script in a fresh interpreter."""
import gzip
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

FASHION = "/usr/share/datasets/fashion-mnist"
SOURCE_DIR = os.environ.get("DSGD_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


@pytest.fixture(autouse=True)
def scratch(tmp_path, monkeypatch):
    """Every test in a folder of its own, with a cache of its own."""
    monkeypatch.setenv("DSGD_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _idx(name):
    with gzip.open(os.path.join(FASHION, name)) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    pixels = np.frombuffer(data, np.uint8, offset=4 + 4 * dims)
    return torch.from_numpy(pixels.reshape(shape).copy())


def fashion_mnist(train=8192, test=2000):
    """The first `train` and `test` images of Fashion-MNIST as [n, 1, 28, 28] uint8 and labels."""
    x = _idx("train-images-idx3-ubyte.gz")[:train].unsqueeze(1)
    y = _idx("train-labels-idx1-ubyte.gz")[:train].long()
    xt = _idx("t10k-images-idx3-ubyte.gz")[:test].unsqueeze(1)
    yt = _idx("t10k-labels-idx1-ubyte.gz")[:test].long()
    return (x, y), (xt, yt)


class SmallCnn(torch.nn.Module):
    """A network a user writes: convolution, BatchNorm, pooling, a linear layer."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 16, 5, padding=2)
        self.bn = torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 4)
        return self.fc(torch.flatten(x, 1))


def accuracy(module, images, labels):
    module.eval()
    with torch.no_grad():
        return (module(images).argmax(1) == labels).double().mean().item()


def run_script(text, *, args=(), timeout=600, launcher=()):
    """Runs `text` as a Python script in a fresh interpreter (this one, with this PYTHONPATH)."""
    path = os.path.abspath("script.py")
    with open(path, "w") as f:
        f.write(text)
    return subprocess.run(list(launcher) + [sys.executable, path, *args], capture_output=True,
                          text=True, timeout=timeout)
