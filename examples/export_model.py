#!/usr/bin/env python3
"""Exports networks to TorchScript for `dsgd run --set model=PATH.pt`.

Run with Debian's python3-torch (apt-get install python3-torch); dsgd itself never needs Python.

    python3 examples/export_model.py                 # examples/small_cnn.pt, for 1x28x28 images
    python3 examples/export_model.py --channels 3 --size 32 --classes 10 --out cifar_cnn.pt
    python3 examples/export_model.py --fixtures      # the test fixtures in tests/fixtures/
    python3 examples/export_model.py --resnet20      # examples/resnet20.pt, for build/dsgd_bench

A model for dsgd maps a float batch [B, C, H, W] to [B, classes] logits; its parameters must be
float32. BatchNorm layers are fine: dsgd averages or re-estimates their running statistics as it
does for its built-in models.
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCnn(nn.Module):
    """A small custom network: two conv-BN-ReLU blocks, global average pooling, a linear head."""

    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.head = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class LeNet5Bn(nn.Module):
    """dsgd's built-in lenet5-bn, layer for layer and in the same registration order (convolutions,
    linear layers, then the BatchNorms), so that its flat parameter vector lines up with the
    built-in's: tests copy the built-in's initial parameters in and compare training."""

    def __init__(self, channels: int, side: int, classes: int):
        super().__init__()
        feature = ((side // 2 - 4) // 2)
        self.conv1 = nn.Conv2d(channels, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * feature * feature, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, classes)
        self.bn1 = nn.BatchNorm2d(6)
        self.bn2 = nn.BatchNorm2d(16)
        self.bn3 = nn.BatchNorm1d(120)
        self.bn4 = nn.BatchNorm1d(84)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.relu(self.bn3(self.fc1(torch.flatten(x, 1))))
        x = F.relu(self.bn4(self.fc2(x)))
        return self.fc3(x)


class CifarBlock(nn.Module):
    """He et al.'s CIFAR block with the parameter-free option-A shortcut, as dsgd's resnet20."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.stride = stride
        self.pad = cout - cin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x[:, :, ::self.stride, ::self.stride] if self.stride != 1 else x
        if self.pad > 0:
            front = self.pad // 2
            shortcut = F.pad(shortcut, [0, 0, 0, 0, front, self.pad - front])
        return F.relu(out + shortcut)


class ResNet20(nn.Module):
    """dsgd's built-in resnet20 as TorchScript: the benchmark's subject (same work per step)."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        layers = []
        cin = 16
        for stage, width in enumerate([16, 32, 64]):
            for block in range(3):
                layers.append(CifarBlock(cin, width, 2 if stage > 0 and block == 0 else 1))
                cin = width
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(64, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class NoParameters(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(x, 1)[:, :10]


def save(module: nn.Module, path: str) -> None:
    torch.manual_seed(0)
    scripted = torch.jit.script(module)
    scripted.save(path)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--size", type=int, default=28)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "small_cnn.pt"))
    parser.add_argument("--fixtures", action="store_true",
                        help="write the test fixtures to tests/fixtures/ instead")
    parser.add_argument("--resnet20", action="store_true",
                        help="write examples/resnet20.pt (3x32x32, 10 classes) instead")
    args = parser.parse_args()
    if args.resnet20:
        save(ResNet20(), os.path.join(os.path.dirname(__file__), "resnet20.pt"))
        return
    if not args.fixtures:
        save(SmallCnn(args.channels, args.classes), args.out)
        return
    fixtures = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
    os.makedirs(fixtures, exist_ok=True)
    save(LeNet5Bn(1, 28, 10), os.path.join(fixtures, "lenet5_bn.pt"))
    save(SmallCnn(1, 10), os.path.join(fixtures, "small_cnn.pt"))
    save(NoParameters(), os.path.join(fixtures, "no_parameters.pt"))


if __name__ == "__main__":
    main()
