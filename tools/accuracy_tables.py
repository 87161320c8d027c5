#!/usr/bin/env python3
"""Writes the measured accuracy into the README's tables and the test's gates, so the two stay equal.

    tools/accuracy_tables.py [--cli build/release/tools/clustersim] [--write]

Runs `clustersim validate --format json` on the bundled corpus and prints, per split (test first), the
per-source-group table (records in the corpus, records predicted, mean and max |error|). With --write it
replaces the tables between `<!-- BEGIN ACCURACY: <split> -->` / `<!-- END ACCURACY -->` in README.md
and the gate list between `// BEGIN GATES` / `// END GATES` in tests/report/validation_accuracy_test.cpp
(bounds = measured figures rounded up to the next half percent; predicted counts exact).
"""
import argparse
import collections
import json
import math
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def up_half(x):
    return math.ceil(x * 2 - 1e-9) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(ROOT / "build/release/tools/clustersim"))
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    v = json.loads(subprocess.run([a.cli, "validate", "--format", "json"], check=True, capture_output=True,
                                  text=True, cwd=ROOT).stdout)
    # validate reads the step records and, beside them, the MoE records (moe_runs.json)
    corpus = [r for name in ("published_runs.json", "moe_runs.json")
              for r in json.load(open(ROOT / "configs/reference" / name))]
    in_corpus = collections.Counter((r["split"], r["source_group"]) for r in corpus)
    tables, gates = {}, []
    for s in v["summary"]:
        split = s["split"]
        lines = ["| source group | records | predicted | mean \\|error\\| | max \\|error\\| |",
                 "|---|---:|---:|---:|---:|"]
        for g in s["groups"]:
            mean, mx = 100 * g["mean_abs_error"], 100 * g["max_abs_error"]
            lines.append(f"| `{g['group']}` | {in_corpus[(split, g['group'])]} | {g['rows']} | {mean:.1f} % | {mx:.1f} % |")
            gates.append(f'    {{"{split}", "{g["group"]}", {g["rows"]}, {up_half(mean):.1f}, {up_half(mx):.1f}}},')
        mean, mx = 100 * s["mean_abs_error"], 100 * s["max_abs_error"]
        total = sum(n for (sp, _), n in in_corpus.items() if sp == split)
        lines.append(f"| **all {split}** | {total} | {s['rows']} | **{mean:.1f} %** | {mx:.1f} % |")
        gates.append(f'    {{"{split}", "", {s["rows"]}, {up_half(mean):.1f}, {up_half(mx):.1f}}},')
        tables[split] = "\n".join(lines)
    # The README's counts beside the tables: rows above 30 %, skipped records and rows whose configuration
    # the memory model says does not fit, per split, gated exactly.
    counts = {}
    for split in ("test", "calibration"):
        counts[split] = (sum(1 for r in v["rows"] if r["split"] == split and abs(r["rel_error"]) > 0.30),
                         sum(1 for r in v["skipped"] if r["split"] == split),
                         sum(1 for r in v["rows"] if r["split"] == split and not r["fits_memory"]))
    count_lines = [f'    {{"{split}", {above}, {skipped}, {over}}},'
                   for split, (above, skipped, over) in counts.items()]
    for split, t in tables.items():
        print(f"{split}:\n{t}\n")
    for split, (above, skipped, over) in counts.items():
        print(f"{split}: {above} rows above 30 %, {skipped} records skipped, {over} rows not fitting in memory")
    if not a.write:
        return
    readme = (ROOT / "README.md").read_text()
    for split, t in tables.items():
        readme, n = re.subn(rf"(<!-- BEGIN ACCURACY: {split} -->\n).*?(<!-- END ACCURACY -->)",
                            lambda m: m.group(1) + t + "\n" + m.group(2), readme, flags=re.S)
        if n != 1:
            raise SystemExit(f"README.md: no ACCURACY markers for {split}")
    (ROOT / "README.md").write_text(readme)
    test = ROOT / "tests/report/validation_accuracy_test.cpp"
    text, n = re.subn(r"(// BEGIN GATES[^\n]*\n).*?(    // END GATES)", lambda m: m.group(1) + "\n".join(gates) + "\n" + m.group(2),
                      test.read_text(), flags=re.S)
    if n != 1:
        raise SystemExit("validation_accuracy_test.cpp: no GATES markers")
    text, n = re.subn(r"(// BEGIN COUNTS[^\n]*\n).*?(    // END COUNTS)",
                      lambda m: m.group(1) + "\n".join(count_lines) + "\n" + m.group(2), text, flags=re.S)
    if n != 1:
        raise SystemExit("validation_accuracy_test.cpp: no COUNTS markers")
    test.write_text(text)


if __name__ == "__main__":
    main()
