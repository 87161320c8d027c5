#!/bin/bash
# tools/fuzz --replay with a stand-in CLI that answers like a build whose sanitizer recovers: a UBSan report
# line on standard error, then exit 0 with a clean report. The case is a finding (a sanitizer report), and
# the same CLI without the line passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$out/corpus"
echo '{"args": ["schema"], "files": {}}' > "$out/corpus/case.json"
cat > "$out/cli" <<'CLI'
#!/bin/sh
[ -n "${FAKE_UBSAN:-}" ] && echo "sim/x.cpp:12:5: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'" >&2
echo "ok 1 s"
exit 0
CLI
chmod +x "$out/cli"
python3 "$root/tools/fuzz" --replay "$out/corpus" --cli "$out/cli" > "$out/clean.txt" 2>&1 || { cat "$out/clean.txt"; fail "the clean CLI was flagged"; }
FAKE_UBSAN=1 python3 "$root/tools/fuzz" --replay "$out/corpus" --cli "$out/cli" > "$out/ubsan.txt" 2>&1
rc=$?
cat "$out/ubsan.txt"
[ $rc -eq 1 ] || fail "exit $rc with a sanitizer report, expected 1"
grep -q "after a sanitizer report: sim/x.cpp:12:5: runtime error: signed integer overflow" "$out/ubsan.txt" \
  || fail "the sanitizer report was not named"
# A replay of a directory without cases (a mistyped path) fails instead of reporting "0 findings".
if python3 "$root/tools/fuzz" --replay "$out/no-such-corpus" --cli "$out/cli" > "$out/empty.txt" 2>&1; then
  cat "$out/empty.txt"; fail "a replay of no cases passed"
fi
grep -q "no case files" "$out/empty.txt" || fail "the empty replay did not say why it failed"
echo PASS
