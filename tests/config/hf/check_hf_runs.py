#!/usr/bin/env python3
"""`clustersim run` predicts the same step for a model given as a Hugging Face config.json as for the
catalog entry of that model.

usage: check_hf_runs.py CLUSTERSIM ROOT

For each family, two experiments that differ only in /model -- the catalog name, and
{"hf_config": tests/config/data/hf/<file>, ...keys beside} -- are run with `--format json`; step time,
memory, MFU, HFU and FLOPs must be equal (same inputs -> same figures, so exactly), the hf_config report
must carry model_notes, and the catalog one none. Mixtral 8x7B from its config.json predicts what the catalog's
mixtral-8x7b predicts; so does the bundled BLOOM-176B config.json (ALiBi) against the catalog's bloom-176b, and
without a seq_len beside it the BLOOM config is one located error, exit 2. Exit 0 when all hold, 1 otherwise.
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


def catalog_and_hf(cli, tmp, name, catalog, hf_model, adjust, failures):
    """Runs the experiment with the catalog model and with the HF config (adjust(exp) edits both); returns
    the two reports, or None after recording the failure."""
    reports = {}
    for label, model in (("catalog", catalog), ("hf_config", hf_model)):
        exp = experiment(model)
        adjust(exp)
        path = tmp / f"{name}-{label}.json"
        path.write_text(json.dumps(exp))
        code, out, err = run(cli, path)
        if code != 0:
            failures.append(f"{name} {label}: exit {code}: {err.strip()}")
            return None
        reports[label] = json.loads(out)
    a, b = reports["catalog"], reports["hf_config"]
    if a["step_time_s"] != b["step_time_s"] or a["memory"] != b["memory"]:
        failures.append(f"{name}: step {a['step_time_s']} s from the catalog, {b['step_time_s']} s from config.json")
        return None
    return a, b


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
        def with_ep8(exp):
            exp["parallelism"]["ep"] = 8
        pair = catalog_and_hf(cli, tmp, "mixtral", "mixtral-8x7b",
                              {"hf_config": str(data / "mixtral-8x7b-v0.1.json"), "seq_len": 4096}, with_ep8, failures)
        if pair:
            print(f"mixtral-8x7b: step {pair[0]['step_time_s']:.6g} s -- equal from mixtral-8x7b-v0.1.json")
        # An ALiBi family: the bundled BLOOM-176B config.json (configs/models/hf/) runs and predicts what the
        # catalog's bloom-176b (the same file, seq_len 2048 beside it) predicts; without seq_len it is one
        # located error, exit 2.
        bloom = root / "configs" / "models" / "hf" / "bloom-176b.json"

        def on_8_gpus(exp):
            exp["parallelism"] = {"tp": 8, "pp": 1, "dp": 1, "zero_stage": 1}
            exp["training"]["global_batch"] = 8
        pair = catalog_and_hf(cli, tmp, "bloom", "bloom-176b", {"hf_config": str(bloom), "seq_len": 2048}, on_8_gpus,
                              failures)
        if pair and not any("word_embeddings_layernorm" in n for n in pair[1].get("model_notes", [])):
            failures.append("bloom: the report's model_notes do not say what is not modelled")
        elif pair:
            print(f"bloom-176b: step {pair[0]['step_time_s']:.6g} s -- equal from configs/models/hf/bloom-176b.json")
        path = tmp / "bloom-no-seq.json"
        path.write_text(json.dumps(experiment({"hf_config": str(bloom)})))
        code, out, err = run(cli, path)
        if code != 2 or "bloom-176b.json" not in err or "no sequence length" not in err:
            failures.append(f"bloom without seq_len: exit {code}, expected 2 and a message located in "
                            f"bloom-176b.json: {err.strip()}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
