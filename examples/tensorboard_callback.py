"""Logging a dsgd run to TensorBoard (or any tracker) as it trains: dsgd.train calls
on_evaluation with each evaluation's metrics row (the dict metrics.csv gets), from the training
thread, so a SummaryWriter (or wandb.log, mlflow.log_metrics, ...) records it there.

Run: .venv/bin/python examples/tensorboard_callback.py [EPOCHS]   (after scripts/python-install.sh)
then: tensorboard --logdir runs/tensorboard. Without TensorBoard installed
(pip install tensorboard) the rows are printed instead."""
import sys

import torch

import dsgd


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = torch.nn.Conv2d(1, 16, 5, padding=2), torch.nn.Linear(3136, 10)

    def forward(self, x):
        return self.fc(torch.flatten(torch.max_pool2d(torch.relu(self.conv(x)), 2), 1))


def tracker(logdir):
    """A callback writing each row to TensorBoard, or printing it where TensorBoard is missing."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("TensorBoard is not installed (pip install tensorboard): printing the rows")
        return (lambda row: print({k: round(v, 4) for k, v in sorted(row.items())})), None
    writer = SummaryWriter(logdir)

    def log(row):
        step = int(row["updates"])
        for name in ("train_loss", "test_loss", "test_acc", "lr"):
            writer.add_scalar(name, row[name], step)
        writer.flush()
    return log, writer


epochs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
log, writer = tracker("runs/tensorboard")
run = dsgd.train(Net(), "fashion-mnist", algo="dana-slim", workers=8, epochs=epochs, lr=0.01,
                 eval_every=epochs / 4, on_evaluation=log, progress=None)
if writer is not None:
    writer.close()
print(f"final test accuracy {run.summary['final_test_acc']:.4f}; the rows are in {run.path}")
