#!/usr/bin/env bash
# Regenerates the golden reports that tests/golden checks (`clustersim run NAME --format json` of every
# bundled experiment, and a flow-engine run of a few). Review the diff before committing: a moved figure
# is a model change that needs a reason.
#   tools/regen_golden.sh [BUILD_DIR]      (default build/release, clustersim target built)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$root/build/release}/tools/clustersim"
[[ -x "$cli" ]] || { echo "build the clustersim target first (cmake --build --preset release)" >&2; exit 2; }
cd "$root"
for f in configs/experiments/*.json; do
  name="$(basename "$f" .json)"
  "$cli" run "$name" --format json > "tests/golden/$name.json"
done
# Flow-engine goldens: keep this list in sync with tests/golden/CMakeLists.txt.
for name in gpt2-1b-a100-8gpu gpt2-1b-ps-a100-32 llama2-70b-h100-dragonfly; do
  "$cli" run "$name" --engine flow --format json > "tests/golden/flow/$name.json"
done
git status --short tests/golden
