#!/usr/bin/env bash
# DiLoCo in EXO Gym and in dsgd on the same model, tokens and steps, run in alternation (dsgd,
# then EXO Gym, per seed) so that a drift in the machine's speed hits both alike: each one's
# validation loss over the same first validation windows after the same number of inner steps,
# and the whole command's wall time (start-up and the final evaluation included). nanoGPT's GPT
# at 2 layers, 2 heads, width 128, no biases, on Shakespeare's characters (dsgd's tokenisation,
# scripts/exogym-diloco.py reproduces it), windows of 64, 16 a worker a step, inner AdamW at
# 1e-3 (no decay, no clipping, constant), outer Nesterov 0.7/0.9 every H = 50 steps, 200 steps
# (EXO Gym's first outer step comes after 51 inner steps: it runs 201). EXO Gym runs with
# scripts/exogym-diloco.py's --fix-cpu-alias (without it, its outer gradients are zero after the
# first outer step on a CPU), and once as shipped.
#
#   scripts/exogym-vs-dsgd.sh [OUT.tsv] [WORKERS...]    # default: /tmp/exogym-vs-dsgd.tsv, 4 8
#
# Needs build/dsgd, data/shakespeare (scripts/prepare-shakespeare.sh) and EXO Gym in its own venv
# (scripts/exogym-diloco.py says how; EXOGYM_PYTHON, default /work/exogym-venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/exogym-vs-dsgd.tsv}
shift || true
workers=("$@")
[ ${#workers[@]} -gt 0 ] || workers=(4 8)
python=${EXOGYM_PYTHON:-/work/exogym-venv/bin/python}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
steps=200
windows=1000
echo -e "tool\tworkers\tseed\tsteps\tvalidation_loss\twall_seconds" >"$out"
seconds_of() {  # runs "$@", prints its wall seconds
  local start end
  start=$(date +%s.%N)
  "$@" >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; return 1; }
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.2f}')"
}
for n in "${workers[@]}"; do
  # dsgd's epoch is the training windows over n x 16: 71117 windows of 64 tokens.
  epochs=$(python3 -c "print(f'{$steps / (71117 // ($n * 16)):.6f}')")
  for seed in 1 2 3; do
    wall=$(seconds_of build/dsgd run --set dataset=shakespeare --set model=transformer \
      --set seq_len=64 --set transformer.layers=2 --set transformer.heads=2 \
      --set transformer.width=128 --set algo=kavg --set workers="$n" --set kavg.period=50 \
      --set optimizer=adamw --set lr=0.001 --set weight_decay=0 --set lr_schedule=constant \
      --set warmup_epochs=0 --set outer.lr=0.7 --set outer.momentum=0.9 \
      --set outer.nesterov=true --set batch_size=16 --set epochs="$epochs" --set eval_every=1 \
      --set text.eval_windows=$windows --set seed="$seed" --out "$scratch/dsgd-$n-$seed")
    read -r updates loss < <(python3 -c "import json; s = json.load(open('$scratch/dsgd-$n-$seed/summary.json')); import math; print(s['updates'], math.log(s['final_test_ppl']))")
    echo -e "dsgd\t$n\t$seed\t$updates\t$loss\t$wall" >>"$out"
    for fix in --fix-cpu-alias ""; do
      [ -z "$fix" ] && [ "$seed" != 1 ] && continue
      wall=$(seconds_of "$python" scripts/exogym-diloco.py --workers "$n" --layers 2 --heads 2 \
        --width 128 --seq-len 64 --batch 16 --steps $((steps + 1)) --H 50 --lr 1e-3 \
        --seed "$seed" --eval-windows $windows --val-interval 100000 $fix \
        --out "$scratch/exogym-$n-$seed.json")
      loss=$(python3 -c "import json; print(json.load(open('$scratch/exogym-$n-$seed.json'))['final_validation_loss'])")
      echo -e "exogym${fix:+ fixed}\t$n\t$seed\t$((steps + 1))\t$loss\t$wall" >>"$out"
    done
  done
done
cat "$out"
