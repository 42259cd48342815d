#!/usr/bin/env python3
"""One markdown table, a row per epoch, of two training curves side by side: a reference
implementation's (the CSV the drivers in scripts/reference/ write: epoch, lr, train_loss,
test_loss, test_acc, ...) and a dsgd run's metrics.csv, with the difference in test accuracy, and
a last line comparing the final test accuracies against a tolerance. Used for the results pages
that set the DANA authors' simulator beside dsgd (docs/results/dana-cifar10-resnet20-40ep.md).

  scripts/reference/compare_curves.py REFERENCE.csv RUN/metrics.csv \
      [--names "simulator DANA-Zero" "dsgd dana-zero"] [--tolerance 0.03]

Only epochs both have are compared; an unfinished curve shows as far as it got.
"""
import argparse
import csv
import sys


def by_epoch(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {round(float(r["epoch"]), 6): r for r in rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference")
    parser.add_argument("run")
    parser.add_argument("--names", nargs=2, default=["reference", "dsgd"])
    parser.add_argument("--tolerance", type=float, default=0.03)
    args = parser.parse_args()
    reference, run = by_epoch(args.reference), by_epoch(args.run)
    a, b = args.names
    print(f"| epoch | lr | {a}: train loss | {a}: test acc | {b}: train loss | {b}: test acc "
          f"| test acc, {b} − {a} |")
    print("|---|---|---|---|---|---|---|")
    epochs = sorted(set(reference) | set(run))
    for epoch in epochs:
        r, d = reference.get(epoch), run.get(epoch)
        lr = float((r or d)["lr"])
        cells = [f"{epoch:g}", f"{lr:.4g}"]
        for row in (r, d):
            cells += ([f"{float(row['train_loss']):.4f}", f"{float(row['test_acc']):.4f}"]
                      if row else ["-", "-"])
        cells.append(f"{float(d['test_acc']) - float(r['test_acc']):+.4f}" if r and d else "-")
        print("| " + " | ".join(cells) + " |")
    last_r, last_d = max(reference), max(run)
    if last_r == last_d:
        gap = float(run[last_d]["test_acc"]) - float(reference[last_r]["test_acc"])
        within = "within" if abs(gap) <= args.tolerance else "NOT within"
        print(f"\nFinal test accuracy at epoch {last_d:g}: {a} "
              f"{float(reference[last_r]['test_acc']):.4f}, {b} {float(run[last_d]['test_acc']):.4f}"
              f" ({gap:+.4f}, {within} {args.tolerance}).")
    else:
        print(f"\nNot both finished: {a} at epoch {last_r:g}, {b} at epoch {last_d:g}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
