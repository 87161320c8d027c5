#!/bin/sh
# usage: signal_plan.sh CLI SIGNAL
# A plan search with --checkpoint interrupted by SIGNAL keeps the strategies it finished; `--resume`
# evaluates only the others, and its output is byte-identical to one uninterrupted search, invalid strategies'
# reasons included. Run from the repository root.
set -eu
cli=$1
sig=$2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/interrupt.sh"
# The DiLoCo experiment's search: 33,103 strategies, 28,287 of them invalid (about 1 s in a release build; the
# search of llama3-405b-h100-16k used before took about 6 s, and about 110 s per test under AddressSanitizer),
# so that the refusals, pointer and message, go through the interrupted checkpoint too.
set -- plan llama3-8b-diloco-h100-2dc --threads 1 --format json
"$cli" "$@" > "$dir/single.json" 2>/dev/null
interrupt_after "$dir/plan.ckpt" 100 "$sig" "$cli" "$@" --checkpoint "$dir/plan.ckpt" > /dev/null 2>&1
kept=$((kept_lines - 1))
# The interrupted search's file holds invalid strategies with their refusals (INDEX 2 [pointer, message]).
grep -q '^[0-9]* 2 \["/[a-z_/]*","' "$dir/plan.ckpt" || { echo "no refusal in the checkpoint" >&2; exit 1; }
if [ "$interrupted_status" -eq 0 ]; then
  echo "the search finished before SIG$sig ($kept strategies in the checkpoint): nothing was interrupted" >&2
  exit 1
fi
"$cli" "$@" --checkpoint "$dir/plan.ckpt" --resume > "$dir/resumed.json" 2>"$dir/log"
grep -q "^resumed [0-9]* of [0-9]* strategies" "$dir/log" || { cat "$dir/log" >&2; exit 1; }
cmp "$dir/single.json" "$dir/resumed.json"
# A checkpoint of another search is refused, naming --resume.
status=0
"$cli" plan gpt2-1b-a100-8gpu --checkpoint "$dir/plan.ckpt" --resume > /dev/null 2>"$dir/log" || status=$?
[ "$status" -eq 2 ] && grep -q -- "--resume: .*is not a checkpoint of this search" "$dir/log" || { cat "$dir/log" >&2; exit 1; }
echo "SIG$sig after $kept strategies (exit $interrupted_status); resumed, identical to one search"
