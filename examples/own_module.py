"""Your own nn.Module, defined here and never exported by hand, trained with DANA-Slim and with
plain asynchronous SGD at 16 workers on the same data, the two test-accuracy curves plotted
(matplotlib when installed; the numbers are printed either way).

    .venv/bin/python examples/own_module.py [--epochs 3] [--out runs/own-module]

The data come in as tensors, as they would from your own pipeline: here Fashion-MNIST read from
Debian's dataset-fashion-mnist files. After training, each module holds the weights its run's final
evaluation used, and its accuracy computed here equals the run's.
"""
import argparse
import gzip
import os

import numpy as np
import torch

import dsgd

FASHION = "/usr/share/datasets/fashion-mnist"


def idx(name):
    with gzip.open(os.path.join(FASHION, name)) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return torch.from_numpy(np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape).copy())


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 5, padding=2)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(32)
        self.fc = torch.nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(torch.flatten(x, 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=float, default=3)
    parser.add_argument("--out", default="runs/own-module")
    args = parser.parse_args()
    train = (idx("train-images-idx3-ubyte.gz").unsqueeze(1), idx("train-labels-idx1-ubyte.gz").long())
    test = (idx("t10k-images-idx3-ubyte.gz").unsqueeze(1), idx("t10k-labels-idx1-ubyte.gz").long())

    runs = {}
    for algo in ("dana-slim", "asgd"):
        torch.manual_seed(0)
        net = SmallCnn()
        runs[algo] = dsgd.train(net, train, test, algo=algo, workers=16, epochs=args.epochs,
                                lr=0.01, eval_every=0.5, out=os.path.join(args.out, algo))
        net.eval()
        with torch.no_grad():
            mine = (net(runs[algo].normalize(test[0])).argmax(1) == test[1]).double().mean()
        print(f"{algo}: final test accuracy {runs[algo].summary['final_test_acc']:.4f} "
              f"(the module's own, computed here: {mine:.4f})")

    frame = dsgd.load_runs(args.out)
    print(frame.pivot(index="epoch", columns="algo", values="test_acc"))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no figure)")
        return
    for algo, run in runs.items():
        plt.plot(run.metrics["epoch"], run.metrics["test_acc"], marker="o", label=algo)
    plt.xlabel("epoch")
    plt.ylabel("test accuracy")
    plt.title("SmallCnn on Fashion-MNIST, 16 asynchronous workers")
    plt.legend()
    figure = os.path.join(args.out, "test_acc.png")
    plt.savefig(figure, dpi=100)
    print("figure:", figure)


if __name__ == "__main__":
    main()
