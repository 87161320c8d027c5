#!/bin/sh
# usage: signal_sweep.sh CLI SIGNAL
# A sweep interrupted by SIGNAL once some rows are written keeps every row it wrote; `--resume` computes
# only the missing points, and the result, sorted by `clustersim merge`, is byte-identical to one
# uninterrupted sweep (no point lost, none twice). Run from the repository root.
set -eu
cli=$1
sig=$2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/interrupt.sh"
set -- gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..3:+0.001 --vary /training/micro_batch=1,2
"$cli" sweep "$@" -o "$dir/single.csv" 2>/dev/null
total=$(wc -l < "$dir/single.csv")
interrupt_after "$dir/part.csv" 200 "$sig" "$cli" sweep "$@" -o "$dir/part.csv" 2>/dev/null
if [ "$interrupted_status" -eq 0 ] || [ "$kept_lines" -ge "$total" ]; then
  echo "the sweep finished before SIG$sig (exit $interrupted_status, $kept_lines of $total lines): nothing was interrupted" >&2
  exit 1
fi
"$cli" sweep "$@" -o "$dir/part.csv" --resume 2>"$dir/log"
rows=$(tail -n +2 "$dir/part.csv" | cut -d, -f1 | sort | uniq -d | wc -l)
[ "$rows" -eq 0 ] || { echo "$rows point indices appear twice after --resume" >&2; exit 1; }
"$cli" merge "$dir/merged.csv" "$dir/part.csv" 2>/dev/null
cmp "$dir/single.csv" "$dir/merged.csv"
echo "SIG$sig after $kept_lines of $total lines (exit $interrupted_status); resumed and merged: identical to one run"
