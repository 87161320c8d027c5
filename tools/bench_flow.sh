#!/usr/bin/env bash
# Flow-engine benchmarks (not unit tests): wall time and peak RSS of full-size runs.
#   tools/bench_flow.sh [BUILD_DIR]     (default build/flow; needs the clustersim target built)
# Targets: GPT-3 175B on 1,024 A100 < 5 s, < 2 GB; Llama-3-405B on 16,384 H100 < 60 s, < 8 GB.
# PaLM 540B on 6,144 TPU v4 (two derived-torus slices: TP, FSDP and DCN traffic as flows).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/flow}"
cli="$build/tools/clustersim"
[[ -x "$cli" ]] || { echo "build the clustersim target in $build first" >&2; exit 2; }
# The third case is Llama-3-405B on its explicit 3-tier fat-tree (topology mode: the TopologyGraph link by link).
topo='/cluster/network={"topology":"fat-tree","tiers":3,"radix":64,"oversubscription":[1,7],"rail_optimized":false}'
for case in gpt3-175b-a100-1024 llama3-405b-h100-16k llama3-405b-h100-16k@topology palm-540b-tpuv4-6144; do
  exp="${case%@*}"
  extra=()
  [[ "$case" == *@topology ]] && extra=(--set "$topo")
  log="$(mktemp)"
  /usr/bin/time -v "$cli" run "$exp" --engine flow --format json "${extra[@]}" > "$log.json" 2> "$log"
  wall="$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')"
  rss="$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')"
  step="$(python3 -c "import json,sys; j=json.load(open('$log.json')); c=j['contention']; print(c['flow_step_time_s'], c['analytic_step_time_s'], c['flows'], '|', c['fabric'])")"
  echo "$case: wall $wall, peak RSS $((rss / 1024)) MiB, flow/analytic step s and flows: $step"
  rm -f "$log" "$log.json"
done
