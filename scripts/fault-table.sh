#!/usr/bin/env bash
# The fault-injection harness: a small simulated run meets each fault at each phase (the test hook
# DSGD_FAULT, src/core/fault_injection.h) and the table says what happened: the exit code, whether
# every file left is whole, and whether continuing (`dsgd run --resume`, or the same command again
# when nothing was written) reproduces the uninterrupted run's metrics (all columns but
# wall_time). Exits 1 when a case hangs, leaves a broken file, or does not reproduce.
#
#   scripts/fault-table.sh                      # every phase x fault (docs/reliability.md's table)
#   scripts/fault-table.sh --cases "training:SIGKILL@40 checkpoint:ENOSPC@2"   # some (CI)
#   scripts/fault-table.sh --soak 20 7          # 20 random cases drawn with seed 7
#
# DSGD (default build/dsgd) is the executable. Phases and the visit each is struck at: setup (the
# data read, before training), training@40 (the 40th of 128 updates, after the first checkpoint),
# evaluation@2, checkpoint@2 (between writing the second checkpoint and moving it into place; a
# write fault fails that write), metrics@2 (the second row of metrics.csv), report (`dsgd report`
# of the finished reference run, at its markdown file). Faults:
# SIGINT, SIGTERM, SIGKILL at every phase; ENOSPC (a full disk) and EROFS (a read-only folder: as
# root, chmod does not stop writes, so both come through the hook) at the phases that write.
set -uo pipefail
cd "$(dirname "$0")/.."
dsgd=${DSGD:-build/dsgd}
if [ ! -x "$dsgd" ]; then
  echo "fault-table: no $dsgd; run scripts/build.sh first (or set DSGD)" >&2
  exit 2
fi

