#!/bin/sh
# usage: signal_run.sh CLI SIGNAL
# The Monte Carlo of a run section with --checkpoint, interrupted by SIGNAL, keeps the trials it finished;
# `--resume` simulates only the others, and its output is byte-identical to one uninterrupted run with the
# same seed. A checkpoint of another run (here: another seed), or one whose first trial this clustersim does
# not simulate to the same figures, is refused at --resume. Run from the
# repository root.
set -eu
cli=$1
sig=$2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/interrupt.sh"
set -- run llama3-405b-h100-16k-run --set /run/trials=50000 --format json
"$cli" "$@" > "$dir/single.json" 2>/dev/null
interrupt_after "$dir/run.ckpt" 200 "$sig" "$cli" "$@" --checkpoint "$dir/run.ckpt" > /dev/null 2>&1
kept=$((kept_lines - 1))
if [ "$interrupted_status" -eq 0 ]; then
  echo "the run finished before SIG$sig ($kept trials in the checkpoint): nothing was interrupted" >&2
  exit 1
fi
"$cli" "$@" --checkpoint "$dir/run.ckpt" --resume > "$dir/resumed.json" 2>"$dir/log"
resumed=$(sed -n 's/^resumed \([0-9]*\) finished trials from .*/\1/p' "$dir/log")
# Every complete line was used (the last line may have been cut by the signal).
[ -n "$resumed" ] && [ "$resumed" -ge $((kept - 1)) ] || { echo "resumed '$resumed' of $kept kept trials" >&2; cat "$dir/log" >&2; exit 1; }
cmp "$dir/single.json" "$dir/resumed.json"
# A checkpoint of another run is refused, naming --resume, and left alone.
cp "$dir/run.ckpt" "$dir/before.ckpt"
status=0
"$cli" run llama3-405b-h100-16k-run --set /run/seed=2 --checkpoint "$dir/run.ckpt" --resume > /dev/null 2>"$dir/log" || status=$?
[ "$status" -eq 2 ] && grep -q -- "--resume: .*is not a checkpoint of this run" "$dir/log" || { cat "$dir/log" >&2; exit 1; }
cmp "$dir/before.ckpt" "$dir/run.ckpt"
# A checkpoint of this run whose figures this clustersim does not give (as one written by a build whose model
# differs) is refused: the first kept trial is simulated again. Here trial 0's training time is changed.
awk 'NR == 2 { $3 = "0x1p+0" } { print }' "$dir/before.ckpt" > "$dir/run.ckpt"
head -2 "$dir/run.ckpt" | tail -1 | grep -q '^0 0 0x1p+0 ' || { echo "trial 0 is not the first line" >&2; exit 1; }
status=0
"$cli" "$@" --checkpoint "$dir/run.ckpt" --resume > /dev/null 2>"$dir/log" || status=$?
[ "$status" -eq 2 ] && grep -q -- "--resume: .*was written by a clustersim whose model gives other figures: trial 0 of group 0" "$dir/log" || { echo "exit $status" >&2; cat "$dir/log" >&2; exit 1; }
echo "SIG$sig after $kept trials (exit $interrupted_status); resumed $resumed, identical to one run"
