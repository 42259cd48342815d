#!/usr/bin/env python3
"""Where each algorithm wins: time to a stated accuracy across devices x links x server shards.

Two comparisons from finished campaign runs (their metrics.csv gives the epoch each first reaches
the accuracy; evaluations are at epochs' ends) and `dsgd estimate` (the run's own simulator on its
own clock, no gradient computed: docs/time.md), on clusters this script writes: every device of
`--devices` on hosts joined by every link of `--links`.

- dana-slim N = 16 against ssgd P = 16 (the DANA seconds study's runs, 160 epochs, batch 128),
  single-device hosts, dana-slim with 1 server and with enough shards (the fewest of 1, 2, 4, 8
  within 5 % of the fastest epoch). SSGD is synchronous: its clock does not depend on the
  gradients' values, so its estimate over the whole run is its time exactly. DANA-Slim's
  arrival order depends on the cluster and its accuracy on the arrival order, so its time is an
  estimate: the epoch its run (made on cloud-1gpu-10g with this CPU's step) first reaches the
  accuracy, priced at the estimate's mean epoch on the other cluster. The estimate is checked
  against a full run: the DANA table's dana-slim N = 16 (made without a cluster) priced on
  cloud-1gpu-10g against the seconds study's run made there; its error is printed.
- Hier-AVG (S = 4, K1 = 2, K2 = 8 and 32) against K-AVG K = 8 and SSGD P = 16 (the Hier-AVG
  study's runs, 80 epochs), hosts of 4 devices on PCIe 3.0 (a group of 4 is a host), every run
  synchronous and re-timed exactly.

  scripts/where-each-wins.py --out docs/results/where-each-wins.md
  scripts/where-each-wins.py --cluster-file my.toml --devices mygpu:contiguous:fp32 \
      --links mylink --out /tmp/mine.md      # a cluster file of one's own: its devices and links

Writes the page (keeping commentary below a "<!-- notes -->" line of the page it replaces) and,
beside it, NAME-plots/wins.{dat,gp,png}: each device's time to the accuracy relative to SSGD's on
every link, for dana-slim with enough shards and for the fastest Hier-AVG.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_page import write_page  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "docs", "results")
DANA_RUNS = os.path.join(RESULTS, "dana-seconds-cifar10-resnet20-runs")
DANA_TABLE_RUNS = os.path.join(RESULTS, "dana-cifar10-resnet20-runs")
HIER_RUNS = os.path.join(RESULTS, "hier-avg-cifar10-resnet20-80ep-runs")
HIER_CONFIGS = ["ssgd_p16", "kavg_K=8", "hier-avg_S=4_K1=2_K2=8", "hier-avg_S=4_K1=2_K2=32"]
LINK_NAMES = {"ethernet-10g": "10 Gb/s", "ethernet-25g": "25 Gb/s", "ethernet-100g": "100 Gb/s",
              "infiniband-hdr": "IB HDR"}
# Keys a run recorded from its own clock's prices: the estimate on another cluster prices anew.
PRICED_KEYS = ("seconds_per_unit", "core_sharing")


def run_config(run_dir, scratch):
    """The run's config.toml without the prices its cluster (or none) wrote, as a file."""
    kept, skipping = [], False
    with open(os.path.join(run_dir, "config.toml")) as f:
        for line in f:
            stripped = line.strip()
            if stripped.startswith("["):
                skipping = stripped == "[comm]"
            if skipping or stripped.split(" ")[0] in PRICED_KEYS:
                continue
            kept.append(line)
    path = os.path.join(scratch, run_dir.replace(os.sep, "_") + ".toml")
    with open(path, "w") as f:
        f.writelines(kept)
    return path


def estimate(dsgd, config, keys):
    """`dsgd estimate --json` of the config with the keys set: epochs and seconds."""
    command = [dsgd, "estimate", "--json", "--config", config]
    command += [a for k in keys for a in ("--set", k)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"where-each-wins: {' '.join(command)} failed:\n{done.stderr}")
    clock = json.loads(done.stdout)
    if not clock.get("seconds"):
        sys.exit(f"where-each-wins: no seconds in the estimate of {' '.join(command)}")
    return clock


