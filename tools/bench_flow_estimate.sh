#!/usr/bin/env bash
# How far `clustersim run X --engine flow --estimate` is from the run it estimates (a benchmark, not a
# unit test): for each case, the estimate's CPU seconds and peak memory, then the measured user + system
# time and peak RSS of the same run (/usr/bin/time), and their ratio. Exits 1 when a ratio of CPU time or
# memory is beyond FACTOR (default 4, the factor docs/limits.md states) either way.
#   tools/bench_flow_estimate.sh [BUILD_DIR] [CASE...]
# A case is an experiment and its options in one word, `;` between arguments. The default cases are two
# sizes of each flow path: Llama-3-405B (TP8 PP16) at 4,096 and 16,384 GPUs on the flow-class solver, and
# at 1,024 and 2,048 GPUs with one SimGrid flow per flow (flow.flow_classes false) (the points the model
# was fitted to), and three it was not fitted to: Llama-3-405B at 8,192 GPUs (flow classes), GPT-3 175B on
# 1,024 A100 (interleaved 1F1B, implicit fat-tree: SimGrid) and Mixtral 8x7B on 64 H100.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
shift || true
cli="$build/tools/clustersim"
factor="${FACTOR:-4}"
[[ -x "$cli" ]] || { echo "build the clustersim target in $build first" >&2; exit 2; }
llama() {  # GPUS [extra...]: Llama-3-405B TP8 PP16, 16 micro-batches per replica
  local gpus=$1 dp=$(($1 / 128)); shift
  echo "llama3-405b-h100-16k;--engine;flow;--set;/cluster/nodes=$((gpus / 8));--set;/parallelism/dp=$dp;--set;/training/global_batch=$((16 * dp))$*"
}
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
  cases=("$(llama 4096)" "$(llama 16384)" "$(llama 1024 ';--set;/flow/flow_classes=false')"
         "$(llama 2048 ';--set;/flow/flow_classes=false')" "$(llama 8192)" "gpt3-175b-a100-1024;--engine;flow"
         "mixtral-8x7b-h100-64;--engine;flow")
fi
cd "$root"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; factor allowed: $factor"
echo "| case | path | estimated CPU s | measured CPU s | ratio | estimated MiB | measured MiB | ratio |"
echo "|---|---|---|---|---|---|---|---|"
bad=0
for c in "${cases[@]}"; do
  IFS=';' read -r -a args <<< "$c"
  est="$("$cli" run "${args[@]}" --estimate)"
  read -r e_cpu e_mib path < <(python3 -c "
import re, sys
t = sys.argv[1]
cpu = re.search(r'about ([0-9.e+-]+) s of CPU', t).group(1)
mib = re.search(r'and ([0-9]+) MiB peak', t).group(1)
path = re.search(r'\(([^,]+) cost model', t).group(1).replace(' ', '_')
print(cpu, mib, path)" "$est")
  log="$(mktemp)"
  /usr/bin/time -f '%U %S %M' -o "$log" "$cli" run "${args[@]}" > /dev/null
  read -r user sys rss < "$log"
  rm -f "$log"
  read -r m_cpu m_mib r_cpu r_mib ok < <(python3 -c "
import sys
e_cpu, e_mib, u, s, rss, f = map(float, sys.argv[1:])
cpu = u + s; mib = rss / 1024
r_cpu = e_cpu / max(cpu, 0.01); r_mib = e_mib / mib
ok = all(1 / f <= r <= f for r in (r_cpu, r_mib))
print(f'{cpu:.2f} {mib:.0f} {r_cpu:.2f} {r_mib:.2f} {int(ok)}')" "$e_cpu" "$e_mib" "$user" "$sys" "$rss" "$factor")
  gpus="$(echo "$est" | grep -o 'for [0-9]* devices' | grep -o '[0-9]*')"
  label="${args[0]}, $gpus GPUs$(echo "${args[@]:1}" | grep -q 'flow_classes=false' && echo ', flow_classes false' || true)"
  echo "| $label | ${path//_/ } | $e_cpu | $m_cpu | $r_cpu | $e_mib | $m_mib | $r_mib |"
  [[ "$ok" == 1 ]] || bad=1
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ $bad == 1 ]]; then echo "an estimate is off by more than a factor of $factor"; exit 1; fi
echo "every estimate within a factor of $factor"
