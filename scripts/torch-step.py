"""One ResNet-20 training step (projection shortcuts, as resnet20-proj), batch 128, channels-last,
fp32 and bf16 autocast, in the PyTorch of the interpreter that runs it: the median of 12 timed
steps at 1 and 2 intra-op threads. Run it under two interpreters to see which LibTorch computes
faster on the CPU at hand before choosing the build a campaign runs (docs/performance.md, "Which
LibTorch"), e.g. Debian's torch 1.13 against a pip PyTorch 2.x:

    /usr/bin/python3 scripts/torch-step.py
    ~/torch2/bin/python scripts/torch-step.py
"""
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False); self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False); self.b2 = nn.BatchNorm2d(cout)
        self.sc = None
        if stride != 1 or cin != cout:
            self.sc = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.sc is None else self.sc(x)))

class ResNet20(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 16, 3, 1, 1, bias=False); self.b = nn.BatchNorm2d(16)
        layers, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(3):
                layers.append(Block(cin, cout, stride if i == 0 else 1)); cin = cout
        self.layers = nn.Sequential(*layers); self.fc = nn.Linear(64, 10)
    def forward(self, x):
        x = self.layers(F.relu(self.b(self.c(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))

def bench(threads, steps=12, warm=4, bf16=False):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = ResNet20().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(128, 3, 32, 32).to(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (128,))
    times = []
    for k in range(warm + steps):
        t = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        if k >= warm: times.append(time.perf_counter() - t)
    return statistics.median(times)

print(f"torch {torch.__version__}: " + ", ".join(
    f"{t} thread{'s' if t > 1 else ''} fp32 {bench(t) * 1000:.0f} ms, bf16 {bench(t, bf16=True) * 1000:.0f} ms"
    for t in (1, 2)), flush=True)
