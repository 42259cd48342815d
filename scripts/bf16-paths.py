#!/usr/bin/env python3
"""Which kernels compute bf16 convolutions on this CPU, and how they round.

Run with the PyTorch whose LibTorch dsgd links (Debian's python3-torch for build/):

    /usr/bin/python3 scripts/bf16-paths.py

ATen hands bf16 convolutions to oneDNN where the CPU has AVX-512 BW, VL and DQ (and oneDNN is on);
elsewhere its reference kernels run. Turning oneDNN off (torch.backends.mkldnn.enabled = False)
gives any CPU the second routing, so both paths are measured here: per path, the worst error of
a 3x3 convolution's forward pass against the exact sum of its bf16-rounded operands (in units of
the sum of the absolute products), whether the result equals, bit for bit, one rounding of the
exact sum or the term-by-term bf16 sum (every product and every partial sum rounded to bf16, in
the order of the im2col columns), and the time of a forward and backward pass at ResNet-20's
first stage (batch 128, 16 -> 16 channels at 32x32) against fp32.
"""
import time

import torch
import torch.nn.functional as F


def conv(x, w):
    return F.conv2d(x, w, padding=1)


def bf16_conv(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return conv(x, w)


def rounding(onednn):
    torch.backends.mkldnn.enabled = onednn
    torch.manual_seed(0)
    x, w = torch.randn(2, 8, 6, 6), torch.randn(4, 8, 3, 3) * 0.1
    y = bf16_conv(x, w)
    xb, wb = x.bfloat16().float(), w.bfloat16().float()
    cols = F.unfold(xb, 3, padding=1)  # N, K, L in the order im2col lays the products out
    weights = wb.reshape(4, -1)
    exact = torch.einsum("ok,nkl->nol", weights.double(), cols.double()).reshape(y.shape)
    term_by_term = torch.zeros(2, 4, cols.shape[2]).bfloat16()
    for k in range(weights.shape[1]):
        product = (weights[:, k][None, :, None] * cols[:, k][:, None, :]).bfloat16()
        term_by_term = (term_by_term.float() + product.float()).bfloat16()
    term_by_term = term_by_term.reshape(y.shape)
    worst = {}
    for channels in (3, 16, 64):
        x, w = torch.randn(8, channels, 16, 16), torch.randn(channels, channels, 3, 3) * 0.1
        yb = bf16_conv(x, w).double()
        xr, wr = x.bfloat16().double(), w.bfloat16().double()
        worst[channels * 9] = ((yb - conv(xr, wr)).abs() / conv(xr.abs(), wr.abs())).max().item()
    return torch.equal(exact.bfloat16(), y), torch.equal(term_by_term, y), worst


def step_ms(onednn, dtype):
    torch.backends.mkldnn.enabled = onednn
    torch.manual_seed(0)
    x = torch.randn(128, 16, 32, 32, requires_grad=True)
    w = (torch.randn(16, 16, 3, 3) * 0.1).requires_grad_()
    times = []
    for i in range(4):
        start = time.perf_counter()
        y = bf16_conv(x, w) if dtype == "bf16" else conv(x, w)
        y.float().sum().backward()
        times.append(time.perf_counter() - start)
    return sorted(times[1:])[1] * 1000


def main():
    flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; CPU flags: "
          + ", ".join(f for f in ("avx2", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16",
                                  "amx_bf16") if f in flags))
    fp32 = step_ms(True, "fp32")
    print(f"fp32 (oneDNN): {fp32:.1f} ms a forward and backward pass")
    for onednn, name in ((True, "oneDNN (the routing of a CPU with AVX-512)"),
                         (False, "ATen's reference kernels (the routing of a CPU without)")):
        once, by_term, worst = rounding(onednn)
        ms = step_ms(onednn, "bf16")
        print(f"bf16, {name}:")
        print(f"  equals one rounding of the exact sum: {once}; "
              f"equals the term-by-term bf16 sum: {by_term}")
        print("  worst error / sum of |products|: " + ", ".join(
            f"{v:.2e} at K = {k}" for k, v in worst.items()) + f" (bf16's unit roundoff: {2**-8:.2e})")
        print(f"  {ms:.1f} ms a forward and backward pass, {ms / fp32:.1f}x fp32's")


if __name__ == "__main__":
    main()
