#!/usr/bin/env python3
"""The clustersim Python module returns what the CLI prints: run() equals `clustersim run --format
json`, sweep() yields the rows of `clustersim sweep -o x.jsonl`, bad input raises ConfigError (a
ValueError) whose diagnostics name the file and JSON pointer.

usage: PYTHONPATH=build/release/python python_api_test.py PATH/TO/clustersim
"""
import json
import os
import subprocess
import sys
import tempfile

import clustersim

CLI = sys.argv[1] if len(sys.argv) > 1 else "clustersim"
EXPERIMENT = "gpt2-1b-a100-8gpu"


def cli_json(*args):
    return json.loads(subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout)


def test_version():
    assert clustersim.version() == cli_version(), clustersim.version()


def cli_version():
    out = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True).stdout
    return out.split()[1]


def test_run_equals_the_cli_json():
    r = clustersim.run(EXPERIMENT)
    cli = cli_json("run", EXPERIMENT, "--format", "json")
    assert r["step_time_s"] == cli["step_time_s"], (r["step_time_s"], cli["step_time_s"])
    assert r == cli


def test_run_with_overrides_and_a_dict():
    r = clustersim.run(EXPERIMENT, {"/parallelism/pp": 2, "/parallelism/dp": 4, "/training/recompute": "full"})
    cli = cli_json("run", EXPERIMENT, "--format", "json", "--set", "/parallelism/pp=2", "--set", "/parallelism/dp=4",
                   "--set", "/training/recompute=full")
    assert r == cli
    assert r["experiment"]["parallelism"]["pp"] == 2 and r["hfu"] > r["mfu"]
    # The same experiment given as a dict (its resolved echo) predicts the same step.
    again = clustersim.run(r["experiment"])
    assert again["step_time_s"] == r["step_time_s"]


def test_sweep_of_three_points_equals_the_cli_rows():
    sweep = clustersim.sweep(EXPERIMENT, {"/training/micro_batch": [1, 2, 4]})
    assert len(sweep) == 3
    rows = list(sweep)
    assert [row["index"] for row in rows] == [0, 1, 2]
    assert [row["status"] for row in rows] == ["ok"] * 3, rows
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rows.jsonl")
        subprocess.run([CLI, "sweep", EXPERIMENT, "--vary", "/training/micro_batch=1,2,4", "-o", out], check=True,
                       capture_output=True)
        cli_rows = [json.loads(l) for l in open(out)]
    assert rows == cli_rows, (rows, cli_rows)
    single = clustersim.run(EXPERIMENT, {"/training/micro_batch": 2})
    assert rows[1]["step_time_s"] == single["step_time_s"]
    assert len({row["step_time_s"] for row in rows}) == 3, "the axis changed nothing"


def test_config_error_carries_its_pointer():
    try:
        clustersim.run(EXPERIMENT, {"/parallelism/tp": 3})
    except clustersim.ConfigError as e:
        assert isinstance(e, ValueError)
        assert e.diagnostics and all(len(d) == 3 for d in e.diagnostics), e.diagnostics
        pointers = [d[1] for d in e.diagnostics]
        assert any(p.startswith("/parallelism") for p in pointers), e.diagnostics
        assert "/parallelism" in str(e)
    else:
        raise AssertionError("tp=3 was accepted")
    try:
        clustersim.run(EXPERIMENT, {"/parallelism/tq": 2})
    except clustersim.ConfigError as e:
        assert ("<--set>", "/parallelism/tq") in [(d[0], d[1]) for d in e.diagnostics], e.diagnostics
    else:
        raise AssertionError("an unknown key was accepted")
    try:
        clustersim.run("no-such-experiment-anywhere")
    except ValueError as e:
        assert "no-such-experiment-anywhere" in str(e)
    else:
        raise AssertionError("a missing experiment was accepted")


def test_bad_sweep_axis_raises():
    try:
        list(clustersim.sweep(EXPERIMENT, {"/parallelism/tpp": [1, 2]}))
    except clustersim.ConfigError as e:
        assert any(d[1] == "/parallelism/tpp" for d in e.diagnostics), e.diagnostics
    else:
        raise AssertionError("an unknown axis was accepted")


