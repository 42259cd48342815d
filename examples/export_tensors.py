#!/usr/bin/env python3
"""Saves tensors the way `dsgd run --set dataset=PATH` reads them.

Run with Debian's python3-torch (apt-get install python3-torch); dsgd itself never needs Python.
A tensor folder holds either

    train.pt, test.pt      each torch.save({"x": images, "y": labels})
    train_x.npy, train_y.npy, test_x.npy, test_y.npy      (np.save)

with images [n, C, H, W] or [n, H, W] as uint8 pixels (dsgd scales them by 1/255) or float32
(used as they are), and integer labels 0 .. classes-1. dsgd normalises each channel by the train
split's mean and standard deviation unless data.mean and data.std are given.

    python3 examples/export_tensors.py --out my_data          # a small demo dataset, torch.save
    python3 examples/export_tensors.py --out my_data --npy    # the same as .npy files
    python3 examples/export_tensors.py --fixtures             # the test fixtures in tests/fixtures/
"""
import argparse
import os

import numpy as np
import torch


def save_pt(folder: str, splits: dict) -> None:
    os.makedirs(folder, exist_ok=True)
    for split, (x, y) in splits.items():
        torch.save({"x": torch.as_tensor(x), "y": torch.as_tensor(y)},
                   os.path.join(folder, split + ".pt"))


def save_npy(folder: str, splits: dict) -> None:
    os.makedirs(folder, exist_ok=True)
    for split, (x, y) in splits.items():
        np.save(os.path.join(folder, split + "_x.npy"), np.ascontiguousarray(x))
        np.save(os.path.join(folder, split + "_y.npy"), np.ascontiguousarray(y))


def demo(n: int, seed: int):
    """Two classes of 1x16x16 images: a bright square on the left or on the right, with noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int64)
    x = rng.integers(0, 60, (n, 1, 16, 16)).astype(np.uint8)
    for i in range(n):
        x[i, 0, 4:12, (1 if y[i] == 0 else 9):(7 if y[i] == 0 else 15)] += 180
    return x, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="my_data")
    parser.add_argument("--npy", action="store_true", help="write .npy files, not torch.save")
    parser.add_argument("--fixtures", action="store_true",
                        help="write the test fixtures to tests/fixtures/ instead")
    args = parser.parse_args()
    if not args.fixtures:
        splits = {"train": demo(512, 1), "test": demo(128, 2)}
        (save_npy if args.npy else save_pt)(args.out, splits)
        return
    fixtures = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
    # Values a test checks by hand: image i of a split is filled with its index (+100 for test),
    # label i % 3; uint8 [n, 1, 4, 4] through torch.save, float32 [n, 2, 3, 3] (value i / 10)
    # through np.save.
    def pixels(n: int, offset: int):
        x = np.zeros((n, 1, 4, 4), np.uint8) + (np.arange(n, dtype=np.uint8) + offset)[:, None, None, None]
        return x, np.arange(n, dtype=np.int64) % 3
    save_pt(os.path.join(fixtures, "tensors_pt"), {"train": pixels(12, 0), "test": pixels(6, 100)})

    def floats(n: int, offset: float):
        x = np.zeros((n, 2, 3, 3), np.float32) + (np.arange(n, dtype=np.float32) / 10 + offset)[:, None, None, None]
        return x, np.arange(n, dtype=np.int64) % 3
    save_npy(os.path.join(fixtures, "tensors_npy"), {"train": floats(12, 0), "test": floats(6, 5)})


if __name__ == "__main__":
    main()
