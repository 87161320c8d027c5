#!/bin/bash
# tools/fuzz_campaign with a fake fuzzer (tests/tools/fake_config_fuzz.py): a shard with a finding
# mid-segment and a shard with two hangs are each resumed after the hang, every case is counted once, every
# finding is kept, and --sum counts a log with a re-run segment (an older wrapper's bug) once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 30 cases in 3 shards of 10 (seeds 100, 101, 102): seed 100 has a finding at case 4; seed 101 hangs at
# cases 3 and 7; seed 102 is clean.
FAKE_FINDINGS=100:4 FAKE_HANGS=101:3,101:7 timeout 60 python3 "$root/tools/fuzz_campaign" --cases 30 --shards 3 \
  --jobs 2 --seed 100 --nice 0 --poll 0.05 --fuzzer "$here/fake_config_fuzz.py" --out "$out/c" > "$out/run.txt"
rc=$?
cat "$out/run.txt"
[ $rc -eq 124 ] && fail "the campaign did not end (a segment re-run again and again)"
[ $rc -eq 1 ] || fail "exit $rc, expected 1 (there were findings)"
grep -q "^total: 30 cases (30 distinct) in 3 finished shards: 27 ok, 0 refused with a located message, 3 findings;" "$out/run.txt" \
  || fail "wrong total"
# Shard 1 ran three segments: from case 0, from 4 (after the hang at 3) and from 8 (after the hang at 7).
firsts=$(grep "^# " "$out/c/shard-1.log" | grep -o -- "--first [0-9]*" | tr '\n' ' ')
[ "$firsts" = "--first 0 --first 4 --first 8 " ] || fail "shard 1 segments: $firsts"
# Shard 0's finding did not restart it: one segment.
[ "$(grep -c -- "--first" "$out/c/shard-0.log")" = 1 ] || fail "shard 0 was re-run"
[ -f "$out/c/findings/seed101-case3.json" ] && [ -f "$out/c/findings/seed101-case7.json" ] || fail "hang cases not saved"

# A sanitizer report ends config_fuzz as a hang does: the shard resumes after the case, which is counted once
# as a finding.
FAKE_SANITIZER=200:5 timeout 60 python3 "$root/tools/fuzz_campaign" --cases 10 --shards 1 --jobs 1 --seed 200 \
  --nice 0 --poll 0.05 --fuzzer "$here/fake_config_fuzz.py" --out "$out/s" > "$out/san.txt"
cat "$out/san.txt"
grep -q "^total: 10 cases (10 distinct) in 1 finished shards: 9 ok, 0 refused with a located message, 1 findings;" "$out/san.txt" \
  || fail "a shard stopped by a sanitizer report was not resumed after the case"
[ "$(grep "^# " "$out/s/shard-0.log" | grep -o -- "--first [0-9]*" | tr '\n' ' ')" = "--first 0 --first 6 " ] \
  || fail "the shard stopped by a sanitizer report did not resume at case 6"

# A sanitizer report after the tally (LeakSanitizer at exit) is one more finding of the shard.
FAKE_LEAK=300:0 timeout 60 python3 "$root/tools/fuzz_campaign" --cases 10 --shards 1 --jobs 1 --seed 300 \
  --nice 0 --poll 0.05 --fuzzer "$here/fake_config_fuzz.py" --out "$out/l" > "$out/leak.txt"
cat "$out/leak.txt"
grep -q "^total: 10 cases (10 distinct) in 1 finished shards: 10 ok, 0 refused with a located message, 1 findings;" "$out/leak.txt" \
  || fail "a sanitizer report after the tally was not counted"

# --sum on a log where a segment was re-run (as the wrapper before this fix did): each case once.
mkdir "$out/old"
sed -n '/--first 4 /,/^# exit/p' "$out/c/shard-1.log" > "$out/again.txt"
cat "$out/c/shard-1.log" "$out/again.txt" "$out/again.txt" > "$out/old/shard-1.log"
python3 "$root/tools/fuzz_campaign" --sum "$out/old" > "$out/sum.txt"
cat "$out/sum.txt"
grep -q "^shard-1.log: seed 101: 10 cases, 8 ok, 0 refused, 2 findings, 10 distinct.*2 re-run segment(s) not counted again" "$out/sum.txt" \
  || fail "a re-run segment was counted again"
# A shard whose last segment has no tally and no exit line is still running: not finished.
head -n 1 "$out/c/shard-2.log" > "$out/old/shard-2.log"
python3 "$root/tools/fuzz_campaign" --sum "$out/old" | grep -q "^shard-2.log: not finished; running from case 0" \
  || fail "a running shard is not reported as not finished"
# --resume: a campaign stopped part-way (shard 2 ran 4 of its cases, then its run was killed) keeps its
# finished shards and runs only shard 2's remaining cases; the sum is the whole campaign, each case once.
mkdir "$out/r"
cp "$out/c/shard-0.log" "$out/c/shard-1.log" "$out/r/"
{ head -n 1 "$out/c/shard-2.log"; echo "4 cases (seed 102, first 0) in 1.0 s: 4 ok, 0 refused with a located message, 0 findings"; \
  echo "distinct cases run: 4 (0 repeats of an earlier identical case counted with its outcome)"; echo "# exit -9"; \
  head -n 1 "$out/c/shard-2.log" | sed 's/--cases 10 /--cases 6 /; s/--first 0 /--first 4 /'; } > "$out/r/shard-2.log"
FAKE_FINDINGS=100:4 FAKE_HANGS=101:3,101:7 timeout 60 python3 "$root/tools/fuzz_campaign" --cases 30 --shards 3 \
  --jobs 2 --seed 100 --nice 0 --poll 0.05 --fuzzer "$here/fake_config_fuzz.py" --out "$out/r" --resume > "$out/resume.txt"
cat "$out/resume.txt"
cmp "$out/c/shard-0.log" "$out/r/shard-0.log" || fail "a finished shard was run again"
[ "$(grep "^# " "$out/r/shard-2.log" | grep -o -- "--first [0-9]*" | tr '\n' ' ')" = "--first 0 --first 4 --first 4 " ] \
  || fail "shard 2 did not resume after its last tally"
grep -q "^total: 30 cases (30 distinct) in 3 finished shards: 27 ok, 0 refused with a located message, 3 findings;" "$out/resume.txt" \
  || fail "wrong total after --resume"
echo PASS
