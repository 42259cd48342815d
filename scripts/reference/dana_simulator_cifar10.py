#!/usr/bin/env python3
"""Runs the DANA authors' simulator on CIFAR-10, to set its curve beside a dsgd run's.

    python3 scripts/reference/dana_simulator_cifar10.py CHECKOUT DATA_DIR OUT.csv [SIMULATOR ARGS]
    e.g.  ... /work/golden-src/dana-simulator ../shared/data/cifar10 n32.csv \
              --sim-size 32 --dc 0 --epochs 12 --no-cuda

CHECKOUT holds the simulator of Hakimi, Barkai, Gabel, Schuster 2019 (its utils.py and training
script; docs/golden-references.md says which text, by git blob id). Its training loop, worker
order, optimizer, warm-up and evaluation run unchanged. Its `model` module (ResNet-20 and the
torchvision CIFAR-10 loader) needs torchvision and a download, so this driver supplies a stand-in
written here: the same ResNet-20 (option-B shortcuts, the same initialisation; 272,474
parameters), the same augmentation (random crop 32 after zero padding 4, horizontal flip,
normalisation by the same means and deviations), reading CIFAR-10's binary layout from DATA_DIR.
tqdm is replaced by a bar that remembers its last description, where the script reports the
epoch's training loss.

OUT.csv gets one row per epoch (epoch counted from 1, as dsgd's metrics.csv): the rate at the
epoch's last update, the mean training loss over the epoch, test loss and accuracy as the script
evaluates them (at the parameters its model holds after the epoch, with the BatchNorm running
statistics training left), and the wall seconds. THREADS (default 2) sets torch's threads.

After each epoch the driver writes OUT.csv.state: everything the script carries from one epoch to
the next (the model and its BatchNorm statistics, the optimizer, the master's and every worker's
weights and momentum, DANA's momentum sum, the warm-up rates left, the gamma clock's heap, and
torch's, NumPy's and Python's random states). Started again with the same arguments, it skips the
epochs done and continues from there, so a run of many hours survives its machine being shared or
stopped; the rows it writes are the ones an uninterrupted run writes (the DataLoader's shuffling
and augmentation seeds are drawn from torch's generator, which the state holds).
"""
import contextlib
import io
import math
import os
import random
import re
import sys
import time
import types

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "golden", "generate"))
from dana_simulator import find_train_script  # noqa: E402  the golden driver's: same search

MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(3, 1, 1)
STD = torch.tensor([0.2023, 0.1994, 0.2010]).view(3, 1, 1)


def read_batches(data_dir, names):
    folder = os.path.join(data_dir, "cifar-10-batches-bin")
    raw = np.concatenate([np.fromfile(os.path.join(folder, n), dtype=np.uint8).reshape(-1, 3073)
                          for n in names])
    images = torch.from_numpy(raw[:, 1:].reshape(-1, 3, 32, 32).copy()).float().div_(255)
    labels = torch.from_numpy(raw[:, 0].astype(np.int64))
    return (images - MEAN) / STD, labels


class Cifar(torch.utils.data.Dataset):
    def __init__(self, data_dir, names, augment):
        self.images, self.labels = read_batches(data_dir, names)
        self.augment = augment
        self.black = -MEAN / STD  # torchvision pads the image before normalising it

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.images[i]
        if self.augment:
            padded = self.black.expand(3, 40, 40).clone()
            padded[:, 4:36, 4:36] = x
            # torch's generator, as torchvision's transforms draw: DataLoader seeds it per worker
            r, c = torch.randint(0, 9, (2,)).tolist()
            x = padded[:, r:r + 32, c:c + 32]
            if torch.rand(1).item() < 0.5:
                x = x.flip(2)
        return x.contiguous(), self.labels[i]


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(out + (x if self.shortcut is None else self.shortcut(x)))


