#!/usr/bin/env bash
# The fault-injection harness: small runs meet each fault at each phase (the test hook DSGD_FAULT,
# src/core/fault_injection.h) and the table says what happened: the exit code, whether every file
# left is whole, and whether continuing (`dsgd run --resume`, or the same command again when
# nothing was written) reproduces the uninterrupted run's metrics (all columns but wall_time).
# Exits 1 when a case hangs, leaves a broken file, or does not reproduce.
#
#   scripts/fault-table.sh                      # every engine x phase x fault (docs/reliability.md)
#   scripts/fault-table.sh --quick              # the simulator's table and a few of the rest (CI)
#   scripts/fault-table.sh --cases "training:SIGKILL@40 async-r2/training:SIGTERM@40"   # some
#   scripts/fault-table.sh --soak 20 7          # 20 random simulator cases drawn with seed 7
#
# DSGD (default build/dsgd) is the executable. A case is [ENGINE/]POINT:FAULT[@N].
# The simulator (no ENGINE): dana-zero, 4 workers, 128 updates; the points and the visit each is
# struck at: setup (the data read, before training), timing@2 (the second step timed to choose
# the compute format), training@40 (the 40th update, after the first checkpoint), evaluation@2,
# checkpoint@2 (between writing the second checkpoint and moving it into place; a write fault
# fails that write), metrics@2 (the second row of metrics.csv).
# evaluation-abandoned@2 is evaluation@2 with the evaluation's 10 s to finish cut to 0 (the run
# then stops at its last checkpoint). report (`dsgd report` of the finished run, at its markdown)
# and figure (its figure, while gnuplot draws it). sweep@20 (a sweep of two 4-epoch runs,
# --jobs 2, at the 20th time it looks at its runs, every 0.1 s: about 2 s in, the runs training).
# MPI (async-rR: dana-zero on 1 server + 3 worker ranks, R = 0 the server, 2 a worker; sync-rR:
# ssgd on 4 learner ranks): DSGD_FAULT_RANK = R keeps the fault to that rank. An asynchronous
# MPI run does not repeat its arrival order, so its resume is checked for what it can be: the rows
# before the stop kept as they were, every evaluation there, the run finished ("complete");
# a synchronous one must be identical.
# Faults: SIGINT, SIGTERM, SIGKILL at every phase; ENOSPC (a full disk) and EROFS (a read-only
# folder: as root, chmod does not stop writes, so both come through the hook) where it writes.

set -uo pipefail
cd "$(dirname "$0")/.."
dsgd=${DSGD:-build/dsgd}
if [ ! -x "$dsgd" ]; then
  echo "fault-table: no $dsgd; run scripts/build.sh first (or set DSGD)" >&2
  exit 2
fi

