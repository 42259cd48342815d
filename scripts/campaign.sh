#!/usr/bin/env bash
# Runs sweeps that outlive a working session (a campaign) in the background, at low priority, from
# a folder outside the work tree, and keeps every finished run in git as soon as it ends.
#
#   scripts/campaign.sh docs/results/NAME.sweep.toml [--jobs J]   # one sweep: start, or continue
#   scripts/campaign.sh docs/results/QUEUE.txt                     # a queue of runs of several sweeps
#   scripts/campaign.sh SPEC-OR-QUEUE --status                     # what runs, what is done, its hours
#   scripts/campaign.sh SPEC-OR-QUEUE --stop                       # SIGTERM: runs checkpoint, stop
#
# - A queue file lists runs, one a line, `SPEC POINT` (POINT the run's folder in that sweep, as
#   `dsgd sweep SPEC --dry-run` names it; `#` starts a comment), run one at a time in that order:
#   so two studies can share the machine's cores run by run instead of slowing each other down.
# - Each sweep's folder is $DSGD_CAMPAIGNS/NAME (default: campaigns/ beside the repository), so a
#   new checkout does not erase it; the runs use a copy of build/dsgd of their own (bin/NAME/dsgd
#   there), so neither rebuilding the work tree nor starting another campaign changes a running
#   campaign's code (the copy is refreshed when the campaign starts, and before a queue entry
#   whose spec, edited since, only the current build/dsgd reads: sweep.log says so).
# - It runs under `nice -n 19`: building and testing get the cores first.
# - Starting it again continues it: finished runs are skipped, the others resume from their last
#   checkpoint (`dsgd sweep`). On a replaced machine, finished runs are first restored from git
#   (docs/results/NAME-runs/), so only unfinished runs start over.
# - A watcher copies each finished run's config.toml, metrics.csv and summary.json into
#   docs/results/NAME-runs/<run>/ and commits exactly those files; `dsgd report` on the sweep
#   folder then regenerates docs/results/NAME.md.
# tests/campaign_queue.sh (CTest: campaign.queue) runs a two-entry queue in a scratch clone.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

if [ $# -lt 1 ]; then
  echo "usage: scripts/campaign.sh SPEC.sweep.toml|QUEUE.txt [--jobs J | --status | --stop]" >&2
  exit 2
fi
source_file=$1
shift
if [ ! -f "$source_file" ]; then
  echo "campaign: no sweep spec or queue '$source_file' (give a path relative to the repository root)" >&2
  exit 2
fi
root=${DSGD_CAMPAIGNS:-$(dirname "$repo")/campaigns}

# The queue as lines "SPEC POINT" (POINT "*" for every point of SPEC).
queue=$(mktemp)
trap 'rm -f "$queue"' EXIT
case "$source_file" in
  *.sweep.toml) echo "$source_file *" >"$queue" ;;
  *)
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$source_file" >"$queue"
    while read -r spec point rest; do
      if [ ! -f "$spec" ] || [ -z "$point" ] || [ -n "$rest" ]; then
        echo "campaign: '$source_file': each line must be 'SPEC POINT' with an existing spec; got" \
          "'$spec $point $rest'" >&2
        exit 2
      fi
    done <"$queue"
    ;;
esac
name=$(basename "$source_file" .sweep.toml)
name=${name%.txt}
mkdir -p "$root"
pidfile=$root/$name.pid
[ -f "$root/$name/campaign.pid" ] && [ ! -f "$pidfile" ] && mv "$root/$name/campaign.pid" "$pidfile"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  --status)
    if running; then echo "campaign $name: running (pid $(cat "$pidfile"))"; else
      echo "campaign $name: not running"; fi
    walls=$(mktemp)
    while read -r spec point; do
      out=$root/$(basename "$spec" .sweep.toml)
      pattern="$out/*/seed*/summary.json"
      [ "$point" = "*" ] || pattern="$out/$point/summary.json"
      for s in $pattern; do
        [ -f "$s" ] || { echo "  $(basename "$out")/$point: not started"; continue; }
        python3 - "$s" "$(basename "$out")" "$walls" <<'EOF'
