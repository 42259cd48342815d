"""dsgd's Python quick start: a network written here trains with DANA-Slim on 8 simulated
workers (Fashion-MNIST, which scripts/setup.sh installs), and the metrics come back as a pandas
DataFrame. Run: .venv/bin/python examples/quickstart.py (after scripts/python-install.sh)."""
import torch, dsgd

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = torch.nn.Conv2d(1, 16, 5, padding=2), torch.nn.Linear(3136, 10)
    def forward(self, x):
        return self.fc(torch.flatten(torch.max_pool2d(torch.relu(self.conv(x)), 2), 1))

run = dsgd.train(Net(), "fashion-mnist", algo="dana-slim", workers=8, epochs=3, lr=0.01)
print(run.metrics[["epoch", "train_loss", "test_acc"]])   # pandas; run.summary: a dict
