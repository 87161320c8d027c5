#!/usr/bin/env python3
"""Grid-search one device's efficiency calibration against `clustersim validate`.

Calibration lives in data (configs/devices/<name>.json, key "efficiency"); this script reproduces how
those numbers were chosen. For every grid point it writes the device entry with the candidate efficiency
into a temporary catalog root placed before the bundled one (`clustersim --configs TMP validate`), and
scores the mean |relative error| of the primary metric of the records of the CALIBRATION split whose
source group (or id) starts with one of --records. Test-split records are never scored: the script
refuses a --records prefix that matches a test record, so the test split stays held out
(docs/validation.md). It prints the best points; --write stores the best in the catalog.

Example (the A100 calibration):
  tools/calibrate.py --device a100-sxm4-80gb --records korthikanti2022,narayanan2021-t1,narayanan2021-t2-ptdp \
      --grid gemm_max=0.70,0.74,0.78,0.82 --grid gemm_half_flops=1e9,4e9,1.6e10 --grid memory=0.6,0.7,0.8
"""
import argparse
import itertools
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUANTITY_KEYS = {"gemm_half_flops": "GFLOP", "kernel_overhead": "us", "op_overhead": "us"}


def render(key, value):
    if key == "gemm_half_flops":
        return f"{value / 1e9:g} GFLOP"
    if key in ("kernel_overhead", "op_overhead"):
        return f"{value * 1e6:g} us"
    return value


def validation_rows(binary, configs, split):
    cmd = [binary] + (["--configs", configs] if configs else []) + ["validate", "--split", split, "--format", "json"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def matches(record, prefixes):
    return any(record["id"].startswith(p) or record["group"].startswith(p) for p in prefixes)


def refuse_test_records(binary, prefixes):
    """Exits when a prefix selects a test-split record (predicted or skipped)."""
    out = validation_rows(binary, None, "test")
    hits = sorted({r["id"] for r in out["rows"] + out["skipped"] if matches(r, prefixes)})
    if hits:
        sys.exit("refusing to calibrate on test-split records (the test split is held out): " + ", ".join(hits[:5]) +
                 (" ..." if len(hits) > 5 else ""))


def score(binary, tmp, prefixes, metric_filter):
    rows = validation_rows(binary, tmp, "calibration")["rows"]
    seen, errors = set(), []
    for r in rows:
        if r["split"] != "calibration" or not matches(r, prefixes) or r["id"] in seen:
            continue
        if metric_filter and r["metric"] not in metric_filter:
            continue
        seen.add(r["id"])
        errors.append(abs(r["rel_error"]))
    if not errors:
        sys.exit("no calibration-split validation rows match --records")
    return sum(errors) / len(errors), max(errors), len(errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", required=True)
    ap.add_argument("--also", default="", help="other device entries that share this calibration (same silicon)")
    ap.add_argument("--records", required=True,
                    help="comma-separated source-group or record-id prefixes (calibration split only)")
    ap.add_argument("--metrics", default="", help="only these metrics (default: first metric of each record)")
    ap.add_argument("--grid", action="append", default=[], help="key=v1,v2,... (efficiency keys)")
    ap.add_argument("--binary", default=str(ROOT / "build/release/tools/clustersim"))
    ap.add_argument("--write", action="store_true", help="store the best point in the catalog")
    args = ap.parse_args()

    devices = [args.device] + [d for d in args.also.split(",") if d]
    entries = {d: json.loads((ROOT / "configs/devices" / f"{d}.json").read_text()) for d in devices}
    keys, values = [], []
    for g in args.grid:
        k, v = g.split("=", 1)
        keys.append(k)
        values.append([float(x) for x in v.split(",")])
    prefixes = args.records.split(",")
    metric_filter = set(m for m in args.metrics.split(",") if m)
    refuse_test_records(args.binary, prefixes)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        (pathlib.Path(tmp) / "devices").mkdir()
        for point in itertools.product(*values):
            for d, entry in entries.items():
                e = json.loads(json.dumps(entry))
                for k, v in zip(keys, point):
                    e["efficiency"][k] = render(k, v)
                (pathlib.Path(tmp) / "devices" / f"{d}.json").write_text(json.dumps(e, indent=2))
            mean, worst, n = score(args.binary, tmp, prefixes, metric_filter)
            results.append((mean, worst, n, point))
    results.sort()
    for mean, worst, n, point in results[:10]:
        print(f"mean {100 * mean:5.2f}%  max {100 * worst:5.2f}%  ({n} records)  " +
              "  ".join(f"{k}={v:g}" for k, v in zip(keys, point)))
    if args.write:
        best = results[0][3]
        for d, entry in entries.items():
            for k, v in zip(keys, best):
                entry["efficiency"][k] = render(k, v)
            entry["calibration"] = (f"tools/calibrate.py grid search on {args.records} "
                                    f"(mean |error| {100 * results[0][0]:.2f}% over {results[0][2]} records)")
            (ROOT / "configs/devices" / f"{d}.json").write_text(json.dumps(entry, indent=2) + "\n")
        print("written:", ", ".join(devices))


if __name__ == "__main__":
    main()
