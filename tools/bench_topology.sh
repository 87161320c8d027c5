#!/usr/bin/env bash
# Topology benchmarks: build time, route throughput, analysis time and peak RSS of
#   - a 16,384-GPU rail-optimized 3-tier fat-tree (2,048 DGX H100-like nodes, radix 64), and
#   - a 4,096-chip 16x16x16 torus of 4x4x4 cubes (TPU v4-like).
# Targets (issue): each graph builds in < 2 s and < 1 GB. Each case runs in its own process so that
# /usr/bin/time -v reports its own peak RSS.
#
# Usage: tools/bench_topology.sh [BUILD_DIR]     (default: build/topologies, configured Release)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$repo/build/topologies}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target topologies_bench -j1 >/dev/null
bench="$build/tests/topologies/topologies_bench"

status=0
for case_name in "bench: 16384-GPU*" "bench: 4096-chip*"; do
  log="$(mktemp)"
  if ! /usr/bin/time -v "$bench" "$case_name" >"$log" 2>&1; then status=1; fi
  grep -E "built|routes|summary|FAILED|passed|failed" "$log" || true
  rss_kb="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")"
  echo "  peak RSS: $((rss_kb / 1024)) MiB (whole process)"
  if (( rss_kb > 1024 * 1024 )); then
    echo "  FAILED: peak RSS above 1 GiB"
    status=1
  fi
  rm -f "$log"
done
exit "$status"
