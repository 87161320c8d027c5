#!/bin/sh
# tools/slurm_sweep.sh end to end without SLURM: a sweep split into 3 shards, one shard "killed" half-way
# (its done marker removed and its file cut mid-row), resumed, merged: byte-identical to one sweep run,
# and a finished shard is not run again. Usage: slurm_shards.sh CLUSTERSIM (from the repository root).
set -eu
cli="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
export CLUSTERSIM="$cli"
set -- gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..3:+0.05 --vary /training/micro_batch=1,2
"$cli" sweep "$@" -o "$dir/single.csv" 2>/dev/null
tools/slurm_sweep.sh local "$dir/s" 3 -- "$@" 2>/dev/null
# Shard 1 dies mid-row: no done marker, a truncated file.
rm "$dir/s/shard-1-of-3.done"
head -c 2000 "$dir/s/shard-1-of-3.csv" > "$dir/cut" && mv "$dir/cut" "$dir/s/shard-1-of-3.csv"
if tools/slurm_sweep.sh merge "$dir/s" 3 "$dir/merged.csv" 2>/dev/null; then
  echo "merge accepted an unfinished shard" >&2; exit 1
fi
touch -d '2000-01-01' "$dir/s/shard-0-of-3.csv"
tools/slurm_sweep.sh local "$dir/s" 3 -- "$@" 2>"$dir/log"
grep -q "shard 0/3 already finished" "$dir/log" || { echo "finished shard 0 was not skipped" >&2; exit 1; }
[ "$(find "$dir/s/shard-0-of-3.csv" -newermt '2001-01-01')" = "" ] || { echo "shard 0 was rewritten" >&2; exit 1; }
tools/slurm_sweep.sh merge "$dir/s" 3 "$dir/merged.csv" 2>/dev/null
cmp "$dir/single.csv" "$dir/merged.csv"
[ "$(wc -l < "$dir/single.csv")" -eq 83 ] || { echo "expected 82 rows and a header" >&2; exit 1; }