def first_epoch_at(run_dir, accuracy):
    """The first evaluated epoch whose test accuracy reaches `accuracy`, or None."""
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            if row.get("test_acc") and float(row["test_acc"]) >= accuracy:
                return float(row["epoch"]), row
    return None, None


def seconds_at(clock, epoch):
    """The estimate's seconds at the end of `epoch` (an epoch it ran)."""
    for e, s in zip(clock["epochs"], clock["seconds"]):
        if abs(e - epoch) < 1e-9:
            return s
    sys.exit(f"where-each-wins: the estimate has no epoch {epoch}")


def extrapolated(clock, epoch):
    """Seconds at `epoch` from a short estimate: its first epoch, then its mean epoch after it."""
    s = clock["seconds"]
    mean = (s[-1] - s[0]) / (len(s) - 1)
    return s[0] + (epoch - 1) * mean, mean


def clock_text(seconds):
    if seconds is None:
        return "not reached"
    if seconds < 600:
        return f"{seconds:.1f} s"
    minutes, s = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{s:02d}" if hours else f"{minutes}:{s:02d}"


def write_clusters(path, own_file, links):
    """Clusters of 1 and of 4 devices a host for each link (device: the run's cluster_device)."""
    text = open(own_file).read() + "\n" if own_file else ""
    for link in links:
        for per_host in (1, 4):
            text += (f"[clusters.wins-{per_host}-{link}]\nworkers_per_host = {per_host}\n"
                     f'intra = "pcie3-x16"\ninter = "{link}"\ndevice = "measured"\n'
                     f'source = "{per_host} device(s) a host on PCIe 3.0, {link} between hosts '
                     '(scripts/where-each-wins.py)"\n\n')
    with open(path, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsgd", default=os.path.join(REPO, "build", "dsgd"))
    parser.add_argument("--out", help="the markdown page to write")
    parser.add_argument("--devices", default="xeon-avx512bf16-2core:channels-last:fp32,"
                        "gtx1080ti-keras:channels-last:fp32,h200:contiguous:fp32",
                        help="DEVICE:MEMORY_FORMAT:PRECISION,... (a step for resnet20-proj at "
                        "batch 128 in that format)")
    parser.add_argument("--links", default=",".join(LINK_NAMES))
    parser.add_argument("--cluster-file", help="devices and links of one's own (TOML)")
    parser.add_argument("--dana-accuracy", type=float, default=0.87)
    parser.add_argument("--hier-accuracy", type=float, default=0.84)
    parser.add_argument("--short-epochs", type=int, default=8,
                        help="epochs of the asynchronous runs' estimates (then extrapolated)")
    args = parser.parse_args()
    devices = [d.split(":") for d in args.devices.split(",")]
    links = args.links.split(",")
    scratch = tempfile.mkdtemp(prefix="where-each-wins-")
    clusters = os.path.join(scratch, "clusters.toml")
    write_clusters(clusters, args.cluster_file, links)

    dana_dir = os.path.join(DANA_RUNS, "dana-slim_n16", "seed1")
    ssgd_dir = os.path.join(DANA_RUNS, "ssgd_p16", "seed1")
    dana_epoch, _ = first_epoch_at(dana_dir, args.dana_accuracy)
    ssgd_epoch, _ = first_epoch_at(ssgd_dir, args.dana_accuracy)
    hier_epochs = {c: first_epoch_at(os.path.join(HIER_RUNS, c, "seed1"), args.hier_accuracy)[0]
                   for c in HIER_CONFIGS}
    configs = {d: run_config(d, scratch) for d in
               [dana_dir, ssgd_dir] + [os.path.join(HIER_RUNS, c, "seed1") for c in HIER_CONFIGS]}

    # The estimate's error against a full run: the DANA table's dana-slim N = 16 (no cluster),
    # priced on cloud-1gpu-10g with the seconds study's device, against the run made there.
    table_dir = os.path.join(DANA_TABLE_RUNS, "dana-slim_n16", "seed1")
    table_epoch, _ = first_epoch_at(table_dir, args.dana_accuracy)
    _, made_row = first_epoch_at(dana_dir, args.dana_accuracy)
    check_clock = estimate(args.dsgd, run_config(table_dir, scratch),
                           ["cluster=cloud-1gpu-10g", "cluster_device=xeon-avx512bf16-2core",
                            "memory_format=channels-last", "precision=fp32",
                            f"epochs={args.short_epochs}"])
    check_estimate, _ = extrapolated(check_clock, table_epoch)
    check_measured = float(made_row["seconds"])
    check_error = check_estimate / check_measured - 1.0

    plot_rows = []
    dana_lines = ["| device | link | ssgd P = 16 (exact) | dana-slim, 1 server | shards enough "
                  "| dana-slim with them | dana-slim / ssgd | sooner |",
                  "|---|---|---|---|---|---|---|---|"]
    hier_lines = ["| device | link | " + " | ".join(HIER_CONFIGS) + " | fastest |",
                  "|---|---|" + "---|" * (len(HIER_CONFIGS) + 1)]
    for device, memory_format, precision in devices:
        for link in links:
            place = [f"cluster_file={clusters}", f"cluster_device={device}",
                     f"memory_format={memory_format}", f"precision={precision}"]
            flat = place + [f"cluster=wins-1-{link}"]
            ssgd = seconds_at(estimate(args.dsgd, configs[ssgd_dir], flat), ssgd_epoch)
            by_shards = {}
            for shards in (1, 2, 4, 8):
                clock = estimate(args.dsgd, configs[dana_dir],
                                 flat + [f"servers={shards}", f"epochs={args.short_epochs}"])
                by_shards[shards] = extrapolated(clock, dana_epoch)
            fastest = min(mean for _, mean in by_shards.values())
            enough = min(s for s, (_, mean) in by_shards.items() if mean <= fastest * 1.05)
            one, best = by_shards[1][0], by_shards[enough][0]
            ratio = best / ssgd
            dana_lines.append(
                f"| {device} | {LINK_NAMES.get(link, link)} | {clock_text(ssgd)} | "
                f"{clock_text(one)} | {enough} | {clock_text(best)} | {ratio:.2f} | "
                f"{'dana-slim' if ratio < 1 else 'ssgd'} |")
            print(dana_lines[-1], flush=True)

            grouped = place + [f"cluster=wins-4-{link}"]
            times = {}
            for c in HIER_CONFIGS:
                run_dir = os.path.join(HIER_RUNS, c, "seed1")
                times[c] = (seconds_at(estimate(args.dsgd, configs[run_dir], grouped),
                                       hier_epochs[c]) if hier_epochs[c] else None)
            reached = {c: t for c, t in times.items() if t is not None}
            winner = min(reached, key=reached.get)
            hier_lines.append(f"| {device} | {LINK_NAMES.get(link, link)} | "
                              + " | ".join(clock_text(times[c]) for c in HIER_CONFIGS)
                              + f" | {winner} |")
            print(hier_lines[-1], flush=True)
            hier_best = min(t for c, t in reached.items() if c.startswith("hier-avg"))
            plot_rows.append((device, link, ratio, hier_best / times["ssgd_p16"]))

    name = os.path.splitext(os.path.basename(args.out or "where-each-wins.md"))[0]
    command = "scripts/where-each-wins.py" + (f" --out {os.path.relpath(args.out, REPO)}"
                                              if args.out else "")
    lines = [
        "# Where each algorithm wins: devices, links and server shards", "",
        f"Generated by `{command}` from the campaigns' run folders and `dsgd estimate` (the run's "
        "own simulator on its own clock, no gradient computed; docs/time.md). Each device's step "
        "is `dsgd list clusters`' for resnet20-proj at batch 128 (a device marked derived there "
        "prices with a step derived from a measured one); every cluster's hosts are joined by "
        "the link named (`dsgd list clusters` gives its latency and bandwidth). Times are "
        "training time to the accuracy (an estimate runs no evaluation, BatchNorm "
        "re-estimation or checkpoint, so none is priced).", "",
        f"## DANA-Slim against SSGD: time to {args.dana_accuracy}", "",
        "dana-slim N = 16 and ssgd P = 16, 160 epochs at batch 128 a worker "
        f"([the seconds study](dana-seconds-cifar10-resnet20.md), seed 1 each); one device a host. "
        f"SSGD first reaches {args.dana_accuracy} at epoch {ssgd_epoch:g}, priced exactly "
        "(its clock does not depend on the gradients). DANA-Slim's time is an **estimate**: its "
        f"run (on cloud-1gpu-10g with this CPU's step) first reaches it at epoch {dana_epoch:g}, "
        f"priced at the mean epoch of an estimate of its first {args.short_epochs} epochs on each "
        "cluster "
        "(where the link makes its server queue, its staleness and so its epochs differ). "
        "Shards enough: the fewest of 1, 2, 4, 8 server shards within 5 % of the fastest epoch.",
        "",
        f"The estimate's error, measured: the DANA table's dana-slim N = 16 seed 1 (made without "
        f"a cluster, at {args.dana_accuracy} at epoch {table_epoch:g}) priced this way on "
        f"cloud-1gpu-10g with xeon-avx512bf16-2core gives {clock_text(check_estimate)}; the run "
        f"made there reached it after {clock_text(check_measured)}: "
        f"{check_error * 100:+.1f} %.", ""] + dana_lines + [
        "",
        f"## Hier-AVG against K-AVG and SSGD: time to {args.hier_accuracy}", "",
        "P = 16 learners, 80 epochs at batch 128 a learner ([the Hier-AVG study]"
        "(hier-avg-cifar10-resnet20-80ep.md), seed 1 each), four devices a host on PCIe 3.0 (a "
        "Hier-AVG group is a host), every run synchronous and re-timed exactly. Epochs at "
        f"{args.hier_accuracy}: "
        + ", ".join(f"{c} {hier_epochs[c]:g}" if hier_epochs[c] else f"{c} never"
                    for c in HIER_CONFIGS) + ".", ""] + hier_lines + [
        "", f"Figure: [{name}-plots/wins.png]({name}-plots/wins.png), each device's time to the "
        "accuracy over SSGD's on each link (below 1: faster than SSGD), dana-slim with enough "
        "shards and the fastest Hier-AVG.", ""]
    page = "\n".join(lines)
    if args.out:
        write_page(args.out, page)
        write_figure(os.path.join(os.path.dirname(args.out), f"{name}-plots"), plot_rows, links)
    print(page)


def write_figure(folder, rows, links):
    os.makedirs(folder, exist_ok=True)
    devices = list(dict.fromkeys(r[0] for r in rows))
    with open(os.path.join(folder, "wins.dat"), "w") as f:
        for device in devices:
            f.write(f'"{device}"\n# link_index link dana_slim_over_ssgd hier_avg_over_ssgd\n')
            for i, link in enumerate(links):
                for d, l, dana, hier in rows:
                    if d == device and l == link:
                        f.write(f'{i} "{LINK_NAMES.get(link, link)}" {dana:.4f} {hier:.4f}\n')
            f.write("\n\n")
    plots = ", ".join(
        f"'wins.dat' index {i} using 1:3:xtic(2) with linespoints lw 2 title '{d}: dana-slim', "
        f"'' index {i} using 1:4 with linespoints dt 2 lw 2 title '{d}: hier-avg'"
        for i, d in enumerate(devices))
    with open(os.path.join(folder, "wins.gp"), "w") as f:
        f.write("set terminal pngcairo size 900,520\nset output 'wins.png'\n"
                "set ylabel 'time to the accuracy / SSGD''s'\nset xlabel 'link between hosts'\n"
                "set key outside right\nset grid\nset arrow from graph 0, first 1 to graph 1, "
                "first 1 nohead dt 3\n"
                f"set xrange [-0.3:{len(links) - 0.7}]\nplot {plots}\n")
    subprocess.run(["gnuplot", "wins.gp"], cwd=folder, check=True)


if __name__ == "__main__":
    main()
