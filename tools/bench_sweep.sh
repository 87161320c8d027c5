#!/usr/bin/env bash
# Sweep throughput and row identity against a reference binary.
#
# Runs `clustersim sweep gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..11:+0.001` (10,001
# points, one thread) with NEW and prints points per CPU-second (user + system time of the process, so a
# loaded machine does not count waiting for a core). With REF (e.g. a build of main), it also runs a
# 1,000-point sample (oversubscription 1..1.999) with both binaries and compares the files byte for byte;
# exits 1 when they differ and prints the first differing rows.
#
# Usage: tools/bench_sweep.sh NEW_BIN [REF_BIN]
set -euo pipefail
new=${1:?usage: tools/bench_sweep.sh NEW_BIN [REF_BIN]}
ref=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"

# CPU seconds (user + sys) of one command, from bash's `times` of a subshell.
cpu_of() {
  ( "$@" >/dev/null 2>&1; times ) | tail -1 | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

sweep=(sweep gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..11:+0.001 --jobs 1)
cpu=$(cpu_of "$new" "${sweep[@]}" -o "$tmp/full.csv")
rows=$(($(wc -l < "$tmp/full.csv") - 1))
echo "new: $rows points in $cpu CPU-s = $(awk -v n="$rows" -v c="$cpu" 'BEGIN { printf "%.0f", n / c }') points per CPU-second"

if [[ -n "$ref" ]]; then
  cpu_ref=$(cpu_of "$ref" "${sweep[@]}" -o "$tmp/full_ref.csv")
  echo "ref: $rows points in $cpu_ref CPU-s = $(awk -v n="$rows" -v c="$cpu_ref" 'BEGIN { printf "%.0f", n / c }') points per CPU-second"
  sample=(sweep gpt3-175b-a100-1024 --vary /cluster/network/oversubscription=1..1.999:+0.001 --jobs 1)
  "$new" "${sample[@]}" -o "$tmp/new.csv" 2>/dev/null
  "$ref" "${sample[@]}" -o "$tmp/ref.csv" 2>/dev/null
  n=$(($(wc -l < "$tmp/new.csv") - 1))
  if cmp -s "$tmp/new.csv" "$tmp/ref.csv" && cmp -s "$tmp/full.csv" "$tmp/full_ref.csv"; then
    echo "rows: byte-identical ($n-point sample and all $rows points)"
  else
    echo "rows: DIFFER"
    diff "$tmp/ref.csv" "$tmp/new.csv" | head -6
    exit 1
  fi
fi