def test_plan_equals_the_cli():
    p = clustersim.plan(EXPERIMENT, devices=8, top=3)
    cli = cli_json("plan", EXPERIMENT, "--devices", "8", "--top", "3", "--format", "json")
    drop = ("seconds",)
    strip = lambda d: {k: v for k, v in d.items() if k not in drop} if isinstance(d, dict) else d
    assert strip(p) == strip(cli), (list(p), list(cli))
    # memory_limit is --memory-limit as a fraction.
    p = clustersim.plan(EXPERIMENT, devices=8, top=3, memory_limit=0.5)
    cli = cli_json("plan", EXPERIMENT, "--devices", "8", "--top", "3", "--format", "json", "--memory-limit", "50%")
    assert strip(p) == strip(cli)
    assert p["memory_limit"]["share_of_device_memory"] == 0.5


def test_validate_runs_the_corpus():
    v = clustersim.validate()
    cli = cli_json("validate", "--format", "json")
    assert v == cli


def test_record_experiment_reproduces_the_validate_prediction():
    v = clustersim.validate()
    rows = {r["id"]: r for r in v["rows"]}
    # one record as it is, one built with a node override (a job smaller than a node)
    for rid in ("bigscience-2022-tr11-readme-bloom176b-gbs2048-384gpu", "megatron-readme2020-dgx2-v100-mp-1b"):
        d = clustersim.record_experiment(rid)
        assert sorted(d) == ["assumptions", "experiment", "metric", "overrides", "peak_tflops"], sorted(d)
        assert d["metric"] == "step_time_s" and d["peak_tflops"] is None, d
        assert rows[rid]["metric"] == "step_time_s", rows[rid]
        r = clustersim.run(d["experiment"], d["overrides"] or None)
        assert r["step_time_s"] == rows[rid]["predicted"], (rid, r["step_time_s"], rows[rid]["predicted"])
    assert clustersim.record_experiment("megatron-readme2020-dgx2-v100-mp-1b")["overrides"] == {
        "/cluster/node/devices_per_node": "1"}
    # An MFU row against the record's stated peak: validate divides the model TFLOP/s by that peak.
    mfu = [r for r in v["rows"] if r["metric"] == "mfu" and r["group"] == "moe-parallel-folding-2025"][0]
    d = clustersim.record_experiment(mfu["id"])
    assert d["metric"] == "mfu" and d["peak_tflops"] > 0, d
    r = clustersim.run(d["experiment"], d["overrides"] or None)
    assert abs(r["tflops_per_device"] / d["peak_tflops"] - mfu["predicted"]) <= 1e-12 * mfu["predicted"], (
        r["tflops_per_device"], d["peak_tflops"], mfu["predicted"])
    for bad, text in (("nope", 'no record with id "nope"'),
                      ("llama3-2024-t4-405b-8k-gpu-seq8k", "is skipped, so it has no experiment")):
        try:
            clustersim.record_experiment(bad)
        except clustersim.ConfigError as e:
            assert text in str(e), str(e)
        else:
            raise AssertionError("record_experiment(%r) returned" % bad)


def test_catalog_roots_include_extra_configs():
    with tempfile.TemporaryDirectory() as d:
        roots = clustersim.catalog_roots(configs=d)
        assert roots[0] == d and len(roots) >= 2, roots



def test_flow_engine_availability_matches_the_cli():
    out = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True).stdout
    assert clustersim.flow_engine_available() == ("\nflow engine: built (" in out), out
    if clustersim.flow_engine_available():
        return
    # A build without the flow engine: a flow run raises ValueError with the CLI's reason, never a crash.
    try:
        clustersim.run(EXPERIMENT, engine="flow")
    except ValueError as e:
        assert "this build has no flow engine" in str(e) and "docs/integrations.md" in str(e), str(e)
    else:
        raise AssertionError("a flow run in a build without the flow engine returned")


if __name__ == "__main__":
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            fn()
            print("ok", name)
