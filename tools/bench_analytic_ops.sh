#!/usr/bin/env bash
# CPU time (user + system, /usr/bin/time) and peak RSS of `clustersim run` on the analytic engine against the
# step graph's operation count, for the constant of estimate_run (sim/scenario/work_bounds.cpp) and
# docs/limits.md. Runs gpt3-175b-a100-1024 (pp 8, dp 16) with global_batch = 16·m for each m, per schedule,
# REPEAT times, prints the median per size and the least-squares slope of the medians (s per operation).
# Usage: tools/bench_analytic_ops.sh [build/release] [REPEAT]
set -euo pipefail
build="${1:-build/release}"
repeat="${2:-5}"
cli="$build/tools/clustersim"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
run_case() {  # label, then --set arguments
  local label="$1"; shift
  local rows=()
  for m in 5000 10000 20000 40000 80000; do
    local ops
    ops="$("$cli" run gpt3-175b-a100-1024 "$@" --set /training/global_batch=$((16 * m)) --estimate |
      sed -n 's/.* devices and \([0-9.e+]*\) graph operations.*/\1/p')"
    local samples=()
    for _ in $(seq "$repeat"); do
      samples+=("$( { /usr/bin/time -f '%U %S %M' "$cli" run gpt3-175b-a100-1024 "$@" \
        --set /training/global_batch=$((16 * m)) --format json >/dev/null; } 2>&1 | tail -1)")
    done
    rows+=("$ops|$(printf '%s;' "${samples[@]}")")
  done
  printf '%s\n' "${rows[@]}" | python3 -c '
import sys, statistics
label = sys.argv[1]
xs, ts, ms = [], [], []
for line in sys.stdin:
    ops, samples = line.strip().split("|")
    cpu = [float(u) + float(s) for u, s, _ in (x.split() for x in samples.split(";") if x)]
    rss = [float(k) / 1024 for _, _, k in (x.split() for x in samples.split(";") if x)]
    xs.append(float(ops)); ts.append(statistics.median(cpu)); ms.append(statistics.median(rss))
    print(f"{label}: {float(ops):10.0f} ops  median CPU {ts[-1]:6.2f} s (min {min(cpu):.2f}, max {max(cpu):.2f})"
          f"  {ts[-1] / float(ops) * 1e6:.3f} us/op  median peak {ms[-1]:6.0f} MiB")
n = len(xs); mx = sum(xs) / n; mt = sum(ts) / n; mm = sum(ms) / n
sxx = sum((x - mx) ** 2 for x in xs)
slope = sum((x - mx) * (t - mt) for x, t in zip(xs, ts)) / sxx
mslope = sum((x - mx) * (m - mm) for x, m in zip(xs, ms)) / sxx
print(f"{label}: slope {slope * 1e6:.3f} us/op, intercept {mt - slope * mx:.3f} s;"
      f" memory slope {mslope * 1048576:.0f} B/op, intercept {mm - mslope * mx:.0f} MiB")
' "$label"
}
run_case "interleaved-1f1b vp 3"
run_case "1f1b" --set /parallelism/vp=1 --set '/parallelism/schedule="1f1b"'
run_case "zb-h1" --set /parallelism/vp=1 --set '/parallelism/schedule="zb-h1"'
run_case "v-half" --set /parallelism/vp=1 --set '/parallelism/schedule="v-half"'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
