#!/usr/bin/env python3
"""The all-reduces dsgd prices, priced again by SimGrid's SMPI on platforms made from the same
table, so that the closed formulas of train/collective_cost.h can be held against a flow-level
network simulator (and, on this machine, both against Open MPI's measured all-reduce).

For each named cluster of configs/clusters.toml and each shape the campaigns price (16 learners
in one all-reduce; Hier-AVG's groups of 4 and of 8, every group at once) and message size, it
writes a SimGrid platform (one host per worker, `workers_per_host` of them behind one uplink on the
`inter` link, the `intra` link between two of one host; a route's latency end to end is its
link's) and runs
bench/simgrid/allreduce_groups.c under smpirun on SimGrid's plain max-min flow model (CM02: no
calibration factors, so the links are the table's, and flows that share a link share its
bandwidth), once for each algorithm dsgd can price, SMPI's implementation of it beside dsgd's
own price (`dsgd list clusters --allreduce`, train/collective_cost.h's closed formulas):

  ring              SMPI's "lr" (reduce-scatter, then all-gather, around a logical ring);
  tree              SMPI's "redbcast" with binomial-tree reduce and broadcast;
  halving-doubling  SMPI's "rab_rdb" (Rabenseifner: recursive halving, then doubling);

and once with the algorithm Open MPI's decision rules pick (SMPI's "ompi"), against the ring's
formula, what dsgd prices by default. SMPI leaves out the reduction's arithmetic; the formula
counts it where the link has a reduce_bandwidth.
Needs Debian's libsimgrid-dev (smpicc, smpirun); a few minutes on two cores.

  scripts/simgrid-allreduce.py [--clusters NAME,...] [--shapes 16,16/4] [--sizes BYTES,...]
                               [--out table.md] [--check LOW,HIGH] [--cluster-file my.toml]

--check fails (exit 1) when SMPI's time over dsgd's price leaves [LOW, HIGH] for any algorithm dsgd
prices: the CTest test simgrid.allreduce runs it on two clusters at ResNet-20's size.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [16384, 1078888, 67108864]  # bytes: a small vector, ResNet-20, a big model
ALGORITHMS = [  # (dsgd's name, SMPI's options)
    ("ring", ["--cfg=smpi/allreduce:lr"]),
    ("tree", ["--cfg=smpi/allreduce:redbcast", "--cfg=smpi/reduce:binomial",
              "--cfg=smpi/bcast:binomial_tree"]),
    ("halving-doubling", ["--cfg=smpi/allreduce:rab_rdb"]),
]
OPEN_MPI = ["--cfg=smpi/allreduce:ompi"]


def formula_seconds(dsgd, workers, group, nbytes, cluster_file):
    """dsgd's own prices (`dsgd list clusters --allreduce`): {cluster: {algorithm: seconds}}."""
    shape = f"{workers}/{group}" if group else str(workers)
    extra = ["--cluster-file", cluster_file] if cluster_file else []
    out = subprocess.run([dsgd, "list", "clusters", "--allreduce", shape, "--bytes", str(nbytes),
                          *extra], check=True, capture_output=True, text=True).stdout.splitlines()
    names = out[1].split()[1:]
    return {line.split()[0]: {name: float(cell.rstrip("*")) for name, cell in
                              zip(names, line.split()[1:])} for line in out[2:]}


def link_xml(name, link):
    # Half the latency on each of a route's two private links: end to end, the link's latency.
    return (f'<link id="{name}" bandwidth="{link["bandwidth"]}Bps" latency="{link["latency"] / 2}s" '
            f'sharing_policy="SPLITDUPLEX"/>')


def platform_xml(table, cluster, members):
    """One host per worker; hosts of `workers_per_host` workers, joined to each other by the intra
    link, behind a router whose uplink is the inter link, a non-blocking switch between the
    uplinks. A host of one worker is that worker on the inter link."""
    intra, inter = table["links"][cluster["intra"]], table["links"][cluster["inter"]]
    per_host = cluster["workers_per_host"]
    hosts = math.ceil(members / per_host)
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">', '<zone id="world" routing="Full">']
    names = [f"w{i}" for i in range(members)]
    if per_host == 1 or hosts == 1:
        link = inter if per_host == 1 else intra
        for name in names:
            lines.append(f'  <host id="{name}" speed="1Gf"/>')
            lines.append("  " + link_xml(f"{name}-link", link))
        for a in names:
            for b in names:
                if a != b:
                    lines.append(f'  <route src="{a}" dst="{b}" symmetrical="NO">'
                                 f'<link_ctn id="{a}-link" direction="UP"/>'
                                 f'<link_ctn id="{b}-link" direction="DOWN"/></route>')
    else:
        for h in range(hosts):
            lines.append(f'  <zone id="h{h}" routing="Full">')
            lines.append(f'    <router id="h{h}-router"/>')
            for name in names[h * per_host:(h + 1) * per_host]:
                lines.append(f'    <host id="{name}" speed="1Gf"/>')
                lines.append("    " + link_xml(f"{name}-link", intra))
            members_here = names[h * per_host:(h + 1) * per_host]
            # To the router (the host's network adapter) through no modelled link: between hosts a
            # route crosses the inter link alone, as dsgd prices it.
            lines.append(f'    <link id="h{h}-bus" bandwidth="1e15Bps" latency="0s"/>')
            for a in members_here + [f"h{h}-router"]:
                for b in members_here + [f"h{h}-router"]:
                    if a == b:
                        continue
                    if a.endswith("router") or b.endswith("router"):
                        hops = [f'<link_ctn id="h{h}-bus"/>']
                    else:
                        hops = [f'<link_ctn id="{a}-link" direction="UP"/>',
                                f'<link_ctn id="{b}-link" direction="DOWN"/>']
                    lines.append(f'    <route src="{a}" dst="{b}" symmetrical="NO">{"".join(hops)}</route>')
            lines.append("  </zone>")
        for h in range(hosts):
            lines.append("  " + link_xml(f"h{h}-uplink", inter))
        for a in range(hosts):
            for b in range(hosts):
                if a != b:
                    lines.append(f'  <zoneRoute src="h{a}" dst="h{b}" gw_src="h{a}-router" '
                                 f'gw_dst="h{b}-router" symmetrical="NO">'
                                 f'<link_ctn id="h{a}-uplink" direction="UP"/>'
                                 f'<link_ctn id="h{b}-uplink" direction="DOWN"/></zoneRoute>')
    lines += ["</zone>", "</platform>"]
    return "\n".join(lines) + "\n", names


