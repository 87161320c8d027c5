#!/usr/bin/env bash
# A `clustersim sweep` split into shards for a SLURM array job, with resume and a byte-identical merge.
#
#   tools/slurm_sweep.sh submit DIR SHARDS [SBATCH_OPTION...] -- SWEEP_ARGS...
#       sbatch --array over the shards that are not finished yet; each array task runs `task`.
#   tools/slurm_sweep.sh task   DIR SHARDS INDEX -- SWEEP_ARGS...   (INDEX defaults to $SLURM_ARRAY_TASK_ID)
#       one shard: clustersim sweep SWEEP_ARGS --shard INDEX/SHARDS -o DIR/shard-INDEX-of-SHARDS.csv --resume,
#       then DIR/shard-INDEX-of-SHARDS.done. A finished shard (its .done exists) is not run again; a shard
#       that failed or was killed keeps its rows and continues where it stopped (--resume).
#   tools/slurm_sweep.sh local  DIR SHARDS -- SWEEP_ARGS...
#       every unfinished shard, one after the other, without SLURM (tests, a workstation).
#   tools/slurm_sweep.sh merge  DIR SHARDS OUT
#       checks that every shard is finished, then clustersim merge OUT DIR/shard-*-of-SHARDS.csv: the same
#       bytes as one `clustersim sweep SWEEP_ARGS -o OUT` (rows sorted by point index).
#
# SWEEP_ARGS are those of `clustersim sweep` without -o/--output, --shard and --resume, e.g.
#   tools/slurm_sweep.sh submit runs/os 16 --time=00:30:00 -- gpt3-175b-a100-1024 \
#       --vary /cluster/network/oversubscription=1..11:+0.0001 --jobs "${SLURM_CPUS_PER_TASK:-1}"
#   (after the array finished)  tools/slurm_sweep.sh merge runs/os 16 runs/os/all.csv
# Re-running `submit` after a failure resubmits only the unfinished shards.
# CLUSTERSIM names the binary (default: clustersim on PATH, else build/release/tools/clustersim).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
self="$here/$(basename "$0")"
cli="${CLUSTERSIM:-}"
if [[ -z "$cli" ]]; then
  if command -v clustersim >/dev/null 2>&1; then cli="$(command -v clustersim)"; else cli="$here/../build/release/tools/clustersim"; fi
fi
die() { echo "slurm_sweep.sh: $*" >&2; exit 2; }
usage() { sed -n '2,21p' "$self" >&2; exit 2; }

[[ $# -ge 3 ]] || usage
mode="$1" dir="$2" shards="$3"
shift 3
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "SHARDS must be a positive integer: $shards"
shard_file() { echo "$dir/shard-$1-of-$shards.csv"; }
done_file() { echo "$dir/shard-$1-of-$shards.done"; }

run_task() {  # INDEX SWEEP_ARGS...
  local i="$1"
  shift
  [[ "$i" =~ ^[0-9]+$ && "$i" -lt "$shards" ]] || die "shard index must be in 0..$((shards - 1)): $i"
  if [[ -e "$(done_file "$i")" ]]; then
    echo "shard $i/$shards already finished" >&2
    return 0
  fi
  mkdir -p "$dir"
  local rc=0
  "$cli" sweep "$@" --shard "$i/$shards" -o "$(shard_file "$i")" --resume || rc=$?
  if [[ $rc -eq 2 && -s "$(shard_file "$i")" ]]; then
    # Exit 2 also means "every point of this shard is invalid" (its rows are written): a second
    # --resume run that finds every row present exits 0 and the shard is finished; bad input exits 2 again.
    rc=0
    "$cli" sweep "$@" --shard "$i/$shards" -o "$(shard_file "$i")" --resume 2>/dev/null || rc=$?
  fi
  [[ $rc -eq 0 ]] || { echo "shard $i/$shards failed (exit $rc); re-run to resume it" >&2; return "$rc"; }
  touch "$(done_file "$i")"
}

unfinished() {
  local i list=()
  for ((i = 0; i < shards; ++i)); do [[ -e "$(done_file "$i")" ]] || list+=("$i"); done
  (IFS=,; echo "${list[*]}")
}

case "$mode" in
  submit)
    sbatch_args=()
    while [[ $# -gt 0 && "$1" != "--" ]]; do sbatch_args+=("$1"); shift; done
    [[ "${1:-}" == "--" ]] || usage
    shift
    todo="$(unfinished)"
    [[ -n "$todo" ]] || { echo "every shard is finished: run merge" >&2; exit 0; }
    mkdir -p "$dir"
    command -v sbatch >/dev/null 2>&1 || die "sbatch not found (use 'local' without SLURM)"
    sbatch --array="$todo" --output="$dir/slurm-%A_%a.log" "${sbatch_args[@]}" \
      --wrap "CLUSTERSIM='$cli' '$self' task '$dir' $shards \"\$SLURM_ARRAY_TASK_ID\" -- $(printf '%q ' "$@")"
    ;;
  task)
    index="${SLURM_ARRAY_TASK_ID:-}"
    if [[ $# -gt 0 && "$1" != "--" ]]; then index="$1"; shift; fi
    [[ "${1:-}" == "--" ]] || usage
    shift
    [[ -n "$index" ]] || die "no shard index (give INDEX or run as a SLURM array task)"
    run_task "$index" "$@"
    ;;
  local)
    [[ "${1:-}" == "--" ]] || usage
    shift
    for ((i = 0; i < shards; ++i)); do run_task "$i" "$@"; done
    ;;
  merge)
    [[ $# -eq 1 ]] || usage
    todo="$(unfinished)"
    [[ -z "$todo" ]] || die "shards not finished: $todo (re-run submit or local; finished shards are kept)"
    files=()
    for ((i = 0; i < shards; ++i)); do files+=("$(shard_file "$i")"); done
    "$cli" merge "$1" "${files[@]}"
    ;;
  *) usage ;;
esac
