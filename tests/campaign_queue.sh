#!/usr/bin/env bash
# scripts/campaign.sh on a two-entry queue of tiny synthetic runs, in a scratch clone of this
# repository (the campaign commits finished runs to the repository it runs in): both runs finish,
# the watcher commits each run's files, --status lists them, and an entry whose spec was edited,
# while the campaign ran, into syntax the pinned binary refuses takes the current build instead of
# failing. The pinned binary stands for an older build: it is a build/dsgd that refuses any spec
# with a [report.published.unverified] table and runs everything else; while the first entry runs,
# the spec gains such a table and the real binary takes build/dsgd's place.
# Usage: DSGD=path/to/dsgd tests/campaign_queue.sh
set -euo pipefail
source_tree=$(cd "$(dirname "$0")/.." && pwd)
dsgd=${DSGD:?set DSGD to the dsgd binary}
scratch=$(mktemp -d)
trap 'DSGD_CAMPAIGNS=$scratch/campaigns "$scratch/repo/scripts/campaign.sh" \
  docs/results/ctest-queue.txt --stop >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
fail() { echo "campaign_queue: $*" >&2; exit 1; }

# A source tree outside git (an unpacked archive) has no repository to clone: skipped (77).
if ! git -C "$source_tree" rev-parse --git-dir >/dev/null 2>&1; then
  echo "not a git clone: skipped"
  exit 77
fi
git clone -q "$source_tree" "$scratch/repo"
cd "$scratch/repo"
git config user.email campaign-test@dsgd && git config user.name "campaign test"
cp "$source_tree/scripts/campaign.sh" scripts/campaign.sh  # the working tree's, not the commit's
mkdir -p build docs/results
cat >build/dsgd <<EOF
#!/bin/sh
if [ "\$1" = sweep ] && grep -q '^\[report.published.unverified\]' "\$2"; then
  echo "dsgd: error: an older dsgd: report.published.unverified: unknown" >&2
  exit 2
fi
exec "$dsgd" "\$@"
EOF
chmod +x build/dsgd
cat >docs/results/ctest.sweep.toml <<'EOF'
out = "runs/ctest"
dir = "{config}/seed{seed}"
seeds = [1]
[set]
dataset = "synthetic"
model = "mlp"
batch_size = 16
epochs = 4
threads = 1
[[configs]]
name = "a"
algo = "sgd"
[[configs]]
name = "b"
algo = "sgd"
lr = 0.05
EOF
printf 'docs/results/ctest.sweep.toml a/seed1\ndocs/results/ctest.sweep.toml b/seed1\n' \
  >docs/results/ctest-queue.txt
git add docs/results && git commit -qm "campaign test spec"

export DSGD_CAMPAIGNS=$scratch/campaigns
scripts/campaign.sh docs/results/ctest-queue.txt >/dev/null
log=$DSGD_CAMPAIGNS/ctest/sweep.log
# dsgd's own "start" line: the first entry's sweep has read its spec.
# The waits are generous (a sanitizer build on a loaded machine takes minutes, a plain build 15 s).
for _ in $(seq 1200); do grep -q "^start a/seed1" "$log" 2>/dev/null && break; sleep 0.1; done
grep -q "^start a/seed1" "$log" || fail "the first entry did not start in 120 s: $(cat "$log")"
cat >>docs/results/ctest.sweep.toml <<'EOF'
[report.published]
source = "a test"
baseline = "a"
[report.published.accuracy]
"a" = 0.9
"b" = 0.8
[report.published.unverified]
why = "a test"
configs = ["b"]
EOF
cp "$dsgd" build/dsgd.new && mv build/dsgd.new build/dsgd
[ -f "$DSGD_CAMPAIGNS/ctest/a/seed1/summary.json" ] &&
  grep -q "\"status\": *\"ok\"" "$DSGD_CAMPAIGNS/ctest/a/seed1/summary.json" &&
  fail "the first entry ended before the spec was edited: make its run longer"
for _ in $(seq 3000); do grep -q "queue done" "$DSGD_CAMPAIGNS/ctest-queue.log" 2>/dev/null && break
  sleep 0.1; done
grep -q "queue done" "$DSGD_CAMPAIGNS/ctest-queue.log" || fail "the queue did not end in 300 s"

grep -q "needs a newer dsgd than the one pinned at the start: took build/dsgd" "$log" ||
  fail "no entry took the current build: $(cat "$log")"
cmp -s "$DSGD_CAMPAIGNS/bin/ctest/dsgd" "$dsgd" || fail "the pinned binary is not the current build"
subjects=$(git log --format=%s)
for run in a b; do
  grep -q "\"status\": *\"ok\"" "$DSGD_CAMPAIGNS/ctest/$run/seed1/summary.json" ||
    fail "run $run did not finish: $(cat "$log")"
  grep -qx "Campaign ctest: $run/seed1 finished" <<<"$subjects" ||
    fail "the watcher did not commit run $run: $subjects"
  for f in config.toml metrics.csv summary.json; do
    git ls-files --error-unmatch "docs/results/ctest-runs/$run/seed1/$f" >/dev/null ||
      fail "docs/results/ctest-runs/$run/seed1/$f is not committed"
  done
done
status=$(scripts/campaign.sh docs/results/ctest-queue.txt --status)
grep -q "ctest/a/seed1: ok epoch 4.0" <<<"$status" || fail "--status: $status"
grep -q "ctest/b/seed1: ok epoch 4.0" <<<"$status" || fail "--status: $status"
echo "campaign_queue: both runs finished and were committed; an entry took the current build"