import csv, json, os, sys, tomllib
s = json.load(open(sys.argv[1]))
wall = float(s.get("wall_time") or 0.0)
with open(sys.argv[3], "a") as walls:
    walls.write(f"{wall}\n")
folder = os.path.dirname(sys.argv[1])
run = "/".join(sys.argv[1].split("/")[-3:-1])
epochs = s.get("epochs")
pace = ""
if s.get("status") in ("running", "interrupted"):
    # The pace of its last five evaluations (wall time counts only while it ran) and what is left.
    try:
        rows = list(csv.DictReader(open(os.path.join(folder, "metrics.csv"))))[-6:]
        total = tomllib.load(open(os.path.join(folder, "config.toml"), "rb"))["epochs"]
        spent = float(rows[-1]["wall_time"]) - float(rows[0]["wall_time"])
        per_epoch = spent / (float(rows[-1]["epoch"]) - float(rows[0]["epoch"]))
        left = per_epoch * (total - float(rows[-1]["epoch"]))
        pace = (f" of {total:g}, {per_epoch:.0f} s an epoch lately: "
                f"{int(left // 3600)}:{int(left % 3600 // 60):02d} to go")
    except (OSError, KeyError, ValueError, IndexError, ZeroDivisionError):
        pass
    # How the piece now going computes (a resume on another machine times it again).
    compute = s.get("compute") or {}
    if compute.get("precision"):
        pace += (f" ({compute.get('memory_format')} {compute.get('precision')}, "
                 f"{float(compute.get('step_seconds') or 0):.3f} s a step)")
# The run's main metric (summary.json's "metric"; runs from before tasks report accuracy).
metric = s.get("metric", "test_acc")
final = s.get("final_" + metric)
shown = f"final {metric} {final:.4g}" if isinstance(final, float) else f"final {final}"
print(f"  {sys.argv[2]}/{run}: {s.get('status')} epoch "
      f"{epochs if epochs is None else round(epochs, 2)}{pace} {shown}, "
      f"wall {int(wall // 3600)}:{int(wall % 3600 // 60):02d}")
EOF
      done
    done <"$queue"
    # The machine time these runs took (each run's wall time, finished or so far), for the notes.
    awk '{ s += $1 } END { printf "  wall time of these runs: %.1f h\n", s / 3600 }' "$walls"
    rm -f "$walls"
    [ -f "$root/$name.log" ] && tail -3 "$root/$name.log"
    exit 0
    ;;
  --stop)
    if running; then kill -TERM -- "-$(cat "$pidfile")" 2>/dev/null || kill -TERM "$(cat "$pidfile")"; fi
    exit 0
    ;;
esac

if running; then
  echo "campaign $name: already running (pid $(cat "$pidfile")); --status shows it"
  exit 0
fi
if [ ! -x build/dsgd ]; then
  echo "campaign: build/dsgd is missing; run scripts/build.sh first" >&2
  exit 2
fi

