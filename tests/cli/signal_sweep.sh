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
defaults=""
if env --default-signal=INT true 2>/dev/null; then defaults="--default-signal=INT,TERM"; fi
set -- gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..3:+0.001 --vary /training/micro_batch=1,2
"$cli" sweep "$@" -o "$dir/single.csv" 2>/dev/null
total=$(wc -l < "$dir/single.csv")
env $defaults "$cli" sweep "$@" -o "$dir/part.csv" 2>/dev/null &
pid=$!
i=0
while [ "$(cat "$dir/part.csv" 2>/dev/null | wc -l)" -lt 200 ] && [ $i -lt 600 ]; do
  sleep 0.05
  i=$((i + 1))
done
kill -s "$sig" "$pid" 2>/dev/null || true
status=0
wait "$pid" || status=$?
kept=$(wc -l < "$dir/part.csv")
if [ "$status" -eq 0 ] || [ "$kept" -ge "$total" ]; then
  echo "the sweep finished before SIG$sig (exit $status, $kept of $total lines): nothing was interrupted" >&2
  exit 1
fi
"$cli" sweep "$@" -o "$dir/part.csv" --resume 2>"$dir/log"
rows=$(tail -n +2 "$dir/part.csv" | cut -d, -f1 | sort | uniq -d | wc -l)
[ "$rows" -eq 0 ] || { echo "$rows point indices appear twice after --resume" >&2; exit 1; }
"$cli" merge "$dir/merged.csv" "$dir/part.csv" 2>/dev/null
cmp "$dir/single.csv" "$dir/merged.csv"
echo "SIG$sig after $kept of $total lines (exit $status); resumed and merged: identical to one run"
