#!/usr/bin/env bash
# Flow-engine scaling curve (a benchmark, not a unit test): wall time and peak RSS (/usr/bin/time -v) of
# one flow-engine step of Llama-3-405B (TP8 PP16, 16 micro-batches per replica, the 1:1/1:7 3-tier
# fat-tree of llama3-405b-h100-16k) as only the node count and DP change, then the fitted exponent of
# wall time vs GPUs (least squares on log-log).
#   tools/bench_flow_scaling.sh [BUILD_DIR] [GPUS...]    (default build/release; 1024 2048 4096 8192)
# Prints one Markdown table row per size. A size that exceeds LIMIT seconds (default 900) is reported as
# killed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1024 2048 4096 8192)
cli="$build/tools/clustersim"
limit="${LIMIT:-900}"
[[ -x "$cli" ]] || { echo "build the clustersim target in $build first" >&2; exit 2; }
echo "| GPUs | wall s | peak RSS MiB | flow step s | analytic step s | flows |"
echo "|---|---|---|---|---|---|"
points=()
for gpus in "${sizes[@]}"; do
  (( gpus % 128 == 0 )) || { echo "GPUs must be a multiple of 128 (TP8 x PP16): $gpus" >&2; exit 2; }
  dp=$((gpus / 128))
  log="$(mktemp)"
  if timeout "$limit" /usr/bin/time -v "$cli" run llama3-405b-h100-16k --engine flow --format json \
      --set "/cluster/nodes=$((gpus / 8))" --set "/parallelism/dp=$dp" \
      --set "/training/global_batch=$((16 * dp))" > "$log.json" 2> "$log"; then
    wall="$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')"
    secs="$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")"
    rss="$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')"
    read -r flow analytic flows < <(python3 -c "import json; c=json.load(open('$log.json'))['contention']; print(c['flow_step_time_s'], c['analytic_step_time_s'], c['flows'])")
    printf "| %s | %.1f | %d | %.3f | %.3f | %s |\n" "$gpus" "$secs" "$((rss / 1024))" "$flow" "$analytic" "$flows"
    points+=("$gpus:$secs")
  else
    echo "| $gpus | > $limit (killed or failed) | — | — | — | — |"
  fi
  rm -f "$log" "$log.json"
done
if [[ ${#points[@]} -ge 2 ]]; then
  python3 - "${points[@]}" <<'PY'
import math, sys
xs, ys = zip(*[(math.log(float(a)), math.log(float(b))) for a, b in (p.split(":") for p in sys.argv[1:])])
mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print(f"scaling exponent of wall time vs GPUs: {k:.2f}")
PY
fi