# Per sweep: finished runs kept in git come back first, so a replaced machine only reruns
# unfinished ones; then the pinned copy of the binary.
for spec in $(cut -d' ' -f1 "$queue" | sort -u); do
  sweep=$(basename "$spec" .sweep.toml)
  out=$root/$sweep
  kept=docs/results/$sweep-runs
  mkdir -p "$out" "$root/bin/$sweep"
  if [ -d "$kept" ]; then
    for run in "$kept"/*/seed*; do
      [ -f "$run/summary.json" ] || continue
      rel=${run#"$kept"/}
      if [ ! -f "$out/$rel/summary.json" ]; then
        mkdir -p "$out/$rel"
        cp "$run/config.toml" "$run/metrics.csv" "$run/summary.json" "$out/$rel/"
        echo "campaign: restored finished run $sweep/$rel from $kept"
      fi
    done
  fi
  cp build/dsgd "$root/bin/$sweep/dsgd.new" && mv "$root/bin/$sweep/dsgd.new" "$root/bin/$sweep/dsgd"
done
cp "$queue" "$root/$name.queue"

# The runs and their watcher, as one process group (--stop signals both).
# setsid gives the campaign a scheduling group of its own (Linux autogroups), and `nice` only ranks
# processes within a group: the group itself is niced, from inside it (written from outside, the
# write can land before setsid has run and nice the caller's group instead).
setsid bash -c '
  echo 19 >/proc/self/autogroup 2>/dev/null || true
  repo=$1; root=$2; queue=$3; shift 3
  cd "$repo"
  keep_finished() {  # SWEEP-FOLDER KEPT-FOLDER
    local out=$1 kept=$2
    for s in "$out"/*/seed*/summary.json; do
      [ -f "$s" ] || continue
      grep -q "\"status\": *\"\(ok\|diverged\|collapsed\)\"" "$s" || continue
      run=$(dirname "$s"); rel=${run#"$out"/}
      cmp -s "$s" "$kept/$rel/summary.json" && continue
      mkdir -p "$kept/$rel"
      cp "$run/config.toml" "$run/metrics.csv" "$run/summary.json" "$kept/$rel/"
      for attempt in 1 2 3 4 5 6; do
        git add -- "$kept/$rel" &&
          git commit -q --only -m "Campaign $(basename "$out"): $rel finished" -- "$kept/$rel" &&
          break
        sleep 10
      done
    done
  }
  while read -r spec point <&3; do
    sweep=$(basename "$spec" .sweep.toml)
    out=$root/$sweep
    kept=docs/results/$sweep-runs
    only=()
    [ "$point" = "*" ] || only=(--only "$point")
    echo "$(date -u +%FT%TZ) $sweep ${point}: start" >>"$out/sweep.log"
    # Each entry reads its spec from the work tree: a spec edited since the campaign started may
    # use what only a newer build reads, and the pinned copy would refuse every later entry of it.
    # Then, and only then, the entry takes the current build (between runs: none is running).
    if ! "$root/bin/$sweep/dsgd" sweep "$spec" --out "$out" "${only[@]}" --dry-run >/dev/null 2>&1 &&
      build/dsgd sweep "$spec" --out "$out" "${only[@]}" --dry-run >/dev/null 2>&1; then
      cp build/dsgd "$root/bin/$sweep/dsgd.new" && mv "$root/bin/$sweep/dsgd.new" "$root/bin/$sweep/dsgd"
      echo "$(date -u +%FT%TZ) $sweep: $spec needs a newer dsgd than the one pinned at the start: took build/dsgd" >>"$out/sweep.log"
    fi
    nice -n 19 "$root/bin/$sweep/dsgd" sweep "$spec" --out "$out" "${only[@]}" "$@" \
      >>"$out/sweep.log" 2>&1 &
    pid=$!
    # Finished runs are committed every two minutes; a line whose run is already done (its sweep
    # exits at once) costs a second, not the whole wait.
    while kill -0 "$pid" 2>/dev/null; do
      keep_finished "$out" "$kept"
      for _ in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    done
    status=0
    wait "$pid" || status=$?
    echo "$(date -u +%FT%TZ) $sweep ${point}: sweep exited $status" >>"$out/sweep.log"
    keep_finished "$out" "$kept"
    # Interrupted (--stop, a signal): the queue stops too; a failed run does not stop the rest.
    [ "$status" -ge 128 ] && exit "$status"
  done 3<"$queue"
  echo "$(date -u +%FT%TZ) queue done"
' campaign "$repo" "$root" "$root/$name.queue" "$@" >>"$root/$name.log" 2>&1 &
echo $! >"$pidfile"
echo "campaign $name: started (pid $!), folder $root; scripts/campaign.sh $source_file --status"
