#!/usr/bin/env bash
# Runs a sweep that outlives a working session (a campaign) in the background, at low priority,
# from a folder outside the work tree, and keeps every finished run in git as soon as it ends.
#
#   scripts/campaign.sh docs/results/NAME.sweep.toml [--jobs J]   # start, or continue
#   scripts/campaign.sh docs/results/NAME.sweep.toml --status     # what runs, what is done
#   scripts/campaign.sh docs/results/NAME.sweep.toml --stop       # SIGTERM: runs checkpoint, stop
#
# - The sweep folder is $DSGD_CAMPAIGNS/NAME (default: campaigns/ beside the repository), so a new
#   checkout does not erase it; the sweep runs a copy of build/dsgd of its own (bin/NAME/dsgd
#   there), so neither rebuilding the work tree nor starting another campaign changes a running
#   campaign's code (the copy is refreshed when the campaign starts).
# - It runs under `nice -n 19`: building and testing get the cores first.
# - Starting it again continues it: finished runs are skipped, the others resume from their last
#   checkpoint (`dsgd sweep`). On a replaced machine, finished runs are first restored from git
#   (docs/results/NAME-runs/), so only unfinished runs start over.
# - A watcher copies each finished run's config.toml, metrics.csv and summary.json into
#   docs/results/NAME-runs/<run>/ and commits exactly those files; `dsgd report` on the sweep
#   folder then regenerates docs/results/NAME.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

if [ $# -lt 1 ]; then
  echo "usage: scripts/campaign.sh SPEC.sweep.toml [--jobs J | --status | --stop]" >&2
  exit 2
fi
spec=$1
shift
if [ ! -f "$spec" ]; then
  echo "campaign: no sweep spec '$spec' (give a path relative to the repository root)" >&2
  exit 2
fi
name=$(basename "$spec" .sweep.toml)
root=${DSGD_CAMPAIGNS:-$(dirname "$repo")/campaigns}
out=$root/$name
kept=docs/results/$name-runs
bin=$root/bin/$name
mkdir -p "$out" "$bin"
pidfile=$out/campaign.pid

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  --status)
    if running; then echo "campaign $name: running (pid $(cat "$pidfile"))"; else
      echo "campaign $name: not running"; fi
    for s in "$out"/*/seed*/summary.json; do
      [ -f "$s" ] || continue
      python3 - "$s" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"  {sys.argv[1].split('/')[-3]}: {s.get('status')} epoch {s.get('epochs', '?')} "
      f"final {s.get('final_test_acc', '?')}")
EOF
    done
    [ -f "$out/sweep.log" ] && tail -3 "$out/sweep.log"
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

# Finished runs kept in git come back first, so a replaced machine only reruns unfinished ones.
if [ -d "$kept" ]; then
  for run in "$kept"/*/seed*; do
    [ -f "$run/summary.json" ] || continue
    rel=${run#"$kept"/}
    if [ ! -f "$out/$rel/summary.json" ]; then
      mkdir -p "$out/$rel"
      cp "$run/config.toml" "$run/metrics.csv" "$run/summary.json" "$out/$rel/"
      echo "campaign: restored finished run $rel from $kept"
    fi
  done
fi

cp build/dsgd "$bin/dsgd.new" && mv "$bin/dsgd.new" "$bin/dsgd"

# The sweep and its watcher, as one process group (--stop signals both).
# setsid gives the campaign a scheduling group of its own (Linux autogroups), and `nice` only ranks
# processes within a group: the group itself is niced, from inside it (written from outside, the
# write can land before setsid has run and nice the caller's group instead).
setsid bash -c '
  echo 19 >/proc/self/autogroup 2>/dev/null || true
  repo=$1; spec=$2; out=$3; kept=$4; bin=$5; shift 5
  cd "$repo"
  keep_finished() {
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
  nice -n 19 "$bin" sweep "$spec" --out "$out" "$@" >>"$out/sweep.log" 2>&1 &
  sweep=$!
  while kill -0 "$sweep" 2>/dev/null; do keep_finished; sleep 120; done
  wait "$sweep"; echo "sweep exited $?" >>"$out/sweep.log"
  keep_finished
' campaign "$repo" "$spec" "$out" "$kept" "$bin/dsgd" "$@" >>"$out/campaign.log" 2>&1 &
echo $! >"$pidfile"
echo "campaign $name: started (pid $!), folder $out; scripts/campaign.sh $spec --status"
