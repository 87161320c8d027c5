#!/usr/bin/env bash
# Flow-engine scaling curve (a benchmark, not a unit test): wall time, CPU time (user + sys) and peak RSS
# (/usr/bin/time -v) of one flow-engine step of Llama-3-405B (TP8 PP16, 16 micro-batches per replica,
# the 1:1/1:7 3-tier fat-tree of llama3-405b-h100-16k) as only the node count and DP change, then the
# fitted exponents of wall and CPU time vs GPUs (least squares on log-log).
#   tools/bench_flow_scaling.sh [BUILD_DIR] [GPUS...]    (default build/release; 1024 2048 4096 8192)
# Environment:
#   LIMIT=900          seconds before a size is killed (reported as such)
#   FLOW_CLASSES=0     one SimGrid flow per flow instead of the flow-class solver (flow.flow_classes false)
#   SYMMETRY=0         no symmetry reduction at all (every replica simulated; slow)
#   FABRIC=1:1         contention-free variant: the same 3-tier fat-tree at 1:1 on every tier
# Prints the machine's load average before and after (the machine may be shared: CPU time is the figure
# that load does not inflate), one Markdown table row per size, and the exponents.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1024 2048 4096 8192)
cli="$build/tools/clustersim"
limit="${LIMIT:-900}"
[[ -x "$cli" ]] || { echo "build the clustersim target in $build first" >&2; exit 2; }
extra=()
[[ "${FLOW_CLASSES:-1}" == 0 ]] && extra+=(--set /flow/flow_classes=false)
[[ "${SYMMETRY:-1}" == 0 ]] && extra+=(--set /flow/symmetry_reduction=false)
[[ "${FABRIC:-1:7}" == "1:1" ]] && extra+=(--set '/cluster/network/oversubscription=[1,1]')
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; options: ${extra[*]:-(defaults)}"
echo "| GPUs | wall s | CPU s (user+sys) | peak RSS MiB | flow step s | analytic step s | flow vs analytic | flows |"
echo "|---|---|---|---|---|---|---|---|"
points=()
for gpus in "${sizes[@]}"; do
  (( gpus % 128 == 0 )) || { echo "GPUs must be a multiple of 128 (TP8 x PP16): $gpus" >&2; exit 2; }
  dp=$((gpus / 128))
  log="$(mktemp)"
  if timeout "$limit" /usr/bin/time -v "$cli" run llama3-405b-h100-16k --engine flow --format json \
      --set "/cluster/nodes=$((gpus / 8))" --set "/parallelism/dp=$dp" \
      --set "/training/global_batch=$((16 * dp))" "${extra[@]}" > "$log.json" 2> "$log"; then
    wall="$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')"
    secs="$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")"
    user="$(grep 'User time (seconds)' "$log" | awk '{print $NF}')"
    sys="$(grep 'System time (seconds)' "$log" | awk '{print $NF}')"
    cpu="$(python3 -c "print($user + $sys)")"
    rss="$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')"
    read -r flow analytic flows < <(python3 -c "import json; c=json.load(open('$log.json'))['contention']; print(c['flow_step_time_s'], c['analytic_step_time_s'], c['flows'])")
    diff="$(python3 -c "print(f'{100 * ($flow - $analytic) / $analytic:+.2f} %')")"
    printf "| %s | %.1f | %.1f | %d | %.3f | %.3f | %s | %s |\n" "$gpus" "$secs" "$cpu" "$((rss / 1024))" \
      "$flow" "$analytic" "$diff" "$flows"
    points+=("$gpus:$secs:$cpu")
  else
    echo "| $gpus | > $limit (killed or failed) | — | — | — | — | — | — |"
  fi
  rm -f "$log" "$log.json"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ ${#points[@]} -ge 2 ]]; then
  python3 - "${points[@]}" <<'PY'
import math, sys
rows = [tuple(float(v) for v in p.split(":")) for p in sys.argv[1:]]
def slope(col):
    xs = [math.log(r[0]) for r in rows]
    ys = [math.log(max(r[col], 1e-3)) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print(f"scaling exponent of wall time vs GPUs: {slope(1):.2f}; of CPU time: {slope(2):.2f}")
PY
fi