points=(setup training@40 evaluation@2 checkpoint@2 metrics@2 report)
signals=(SIGINT SIGTERM SIGKILL)
faults=("${signals[@]}" ENOSPC EROFS)
# Write faults strike the points that write: checkpoint, metrics, report.
writes() { [[ $1 == checkpoint* || $1 == metrics* || $1 == report* ]]; }
cases=()
case "${1:-}" in
  --cases) read -r -a cases <<<"$2" ;;
  --soak)
    RANDOM=$3
    for ((i = 0; i < $2; i++)); do
      point=${points[RANDOM % ${#points[@]}]}
      fault=${faults[RANDOM % ${#faults[@]}]}
      if [[ $fault == E* ]] && ! writes "$point"; then fault=${signals[RANDOM % 3]}; fi
      # The visit: the phase's own, or for training any of the 128 updates.
      if [[ $point == training@* ]]; then point="training@$((1 + RANDOM % 128))"; fi
      cases+=("${point%@*}:$fault${point#"${point%@*}"}")
    done
    ;;
  "")
    for point in "${points[@]}"; do
      for fault in "${faults[@]}"; do
        if [[ $fault == E* ]] && ! writes "$point"; then continue; fi
        cases+=("${point%@*}:$fault${point#"${point%@*}"}")
      done
    done
    ;;
  *) echo "usage: scripts/fault-table.sh [--cases \"POINT:FAULT[@N] ...\" | --soak N SEED]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(run --set dataset=synthetic --set model=lenet5-bn --set algo=dana-zero --set workers=4
     --set epochs=1 --set batch_size=32 --set eval_every=0.25 --set threads=1)
if ! timeout 300 "$dsgd" "${job[@]}" --out "$work/reference" >"$work/reference.log" 2>&1; then
  echo "fault-table: the reference run failed:" >&2
  cat "$work/reference.log" >&2
  exit 1
fi

# What a command's status means, from its exit code and its log: a stop dsgd made itself says
# where ("exit 143, interrupted while decoding ..."), a code above 128 without it is the signal's.
outcome() {
  local rc=$1 log=$2 said
  said=$(grep -o "interrupted by [A-Z0-9]* \(while [a-z ]*\|at epoch [0-9.]*\)" "$log" | head -1)
  if [ "$rc" -eq 124 ]; then echo "hung (timeout)"
  elif [ -n "$said" ]; then echo "exit $rc: $said"
  elif [ "$rc" -gt 128 ]; then echo "killed by signal $((rc - 128))"
  else
    said=$(grep -o "error: [^:]*: [A-Za-z -]*" "$log" | head -1 | sed "s#$work/[^/]*/##")
    echo "exit $rc${said:+: $said}"
  fi
}

# Whether every file in a run folder is whole: summary.json parses, metrics.csv's rows have the
# header's fields, a checkpoint verifies (its CRC, by a resume of 0 more updates is not needed:
# --resume checks it, below). Prints "whole", "no folder", or what is broken.
files_state() {
  local dir=$1
  [ -d "$dir" ] || { echo "no folder"; return; }
  python3 - "$dir" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
broken = []
if os.path.exists(os.path.join(d, "summary.json")):
    try:
        json.load(open(os.path.join(d, "summary.json")))
    except ValueError:
        broken.append("summary.json")
if os.path.exists(os.path.join(d, "metrics.csv")):
    rows = list(csv.reader(open(os.path.join(d, "metrics.csv"))))
    if any(len(r) != len(rows[0]) for r in rows):
        broken.append("metrics.csv")
for name in ("checkpoint.pt", "checkpoint.prev.pt"):
    p = os.path.join(d, name)
    if os.path.exists(p) and open(p, "rb").read()[-20:-12] != b"DSGDCKPT":
        broken.append(name)
print("whole" if not broken else "broken: " + ", ".join(broken))
EOF
}

# metrics.csv without wall_time, identical to the reference's?
same_metrics() {
  python3 - "$1" "$work/reference/metrics.csv" <<'EOF'
import csv, sys
def rows(p):
    r = list(csv.reader(open(p)))
    keep = [i for i, name in enumerate(r[0]) if name != "wall_time"]
    return [[row[i] for i in keep] for row in r]
sys.exit(0 if rows(sys.argv[1]) == rows(sys.argv[2]) else 1)
EOF
}

failures=0
echo "| phase | fault | run | files | continued with | then | metrics |"
echo "|---|---|---|---|---|---|---|"
n=0
for c in "${cases[@]}"; do
  point=${c%%:*}
  fault=${c#*:}
  n=$((n + 1))
  dir="$work/$n-${c//[:@]/_}"
  if [ "$point" = report ]; then
    mkdir -p "$dir"
    { (DSGD_FAULT="$c" exec timeout 120 "$dsgd" report "$work/reference" --out "$dir/report.md" \
      --no-plots >"$dir.log" 2>&1); } 2>/dev/null
    rc=$?
    state=$([ -f "$dir/report.md" ] && echo "report.md written" || echo "no report.md, no partial one")
    [ -n "$(find "$dir" -name '*.tmp.*' 2>/dev/null)" ] && state="a temporary file left"
    timeout 120 "$dsgd" report "$work/reference" --out "$dir/report.md" --no-plots >>"$dir.log" 2>&1
    again=$?
    ok=$([ $again -eq 0 ] && [ -f "$dir/report.md" ] && echo "written" || echo "NOT written")
    echo "| report | $fault | $(outcome $rc "$dir.log") | $state | the same command | exit $again | $ok |"
    [ $rc -eq 124 ] || [ "$ok" != written ] && failures=$((failures + 1))
    continue
  fi
  # (The braces keep bash's own "Killed" notice out of the table's output.)
  { (DSGD_FAULT="$c" exec timeout 300 "$dsgd" "${job[@]}" --out "$dir" >"$dir.log" 2>&1); } 2>/dev/null
  rc=$?
  state=$(files_state "$dir")
  if [ -f "$dir/checkpoint.pt" ] || [ -f "$dir/checkpoint.prev.pt" ]; then
    how="--resume"
    timeout 300 "$dsgd" run --resume "$dir" >>"$dir.log" 2>&1
  else
    how="the same command"
    rm -rf "$dir"  # a folder without a checkpoint holds nothing to continue from
    timeout 300 "$dsgd" "${job[@]}" --out "$dir" >>"$dir.log" 2>&1
  fi
  again=$?
  if [ $again -eq 0 ] && same_metrics "$dir/metrics.csv"; then metrics=identical; else metrics=DIFFERENT; fi
  echo "| $point | $fault | $(outcome $rc "$dir.log") | $state | $how | exit $again | $metrics |"
  if [ $rc -eq 124 ] || [ "$metrics" != identical ] || [[ $state == broken* ]]; then
    failures=$((failures + 1))
    echo "fault-table: $c: see its log:" >&2
    tail -5 "$dir.log" >&2
  fi
done
exit $((failures > 0))
