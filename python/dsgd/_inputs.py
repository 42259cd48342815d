"""A Python model and Python data as what dsgd reads: a TorchScript file and a tensor folder
(train.pt and test.pt, each {"x": images, "y": labels}), in a cache keyed by their content.

Content keys make the files the same on every MPI rank and every host (each writes its own copy
where it runs), write each model and data set once however many runs use them, and leave the run
folder's config.toml naming files a later `dsgd run --resume` finds. The cache is $DSGD_CACHE, or
~/.cache/dsgd.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import warnings
from typing import Any, Iterator, Optional

import torch

from . import _core
from ._errors import ConfigError


@contextlib.contextmanager
def quiet_torchscript() -> Iterator[None]:
    """TorchScript is how a Python model reaches dsgd's C++ engine; PyTorch 2.x warns (a
    FutureWarning) at every script, save and load that it is deprecated, which would only tell a
    user about dsgd's insides (docs/python.md says what it means for dsgd)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*torch.jit.*")
        yield


def cache_dir() -> str:
    return os.environ.get("DSGD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "dsgd")


def _write_once(path: str, content: bytes) -> str:
    """Writes `path` with the engine's atomic write (core/atomic_file.h: a temporary file, fsync,
    rename), unless it is there already."""
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _core.write_file_atomically(path, content)
    return path


def _script(module: torch.nn.Module) -> torch.jit.ScriptModule:
    """A float32 TorchScript copy of an nn.Module; the user's module is left as it is."""
    try:
        trainable = copy.deepcopy(module).float()
        with quiet_torchscript():
            return torch.jit.script(trainable)
    except Exception as e:  # torch.jit.frontend.* and RuntimeError, whatever the version
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ConfigError(
            f"the model ({type(module).__name__}) cannot be compiled with torch.jit.script, which "
            f"dsgd needs to train it in C++: {first}",
            "give forward() type annotations for arguments that are not tensors, avoid Python "
            "features TorchScript lacks (**kwargs, dynamic attributes, non-tensor returns), or "
            "pass torch.jit.script(model) yourself; do not trace it instead (torch.jit.trace "
            "freezes BatchNorm in training mode)") from None


def model_path(model: Any) -> str:
    """The value of the `model` key for `model`: a built-in name or a path as given, or the cached
    TorchScript file of an nn.Module or ScriptModule."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if isinstance(model, torch.jit.ScriptModule):
        scripted = model
    elif isinstance(model, torch.nn.Module):
        scripted = _script(model)
    else:
        raise ConfigError(f"model must be an nn.Module, a ScriptModule, a built-in model name or "
                          f"a path, not {type(model).__name__}",
                          "dsgd.models() lists the built-in names")
    buffer = io.BytesIO()
    with quiet_torchscript():
        torch.jit.save(scripted, buffer)
    data = buffer.getvalue()
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    path = os.path.join(cache_dir(), "models", digest + ".pt")
    return _write_once(path, data)


def _from_dataset(dataset: Any, which: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A map-style Dataset read into (images, labels) tensors, once, after checking that they fit
    in memory."""
    n = len(dataset)
    if n == 0:
        raise ConfigError(f"the {which} dataset is empty", "give it at least one sample")
    first = dataset[0]
    if not (isinstance(first, (tuple, list)) and len(first) >= 2):
        raise ConfigError(f"the {which} dataset's items must be (image, label) pairs, "
                          f"not {type(first).__name__}", "return (image, label) from __getitem__")
    image = torch.as_tensor(first[0]) if not isinstance(first[0], torch.Tensor) else first[0]
    need = image.numel() * image.element_size() * n
    available = _core.available_memory_bytes()  # 0 where the system does not say
    if available > 0 and need > available // 2:
        raise ConfigError(
            f"the {which} dataset would take {need / 2**30:.1f} GiB in memory as tensors "
            f"({n} images of {list(image.shape)} {image.dtype}), more than half of the "
            f"{available / 2**30:.1f} GiB available",
            "save it as an image folder (train/<class>/*.png) or as .npy files and pass the "
            "folder's path, which dsgd reads without Python")
    images = torch.empty((n,) + tuple(image.shape), dtype=image.dtype)
    labels = torch.empty(n, dtype=torch.int64)
    for i in range(n):
        x, y = dataset[i][:2]
        images[i] = torch.as_tensor(x)
        labels[i] = int(y)
    return images, labels


def _as_pair(data: Any, which: str) -> tuple[torch.Tensor, torch.Tensor]:
    if isinstance(data, torch.utils.data.Dataset):
        return _from_dataset(data, which)
    if isinstance(data, (tuple, list)) and len(data) == 2:
        images, labels = (torch.as_tensor(t) if not isinstance(t, torch.Tensor) else t
                          for t in data)
        return images, labels
    raise ConfigError(f"{which} must be an (images, labels) pair of tensors, a map-style "
                      f"torch Dataset, or a dataset name or folder, not {type(data).__name__}",
                      "dsgd.datasets() lists the names")


def _checked(images: torch.Tensor, labels: torch.Tensor,
             which: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Images [n, C, H, W] or [n, H, W] as uint8 or float32, labels int64 [n]."""
    images = images.detach().cpu()
    labels = labels.detach().cpu()
    if images.dim() not in (3, 4):
        raise ConfigError(f"{which} images have shape {list(images.shape)}; dsgd takes "
                          f"[n, C, H, W] or [n, H, W]", "stack the images into one tensor")
    if labels.dim() != 1 or labels.shape[0] != images.shape[0]:
        raise ConfigError(f"{which} labels have shape {list(labels.shape)}, but the images have "
                          f"shape {list(images.shape)}: one label per image is needed",
                          f"give labels of shape [{images.shape[0]}]")
    if images.is_floating_point():
        images = images.float()
    elif images.dtype != torch.uint8:
        raise ConfigError(f"{which} images are {images.dtype}; dsgd takes uint8 pixels or float "
                          f"values", "convert them with .float() or .to(torch.uint8)")
    if labels.is_floating_point() or labels.is_complex():
        raise ConfigError(f"{which} labels are {labels.dtype}; class indices are integers",
                          "convert them with .long()")
    return images.contiguous(), labels.long().contiguous()


def _digest(h: Any, tensor: torch.Tensor) -> None:
    h.update(f"{tensor.dtype}{list(tensor.shape)}".encode())
    h.update(memoryview(tensor.numpy()).cast("B"))


def is_tokens(data: Any) -> bool:
    """Whether `data` is a stream of token ids: a 1-D integer tensor."""
    return (isinstance(data, torch.Tensor) and data.dim() == 1 and not data.is_floating_point()
            and not data.is_complex() and data.dtype != torch.bool)


def tokens_path(train: Any, test: Any) -> tuple[str, int]:
    """The cached folder of in-memory token streams, in nanoGPT's format (train.bin and val.bin of
    little-endian uint16 ids), and the vocabulary size their largest id implies."""
    if not is_tokens(test):
        raise ConfigError("training tokens need validation tokens too (test= a 1-D integer "
                          "tensor), which every evaluation reports perplexity on",
                          "split off the last tenth of the stream, e.g. test=tokens[-n // 10:]")
    streams = {"train": train.detach().cpu(), "val": test.detach().cpu()}
    h = hashlib.blake2b(digest_size=16)
    for which, stream in streams.items():
        if stream.numel() == 0:
            raise ConfigError(f"the {which} token stream is empty", "give it some tokens")
        low, high = int(stream.min()), int(stream.max())
        if low < 0 or high >= 2**16:
            raise ConfigError(f"the {which} tokens run from {low} to {high}; dsgd stores ids in "
                              f"[0, 65536) as nanoGPT does", "map the ids into that range")
        streams[which] = stream.to(torch.int32).contiguous()
        _digest(h, streams[which])
    folder = os.path.join(cache_dir(), "data", "tokens-" + h.hexdigest())
    for which, stream in streams.items():
        path = os.path.join(folder, which + ".bin")
        if not os.path.exists(path):
            ids = stream.numpy().astype("<u2")
            _write_once(path, ids.tobytes())
    vocabulary = max(int(s.max()) for s in streams.values()) + 1
    return folder, vocabulary


def dataset_path(train: Any, test: Optional[Any]) -> str:
    """The value of the `dataset` key: a name or folder as given, or the cached tensor folder of
    in-memory data."""
    if isinstance(train, (str, os.PathLike)):
        if test is not None:
            raise ConfigError("test= goes with tensors or a Dataset; a dataset name or folder "
                              "holds its own test split", "drop test=")
        return os.fspath(train)
    if test is None:
        raise ConfigError("in-memory training data needs test data too (test=(images, labels) "
                          "or a Dataset), which every evaluation reports on",
                          "split off a test set, e.g. the last 10% of the samples")
    splits = {}
    h = hashlib.blake2b(digest_size=16)
    for which, data in (("train", train), ("test", test)):
        images, labels = _checked(*_as_pair(data, which), which)
        splits[which] = (images, labels)
        _digest(h, images)
        _digest(h, labels)
    train_images, test_images = splits["train"][0], splits["test"][0]
    if train_images.shape[1:] != test_images.shape[1:]:
        raise ConfigError(f"train images have shape {list(train_images.shape)} and test images "
                          f"{list(test_images.shape)}: every image must have the same shape",
                          "resize one split to the other's size")
    folder = os.path.join(cache_dir(), "data", h.hexdigest())
    for which, (images, labels) in splits.items():
        path = os.path.join(folder, which + ".pt")
        if not os.path.exists(path):
            buffer = io.BytesIO()
            torch.save({"x": images, "y": labels}, buffer)
            _write_once(path, buffer.getvalue())
    return folder
