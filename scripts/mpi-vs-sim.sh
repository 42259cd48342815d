#!/usr/bin/env bash
# The MPI engine's measured time against the simulator's prediction for the same configuration on
# the cluster "this-machine" (configs/clusters.toml: one host, MPI over shared memory, the ranks
# sharing its cores): per epoch, for ssgd, hier-avg and dana-slim with one server and with two
# shards, with no more ranks than cores and oversubscribed. Prints the markdown table of
# docs/performance.md ("MPI engine against the simulator's prediction").
#
#   scripts/mpi-vs-sim.sh [EPOCHS [PATTERN]]   # default 4 epochs, every configuration whose name
#                                              # matches PATTERN (grep -E); ResNet-20 on the
#                                              # synthetic set (4096 images)
#
# Measured: the MPI run's sim_time, the seconds its ranks measured (sync: rank 0's compute and
# all-reduces; async: the server's clock), and its wall_time (with evaluations and checkpoints).
# Predicted: the simulator's `seconds` with cluster = "this-machine", and its `predicted_wall`
# (those seconds plus its own evaluations and checkpoints priced at a rank's share of the cores:
# timing.overhead_scale). Each per epoch, from the first evaluation (after epoch 1, which warms
# up) to the last. Run it with nothing else busy.
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=${1:-4}
pattern=${2:-.}
dsgd=$(pwd)/build/dsgd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common="--set dataset=synthetic --set model=resnet20 --set epochs=$epochs --set eval_every=1"
mpirun_cmd="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && mpirun_cmd="$mpirun_cmd --allow-run-as-root"

# name | ranks | keys
configs=(
  "ssgd P=2|2|--set algo=ssgd --set workers=2"
  "ssgd P=4|4|--set algo=ssgd --set workers=4"
  "hier-avg P=4 S=2 K1=2 K2=8|4|--set algo=hier-avg --set workers=4 --set hier.group_size=2 --set hier.local_period=2 --set hier.global_period=8"
  "dana-slim N=1, 1 server|2|--set algo=dana-slim --set workers=1"
  "dana-slim N=3, 1 server|4|--set algo=dana-slim --set workers=3"
  "dana-slim N=2, 2 shards|4|--set algo=dana-slim --set workers=2 --set servers=2"
)

per_epoch() {  # FILE COLUMN: the column's growth per epoch from the first row to the last
  python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
first, last = rows[0], rows[-1]
print((float(last[sys.argv[2]]) - float(first[sys.argv[2]])) /
      (float(last["epoch"]) - float(first["epoch"])))
PY
}

cores=$(nproc)
echo "| configuration | ranks on $cores cores | predicted s/epoch | measured s/epoch (clock) | predicted / measured | predicted wall s/epoch | wall s/epoch | predicted / measured wall |"
echo "|---|---|---|---|---|---|---|---|"
for entry in "${configs[@]}"; do
  IFS='|' read -r name ranks keys <<<"$entry"
  grep -qE -- "$pattern" <<<"$name" || continue
  # shellcheck disable=SC2086
  $mpirun_cmd -n "$ranks" "$dsgd" run --engine mpi $common $keys --out "$work/mpi" \
    >"$work/mpi.log" 2>&1 || { cat "$work/mpi.log" >&2; exit 1; }
  # shellcheck disable=SC2086
  "$dsgd" run $common $keys --set cluster=this-machine --out "$work/sim" >"$work/sim.log" 2>&1 ||
    { cat "$work/sim.log" >&2; exit 1; }
  measured=$(per_epoch "$work/mpi/metrics.csv" sim_time)
  wall=$(per_epoch "$work/mpi/metrics.csv" wall_time)
  predicted=$(per_epoch "$work/sim/metrics.csv" seconds)
  predicted_wall=$(per_epoch "$work/sim/metrics.csv" predicted_wall)
  python3 -c "print('| $name | $ranks | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |' % ($predicted, $measured, $predicted / $measured, $predicted_wall, $wall, $predicted_wall / $wall))"
  rm -rf "$work/mpi" "$work/sim"
done
