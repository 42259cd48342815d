# Shared by the experiment scripts (source it): the outcome of a run for a results table, and
# writing a table without losing the hand-written commentary below its `<!-- notes -->` marker.

# run_outcome DIR: the run's final test accuracy when it finished, else its status (`diverged`,
# `collapsed`, `interrupted`, `failed`), or `-` when it has not run or is still running.
run_outcome() {
  local summary="$1/summary.json" status
  [ -f "$summary" ] || { echo "-"; return; }
  status=$(grep -o '"status": "[a-z]*"' "$summary" | cut -d'"' -f4)
  case "$status" in
    ok) grep -o '"final_test_acc": [0-9.e-]*' "$summary" | awk '{printf "%.4f\n", $2}' ;;
    running) echo "-" ;;
    *) echo "$status" ;;
  esac
}

# write_table FILE PRINTER: FILE becomes what the function PRINTER prints, followed by the
# commentary from FILE's `<!-- notes -->` marker on; written whole or not at all.
write_table() {
  local table=$1 printer=$2
  mkdir -p "$(dirname "$table")"
  {
    "$printer"
    if [ -f "$table" ] && grep -q '^<!-- notes -->' "$table"; then
      echo
      sed -n '/^<!-- notes -->/,$p' "$table"
    fi
  } > "$table.tmp"
  mv "$table.tmp" "$table"
  echo "table: $table"
}