class ResNet20(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        blocks, cin = [], 16
        for cout, stride in [(16, 1), (32, 2), (64, 2)]:
            for k in range(3):
                blocks.append(Block(cin, cout, stride if k == 0 else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(64, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                m.weight.data.normal_(0, math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()

    def forward(self, x):
        x = self.blocks(torch.relu(self.bn1(self.conv1(x))))
        return self.fc(torch.flatten(nn.functional.avg_pool2d(x, 8), 1))


class Bar:
    last = ""

    def __init__(self, iterable):
        self.iterable = iterable

    def __iter__(self):
        return iter(self.iterable)

    def set_description(self, text):
        Bar.last = text

    def close(self):
        pass


def worker_clock(args):
    """The gamma clock the script iterates (its generator's GammaRandomWorkerSelection)."""
    return args.worker_order.gi_frame.f_locals["self"]


def save_state(path, epoch, args, elapsed):
    params = list(args.model.parameters())
    state = {
        "epoch": epoch,
        "elapsed": elapsed,
        "model": args.model.state_dict(),
        "optimizer": args.optimizer.state_dict(),
        "master": args.master_weights,
        "workers": args.worker_weights,
        "worker_momentum": [[m[id(p)] for p in params] for m in args.worker_momentum],
        "momentum_sum": [args.momentum_sum[id(p)] for p in params],
        "warmup_lr": args.warmup_lr,
        "clock": worker_clock(args).order,
        "rng": (torch.get_rng_state(), np.random.get_state(), random.getstate()),
    }
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def load_state(path, args):
    state = torch.load(path)
    params = list(args.model.parameters())
    args.model.load_state_dict(state["model"])
    args.optimizer.load_state_dict(state["optimizer"])
    # load_state_dict copies the momentum buffers into new tensors; the script's own start
    # values are zeros, so they are put back as the state holds them.
    args.master_weights = state["master"]
    args.worker_weights = state["workers"]
    args.worker_momentum = [{id(p): m for p, m in zip(params, ms)}
                            for ms in state["worker_momentum"]]
    args.momentum_sum = {id(p): m for p, m in zip(params, state["momentum_sum"])}
    args.warmup_lr = state["warmup_lr"]
    worker_clock(args).order[:] = state["clock"]
    torch_rng, numpy_rng, python_rng = state["rng"]
    torch.set_rng_state(torch_rng)
    np.random.set_state(numpy_rng)
    random.setstate(python_rng)
    return state["epoch"], state["elapsed"]


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    checkout, data_dir, out = sys.argv[1:4]
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    sys.modules["tqdm"] = types.SimpleNamespace(tqdm=Bar)
    sys.modules["model"] = types.SimpleNamespace(
        resnet20_cifar=ResNet20,
        get_cifar_10_data_set=lambda: (
            Cifar(data_dir, ["data_batch_%d.bin" % k for k in range(1, 6)], augment=True),
            Cifar(data_dir, ["test_batch.bin"], augment=False)))
    sys.path.insert(0, os.path.abspath(checkout))
    script = __import__(find_train_script(checkout)[:-len(".py")])

    state_path = out + ".state"
    done = 0
    if os.path.exists(state_path) and os.path.exists(out):
        with open(out) as f:
            kept = f.readlines()
        rows = open(out, "w")
        rows.writelines(kept[:1 + torch.load(state_path)["epoch"]])
        rows.flush()
    else:
        rows = open(out, "w")
        rows.write("epoch,lr,train_loss,test_loss,test_acc,wall_time\n")
    start = time.time()
    train, evaluate = script.train, script.evaluate

    def train_or_skip(epoch, args):
        nonlocal done, start
        if epoch == 0 and os.path.exists(state_path):
            done, elapsed = load_state(state_path, args)
            start -= elapsed
            print("resuming after epoch %d" % done, flush=True)
            # The state holds the rate the last epoch ended with, milestones up to it applied;
            # the script's loop applies the milestones of epochs 1 to `done` again before each
            # (skipped) epoch, so those up to done - 1 are taken out here.
            for e in range(1, done):
                if e in args.schedule:
                    args.optimizer.param_groups[0]["lr"] /= args.lr_decay
        if epoch < done:
            return
        train(epoch, args)

    def evaluate_and_record(epoch, args):
        if epoch < done:
            return
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            evaluate(epoch, args)
        test = re.search(r"Test Loss: (\S+) Test Accuracy: (\S+)", printed.getvalue())
        loss = re.search(r"Loss: (\S+)", Bar.last)
        rows.write("%d,%.6g,%s,%.6g,%.4f,%.1f\n" % (
            epoch + 1, args.optimizer.param_groups[0]["lr"], loss.group(1),
            float(test.group(1)), float(test.group(2)) / 100, time.time() - start))
        rows.flush()
        print("epoch %d: %s; test accuracy %.4f" % (epoch + 1, Bar.last, float(test.group(2)) / 100),
              flush=True)
        save_state(state_path, epoch + 1, args, time.time() - start)

    # The script seeds torch and Python's random but not NumPy, whose generator draws its gamma
    # clock: seeded here (NUMPY_SEED, default 0), so that a run is repeatable.
    np.random.seed(int(os.environ.get("NUMPY_SEED", "0")))
    script.train = train_or_skip
    script.evaluate = evaluate_and_record
    sys.argv = [script.__file__] + sys.argv[4:]
    script.run()


if __name__ == "__main__":
    main()
