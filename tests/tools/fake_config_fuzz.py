#!/usr/bin/env python3
"""A stand-in for config_fuzz in the test of tools/fuzz_campaign: prints config_fuzz's tally lines.

Every case is ok except: FAKE_FINDINGS="SEED:CASE,..." are findings reported mid-segment (the run goes on
and exits 1), FAKE_HANGS="SEED:CASE,..." are hangs (the run saves the case, prints its tally with the hung
case counted as a finding and "stopped by a hang at case N", and exits 1, as config_fuzz's watchdog does);
FAKE_SANITIZER="SEED:CASE,..." end the run the same way with "stopped by a sanitizer report at case N" (as
config_fuzz's sanitizer death callback does); FAKE_LEAK="SEED:FIRST,..." print config_fuzz's line for a report
outside a case after the tally of the segment starting at FIRST (LeakSanitizer at exit).
"""
import argparse
import json
import os
import pathlib
import sys

ap = argparse.ArgumentParser()
for o in ("--cases", "--seed", "--first"):
    ap.add_argument(o, type=int, required=True)
ap.add_argument("--budget")
ap.add_argument("--save")
a = ap.parse_args()


def marked(var):
    return {tuple(int(x) for x in p.split(":")) for p in os.environ.get(var, "").split(",") if p}


findings, hangs, reports = marked("FAKE_FINDINGS"), marked("FAKE_HANGS"), marked("FAKE_SANITIZER")
ok = found = ran = 0
for i in range(a.first, a.first + a.cases):
    ran += 1
    if (a.seed, i) in hangs or (a.seed, i) in reports:
        why = "a hang" if (a.seed, i) in hangs else "a sanitizer report"
        if a.save:
            pathlib.Path(a.save).mkdir(parents=True, exist_ok=True)
            (pathlib.Path(a.save) / f"seed{a.seed}-case{i}.json").write_text(json.dumps({"args": [], "files": {}}))
        print(f"FINDING case {i} (seed {a.seed}): {why}")
        print(f"{ran} cases (seed {a.seed}, first {a.first}) in 1.0 s: {ok} ok, 0 refused with a located message, "
              f"{found + 1} findings")
        print(f"distinct cases run: {ran} (0 repeats of an earlier identical case counted with its outcome)")
        print(f"stopped by {why} at case {i}: resume with --first {i + 1}")
        sys.exit(1)
    if (a.seed, i) in findings:
        found += 1
        print(f"FINDING case {i} (seed {a.seed}): exit 1: internal error")
    else:
        ok += 1
print(f"{ran} cases (seed {a.seed}, first {a.first}) in 1.0 s: {ok} ok, 0 refused with a located message, "
      f"{found} findings")
print(f"distinct cases run: {ran} (0 repeats of an earlier identical case counted with its outcome)")
print(f"by command: run {ran}")
print(f"CPU seconds by command: run {0.01 * ran:.1f} (10.0 ms per case)")
if (a.seed, a.first) in marked("FAKE_LEAK"):  # LeakSanitizer's check at exit, after the tally
    print("FINDING a sanitizer report outside a case (above)")
    sys.exit(1)
sys.exit(1 if found else 0)
