#!/usr/bin/env python3
"""`clustersim run` predicts the same step for a model given as a Hugging Face config.json as for the
catalog entry of that model.

usage: check_hf_runs.py CLUSTERSIM ROOT

For each family, two experiments that differ only in /model -- the catalog name, and
{"hf_config": tests/config/data/hf/<file>, ...keys beside} -- are run with `--format json`; step time,
memory, MFU, HFU and FLOPs must be equal (same inputs -> same figures, so exactly), the hf_config report
must carry model_notes, and the catalog one none. A Mixtral config must be refused with exit 2 and the
pointer of its expert count. Exit 0 when all hold, 1 otherwise.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

CASES = [
    # (HF file, catalog model, keys beside hf_config)
    ("llama-2-7b.json", "llama2-7b", {}),
    ("meta-llama-3-8b.json", "llama3-8b", {}),
    ("mistral-7b-v0.1.json", "mistral-7b", {"seq_len": 8192}),
    ("qwen2-7b.json", "qwen2-7b", {"seq_len": 4096}),
    ("gpt-neox-20b.json", "gpt-neox-20b", {}),
    ("gpt2-xl.json", "gpt2-xl", {}),
]
COMPARED = ["step_time_s", "memory", "mfu", "hfu", "model_flops_per_step", "hardware_flops_per_step",
            "tokens_per_s", "communication_exposed_s", "bubble_fraction"]


def experiment(model):
    return {
        "schema_version": 1,
        "name": "hf-check",
        "cluster": "a100-1node",
        "model": model,
        "parallelism": {"tp": 1, "pp": 1, "dp": 8, "zero_stage": 1},
        "training": {"micro_batch": 1, "global_batch": 16, "seq_len": 2048, "precision": "bf16",
                     "recompute": "full"},
    }


def run(cli, path):
    p = subprocess.run([cli, "run", str(path), "--format", "json"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    cli, root = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    data = root / "tests" / "config" / "data" / "hf"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for hf_file, catalog, beside in CASES:
            hf_model = dict(beside, hf_config=str(data / hf_file))
            reports = {}
            for label, model in (("catalog", catalog), ("hf_config", hf_model)):
                path = tmp / f"{catalog}-{label}.json"
                path.write_text(json.dumps(experiment(model)))
                code, out, err = run(cli, path)
                if code != 0:
                    failures.append(f"{catalog} ({label}): exit {code}: {err.strip()}")
                    break
                reports[label] = json.loads(out)
            if len(reports) != 2:
                continue
            for key in COMPARED:
                a, b = reports["catalog"].get(key), reports["hf_config"].get(key)
                if a != b:
                    failures.append(f"{catalog}: /{key} differs: catalog {a} vs hf_config {b}")
            if not reports["hf_config"].get("model_notes"):
                failures.append(f"{catalog}: the hf_config report has no model_notes")
            if catalog != "llama2-7b" and "model_notes" in reports["catalog"]:
                failures.append(f"{catalog}: the catalog report has model_notes")
            print(f"{catalog}: step {reports['catalog']['step_time_s']:.6g} s, "
                  f"MFU {reports['catalog']['mfu']:.4f} -- equal from {hf_file}")

        # A MoE config: Mixtral 8x7B from its config.json equals the catalog's mixtral-8x7b (ep 8).
        reports = {}
        for label, model in (("catalog", "mixtral-8x7b"),
                             ("hf_config", {"hf_config": str(data / "mixtral-8x7b-v0.1.json"), "seq_len": 4096})):
            exp = experiment(model)
            exp["parallelism"]["ep"] = 8
            path = tmp / f"mixtral-{label}.json"
            path.write_text(json.dumps(exp))
            code, out, err = run(cli, path)
            if code != 0:
                failures.append(f"mixtral {label}: exit {code}: {err.strip()}")
                break
            reports[label] = json.loads(out)
        if len(reports) == 2:
            a, b = reports["catalog"], reports["hf_config"]
            if a["step_time_s"] != b["step_time_s"] or a["memory"] != b["memory"]:
                failures.append(f"mixtral: step {a['step_time_s']} s from the catalog, {b['step_time_s']} s "
                                f"from config.json")
            else:
                print(f"mixtral-8x7b: step {a['step_time_s']:.6g} s -- equal from mixtral-8x7b-v0.1.json")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