def smpi_seconds(program, workdir, table, cluster, members, group, nbytes, options):
    xml, names = platform_xml(table, cluster, members)
    platform = os.path.join(workdir, "platform.xml")
    hostfile = os.path.join(workdir, "hosts")
    with open(platform, "w") as f:
        f.write(xml)
    with open(hostfile, "w") as f:
        f.write("\n".join(names) + "\n")
    command = ["smpirun", "-np", str(members), "-platform", platform, "-hostfile", hostfile,
               "--cfg=network/model:CM02", *options, "--log=root.thres:critical", program,
               str(group), str(nbytes)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clusters", default="cloud-1gpu-10g,nvlink8-10g,nvlink8-hdr,flat-25g",
                        help="comma-separated cluster names of configs/clusters.toml")
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument("--dsgd", default=os.path.join(ROOT, "build", "dsgd"),
                        help="the dsgd whose prices to check (default: build/dsgd)")
    parser.add_argument("--check", help="LOW,HIGH: fail when a ratio leaves this range")
    parser.add_argument("--cluster-file", help="a table of one's own beside configs/clusters.toml "
                        "(its names win), as dsgd's cluster_file")
    for tool in ("smpicc", "smpirun"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            sys.exit(f"simgrid-allreduce: {tool} not found; install Debian's libsimgrid-dev")
    with open(os.path.join(ROOT, "configs", "clusters.toml"), "rb") as f:
        table = tomllib.load(f)
    parser.add_argument("--shapes", default="16,16/4,16/8",
                        help="MEMBERS or MEMBERS/GROUP, comma-separated")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES),
                        help="bytes per all-reduce, comma-separated")
    args = parser.parse_args()
    if args.cluster_file:
        with open(args.cluster_file, "rb") as f:
            own = tomllib.load(f)
        for kind in ("links", "devices", "clusters"):
            table.setdefault(kind, {}).update(own.get(kind, {}))
    shapes = [tuple(int(x) for x in (s.split("/") + ["0"])[:2]) for s in args.shapes.split(",")]
    bounds = [float(x) for x in args.check.split(",")] if args.check else None
    outside = []
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = ["| cluster | all-reduce | bytes | " +
            " | ".join(f"{name}: formula, SMPI / formula" for name, _ in ALGORITHMS) +
            " | Open MPI's choice: SMPI / ring formula |",
            "|---|---|---|" + "---|" * (len(ALGORITHMS) + 1)]
    with tempfile.TemporaryDirectory() as workdir:
        program = os.path.join(workdir, "allreduce_groups")
        subprocess.run(["smpicc", "-O2", os.path.join(ROOT, "bench", "simgrid", "allreduce_groups.c"),
                        "-o", program], check=True, capture_output=True)
        for name in args.clusters.split(","):
            if name not in table["clusters"]:
                sys.exit(f"simgrid-allreduce: unknown cluster '{name}' "
                         f"(configs/clusters.toml has {', '.join(table['clusters'])})")
            cluster = table["clusters"][name]
            for members, group in shapes:
                shape = f"{members} learners" if not group else f"groups of {group} of {members}"
                for nbytes in sizes:
                    priced = formula_seconds(args.dsgd, members, group, nbytes,
                                             args.cluster_file)[name]
                    run = lambda options: smpi_seconds(program, workdir, table, cluster, members,
                                                       group, nbytes, options)
                    cells = []
                    for algorithm, options in ALGORITHMS:
                        ratio = run(options) / priced[algorithm]
                        cells.append(f"{priced[algorithm]:.3g} s, {ratio:.2f}")
                        if bounds and not bounds[0] <= ratio <= bounds[1]:
                            outside.append(f"{name}, {shape}, {nbytes:,} bytes, {algorithm}: "
                                           f"SMPI / dsgd's price {ratio:.2f}")
                    cells.append(f"{run(OPEN_MPI) / priced['ring']:.2f}")
                    row = f"| {name} | {shape} | {nbytes:,} | " + " | ".join(cells) + " |"
                    print(row, flush=True)
                    rows.append(row)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n")
    if outside:
        sys.exit("simgrid-allreduce: outside [{}, {}]:\n  ".format(*bounds) + "\n  ".join(outside))


if __name__ == "__main__":
    main()