signals=(SIGINT SIGTERM SIGKILL)
faults=("${signals[@]}" ENOSPC EROFS)
# Write faults strike the points that write: checkpoint, metrics, report.
writes() { [[ $1 == checkpoint* || $1 == metrics* || $1 == report* ]]; }
# Every fault at each of the points after the first argument, as cases with that prefix.
table_of() {
  local prefix=$1 point fault
  shift
  for point in "$@"; do
    for fault in "${faults[@]}"; do
      if [[ $fault == E* ]] && ! writes "$point"; then continue; fi
      echo "$prefix${point%@*}:$fault${point#"${point%@*}"}"
    done
  done
}
sim_points=(setup timing@2 training@40 evaluation@2 evaluation-abandoned@2 checkpoint@2 metrics@2)
cases=()
case "${1:-}" in
  --cases) read -r -a cases <<<"$2" ;;
  --soak)
    RANDOM=$3
    for ((i = 0; i < $2; i++)); do
      point=${sim_points[RANDOM % ${#sim_points[@]}]}
      fault=${faults[RANDOM % ${#faults[@]}]}
      if [[ $fault == E* ]] && ! writes "$point"; then fault=${signals[RANDOM % 3]}; fi
      # The visit: the phase's own, or for training any of the 128 updates.
      if [[ $point == training@* ]]; then point="training@$((1 + RANDOM % 128))"; fi
      cases+=("${point%@*}:$fault${point#"${point%@*}"}")
    done
    ;;
  "" | --quick)
    mapfile -t cases < <(table_of "" "${sim_points[@]}" report figure sweep@20)
    if [ "${1:-}" = --quick ]; then
      cases+=(async-r0/training:SIGTERM@100 async-r2/training:SIGKILL@40
              async-r0/checkpoint:ENOSPC@2 sync-r2/training:SIGINT@40)
    else
      mapfile -t -O ${#cases[@]} cases < <(
        table_of async-r0/ setup training@100 evaluation@2 checkpoint@2 metrics@2
        table_of async-r2/ setup training@40
        table_of sync-r0/ training@40 evaluation@2 checkpoint@2 metrics@2
        table_of sync-r2/ setup training@40
      )
    fi
    ;;
  *)
    echo "usage: scripts/fault-table.sh [--quick | --cases \"[ENGINE/]POINT:FAULT[@N] ...\" |" \
         "--soak N SEED]" >&2
    exit 2
    ;;
esac

# Cases this machine cannot run are left out, saying so: the MPI engine's without it (a build with
# -DDSGD_WITH_MPI=OFF, which CTest passes as DSGD_WITH_MPI=0, or no mpirun), the figure's without
# gnuplot (a GPU machine built by scripts/gpu-check.sh has neither).
left_out() {  # PATTERN WHY
  local kept=() c
  for c in "${cases[@]}"; do [[ $c == $1 ]] || kept+=("$c"); done
  if [ ${#kept[@]} -ne ${#cases[@]} ]; then
    echo "fault-table: $((${#cases[@]} - ${#kept[@]})) case(s) left out: $2" >&2
  fi
  cases=("${kept[@]}")
}
if [ "${DSGD_WITH_MPI:-1}" = 0 ]; then
  left_out "async-*" "this dsgd has no MPI engine"
  left_out "sync-*" "this dsgd has no MPI engine"
elif ! command -v mpirun >/dev/null; then
  left_out "async-*" "no mpirun"
  left_out "sync-*" "no mpirun"
fi
command -v gnuplot >/dev/null || left_out "figure:*" "no gnuplot"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sim_job=("$dsgd" run --set dataset=synthetic --set model=lenet5-bn --set algo=dana-zero
         --set workers=4 --set epochs=1 --set batch_size=32 --set eval_every=0.25 --set threads=1)
# Root is allowed (CI runs as root); cross-memory attach is off (containers often forbid ptrace).
mpirun=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --oversubscribe --bind-to none -n 4)
mpi_job=("${mpirun[@]}" "$dsgd" run --set dataset=synthetic --set model=mlp --set batch_size=16
         --set epochs=1 --set threads=1 --set lr=0.01 --set eval_every=0.25
         --set mpi.hang_timeout=20 --engine mpi)
async_job=("${mpi_job[@]}" --set algo=dana-zero --set workers=3)
sync_job=("${mpi_job[@]}" --set algo=ssgd --set workers=4)
sweep_spec=$work/faults.sweep.toml
printf '%s\n' 'out = "unused"' 'dir = "{config}"' '[set]' 'dataset = "synthetic"' \
  'model = "lenet5-bn"' 'epochs = 4' 'batch_size = 32' 'eval_every = 0.25' 'workers = 4' \
  '[[configs]]' 'name = "dana-zero"' 'algo = "dana-zero"' \
  '[[configs]]' 'name = "asgd"' 'algo = "asgd"' >"$sweep_spec"
sweep_job=("$dsgd" sweep "$sweep_spec" --jobs 2 --threads 1)

# The uninterrupted run of one kind, made the first time a case needs it.
reference() {
  local name=$1
  shift
  [ -d "$work/reference-$name" ] && return 0
  if ! timeout 300 "$@" --out "$work/reference-$name" >"$work/reference-$name.log" 2>&1; then
    echo "fault-table: the reference $name run failed:" >&2
    cat "$work/reference-$name.log" >&2
    exit 1
  fi
}

# What a command's status means, from its exit code and its log: a stop dsgd made itself says
# where ("exit 143, interrupted while decoding ..."), a code above 128 without it is the signal's.
outcome() {
  local rc=$1 log=$2 said
  said=$(grep -o "interrupted by [A-Z0-9]* \(while [a-z ]*[a-z]\( ([-a-z0-9, ]*)\)\?\( at epoch [0-9.]*\)\?\|at epoch [0-9.]*\)\|sweep: stopping" "$log" | head -1)
  if [ "$rc" -eq 124 ]; then echo "hung (timeout)"
  elif [ -n "$said" ]; then echo "exit $rc: $said"
  elif [ "$rc" -gt 128 ]; then echo "killed by signal $((rc - 128))"
  else
    said=$(grep -o "error\( on rank [0-9]*\)\?: [^:]*: [A-Za-z -]*" "$log" | head -1 |
           sed "s#$work/[^ ]*/##")
    if [ -z "$said" ]; then
      # mpirun's word for a rank that a signal ended.
      said=$(grep -o "rank [0-9]* with PID [0-9]* on node [^ ]* exited on signal [0-9]*" "$log" |
             head -1 | sed 's/ with PID [0-9]* on node [^ ]*//')
    fi
    echo "exit $rc${said:+: $said}"
  fi
}

# Whether every file in a run folder is whole: summary.json parses, metrics.csv's rows have the
# header's fields, each checkpoint carries its trailer (--resume checks its CRC, below). Prints
# "whole", "no folder", or what is broken.
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

# metrics.csv against the reference's, without the columns that measure time (wall_time; on MPI
# also sim_time, comm_time and compute_time, which are measured seconds there): "identical" or
# "DIFFERENT". Given the rows the stopped run had written and the update it resumed at, an
# asynchronous MPI run is "complete" when its rows up to that update are those rows and it has as
# many rows as the reference, its last at the same update.
compare_metrics() {
  python3 - "$@" <<'EOF'
import csv, sys
got_path, want_path, engine = sys.argv[1:4]
kept_path, resumed_at = (sys.argv[4], int(sys.argv[5])) if len(sys.argv) > 5 else (None, None)
timed = {"wall_time"} | ({"sim_time", "comm_time", "compute_time"} if engine != "sim" else set())
def rows(p):
    r = list(csv.reader(open(p)))
    if not r:
        return r
    keep = [i for i, name in enumerate(r[0]) if name not in timed]
    return [[row[i] for i in keep] for row in r]
try:
    got, want = rows(got_path), rows(want_path)
except OSError:
    print("DIFFERENT")
    sys.exit(0)
if kept_path is None:
    print("identical" if got == want else "DIFFERENT")
    sys.exit(0)
updates = want[0].index("updates")
kept = [r for i, r in enumerate(rows(kept_path)) if i == 0 or int(float(r[updates])) <= resumed_at]
ok = got[:len(kept)] == kept and len(got) == len(want) and got[-1][updates] == want[-1][updates]
print("complete" if ok else "DIFFERENT")
EOF
}

failures=0
fail() {
  failures=$((failures + 1))
  echo "fault-table: $1: see its log:" >&2
  tail -5 "$2" >&2
}
# Waits for every run still going under $1 (a sweep killed outright leaves its runs going, to
# finish on their own), so that continuing does not meet them.
wait_for_runs() {
  local i cmdline busy
  for ((i = 0; i < 3000; i++)); do
    busy=0
    for cmdline in /proc/[0-9]*/cmdline; do
      # (Without procps's pgrep, which a minimal Debian lacks.)
      if tr '\0' ' ' <"$cmdline" 2>/dev/null | grep -qF -- "$1/"; then busy=1; break; fi
    done
    [ $busy = 0 ] && return 0
    sleep 0.1
  done
}

echo "| engine | phase | fault | run | files | continued with | then | metrics |"
echo "|---|---|---|---|---|---|---|---|"
n=0
for c in "${cases[@]}"; do
  engine=sim
  rank=0
  if [[ $c == */* ]]; then
    engine=${c%%/*}
    rank=${engine#*-r}
    engine=${engine%-r*}
    c=${c#*/}
  fi
  point=${c%%:*}
  fault=${c#*:}
  n=$((n + 1))
  dir="$work/$n-$engine$rank-${c//[:@]/_}"
  case $engine in
    async) shown="MPI async, rank $rank ($([ "$rank" = 0 ] && echo server || echo worker))" ;;
    sync) shown="MPI sync, rank $rank" ;;
    *) shown=simulator ;;
  esac
  extra_env=()
  if [ "$point" = evaluation-abandoned ]; then
    extra_env=(DSGD_EVALUATION_FINISH_SECONDS=0)
    c="evaluation:$fault"
  fi

  if [ "$point" = report ] || [ "$point" = figure ]; then
    reference sim "${sim_job[@]}"
    plots=(--no-plots)
    [ "$point" = figure ] && plots=()
    report=("$dsgd" report "$work/reference-sim" --out "$dir/report.md" "${plots[@]}")
    mkdir -p "$dir"
    { (DSGD_FAULT="$c" exec timeout 120 "${report[@]}" >"$dir.log" 2>&1); } 2>/dev/null
    rc=$?
    if [ "$point" = figure ]; then
      state=$(ls "$dir"/report-plots/*.png >/dev/null 2>&1 && echo "figure written" ||
              echo "no figure, no partial one")
    else
      state=$([ -f "$dir/report.md" ] && echo "report.md written" || echo "no report.md, no partial one")
    fi
    [ -n "$(find "$dir" -name '*.tmp.*')" ] && state="$state; a temporary file left"
    timeout 120 "${report[@]}" >>"$dir.log" 2>&1
    again=$?
    ok=$([ $again -eq 0 ] && [ -f "$dir/report.md" ] && echo written || echo "NOT written")
    [ -n "$(find "$dir" -name '*.tmp.*')" ] && ok="a temporary file left"
    echo "| report | $point | $fault | $(outcome $rc "$dir.log") | $state | the same command | exit $again | $ok |"
    if [ $rc -eq 124 ] || [ "$ok" != written ]; then fail "$c" "$dir.log"; fi
    continue
  fi

  if [ "$point" = sweep ]; then
    reference sweep "${sweep_job[@]}"
    { (DSGD_FAULT="$c" exec timeout 300 "${sweep_job[@]}" --out "$dir" >"$dir.log" 2>&1); } 2>/dev/null
    rc=$?
    wait_for_runs "$dir"
    state=$(for run in dana-zero asgd; do files_state "$dir/$run"; done | sort -u | paste -sd/ -)
    timeout 300 "${sweep_job[@]}" --out "$dir" >>"$dir.log" 2>&1
    again=$?
    metrics=identical
    for run in dana-zero asgd; do
      [ "$(compare_metrics "$dir/$run/metrics.csv" "$work/reference-sweep/$run/metrics.csv" sim)" = identical ] ||
        metrics=DIFFERENT
    done
    echo "| sweep | sweep | $fault | $(outcome $rc "$dir.log") | runs: $state | the same command | exit $again | $metrics |"
    if [ $rc -eq 124 ] || [ "$metrics" != identical ] || [[ $state == *broken* ]]; then
      fail "$c" "$dir.log"
    fi
    continue
  fi

  case $engine in
    sim) job=("${sim_job[@]}"); resume=("$dsgd" run --resume) ;;
    async) job=("${async_job[@]}"); resume=("${mpirun[@]}" "$dsgd" run --resume) ;;
    sync) job=("${sync_job[@]}"); resume=("${mpirun[@]}" "$dsgd" run --resume) ;;
    *) echo "fault-table: unknown engine '$engine' in a case (sim, async-rR, sync-rR)" >&2; exit 2 ;;
  esac
  reference "$engine" "${job[@]}"
  # (The braces keep bash's own "Killed" notice out of the table's output.)
  { (exec env "${extra_env[@]}" DSGD_FAULT="$c" DSGD_FAULT_RANK="$rank" \
     timeout 300 "${job[@]}" --out "$dir" >"$dir.log" 2>&1); } 2>/dev/null
  rc=$?
  state=$(files_state "$dir")
  kept=()
  [ -f "$dir/metrics.csv" ] && cp "$dir/metrics.csv" "$dir.kept.csv"
  if [ -f "$dir/checkpoint.pt" ] || [ -f "$dir/checkpoint.prev.pt" ]; then
    how="--resume"
    timeout 300 "${resume[@]}" "$dir" >"$dir.resume.log" 2>&1
    again=$?
    at=$(grep -o "resuming .* at update [0-9]*" "$dir.resume.log" | grep -o "[0-9]*$" | head -1)
    [ "$engine" = async ] && [ -n "$at" ] && kept=("$dir.kept.csv" "$at")
  else
    how="the same command"
    rm -rf "$dir"  # a folder without a checkpoint holds nothing to continue from
    timeout 300 "${job[@]}" --out "$dir" >"$dir.resume.log" 2>&1
    again=$?
    [ "$engine" = async ] && : >"$dir.kept.csv" && kept=("$dir.kept.csv" 0)
  fi
  cat "$dir.resume.log" >>"$dir.log"
  metrics=DIFFERENT
  if [ $again -eq 0 ]; then
    metrics=$(compare_metrics "$dir/metrics.csv" "$work/reference-$engine/metrics.csv" "$engine" \
              "${kept[@]}")
  fi
  echo "| $shown | $point | $fault | $(outcome $rc "$dir.log") | $state | $how | exit $again | $metrics |"
  if [ $rc -eq 124 ] || [ "$metrics" = DIFFERENT ] || [[ $state == broken* ]]; then
    fail "$c" "$dir.log"
  fi
done
exit $((failures > 0))
