#!/usr/bin/env python3
"""Writes the DANA simulator's ResNet-20 as TorchScript, for dsgd to train as `model = PATH`.

    python3 scripts/reference/export_simulator_resnet20.py OUT.pt [SEED]

The model is the stand-in dana_simulator_cifar10.py gives the authors' training script (option-B
projection shortcuts, 272,474 parameters), initialised with torch.manual_seed(SEED) (default 1).
dsgd's own resnet20 has the parameter-free option-A shortcuts of He et al.'s CIFAR networks
(269,722 parameters); training this file under dsgd separates what the architecture changes from
what the algorithm does when dsgd's curves are set beside the simulator's.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dana_simulator_cifar10 import ResNet20  # noqa: E402  the driver's stand-in, not a copy


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    torch.manual_seed(int(sys.argv[2]) if len(sys.argv) == 3 else 1)
    model = ResNet20()
    torch.jit.script(model).save(sys.argv[1])
    print("%s: %d parameters" % (sys.argv[1], sum(p.numel() for p in model.parameters())))


if __name__ == "__main__":
    main()
