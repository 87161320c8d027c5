#!/usr/bin/env python3
"""The CLI conventions users expect, one check per convention:

1. global options are accepted after the subcommand: `run X --configs DIR` (and sweep, plan, report) finds
   a model that only DIR holds, exactly as `--configs DIR run X` does;
2. the program's and every subcommand's --help list the global options (--configs) and the exit codes;
3. NO_COLOR: no output has terminal escape sequences, on a pipe or a terminal (pty), with NO_COLOR set or
   not, and setting it changes nothing;
4. the exit codes --help documents are the ones returned: 0 ok, 2 bad input, 3 a failed check.

usage: cli_conventions_test.py PATH/TO/clustersim
"""
import json
import os
import pathlib
import pty
import re
import select
import subprocess
import sys
import tempfile

CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "clustersim"
CONFIGS = pathlib.Path("configs")


def run(args, env=None, **kw):
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=env, **kw)


def subcommands():
    text = run(["--help"]).stdout
    section = re.split(r"^subcommands:", text, flags=re.M | re.I)[1].split("\n\n", 1)[0]
    names = re.findall(r"^\s{2}(\S+)\s", section, flags=re.M)
    assert len(names) >= 10, names
    return names


def catalog_only_experiment(workdir):
    """An experiment whose model lives only in an extra catalog root."""
    root = workdir / "extra"
    (root / "models").mkdir(parents=True)
    model = json.loads((CONFIGS / "models" / "gpt2-xl.json").read_text())
    model["name"] = "only-in-extra-root"
    (root / "models" / "only-in-extra-root.json").write_text(json.dumps(model))
    exp = json.loads((CONFIGS / "experiments" / "gpt2-1b-a100-8gpu.json").read_text())
    exp["name"] = "extra-root-experiment"
    exp["model"] = "only-in-extra-root"
    path = workdir / "exp.json"
    path.write_text(json.dumps(exp))
    return str(root), str(path)


def test_global_options_after_subcommand(workdir):
    root, exp = catalog_only_experiment(workdir)
    missing = run(["run", exp, "--format", "json"])
    assert missing.returncode == 2 and "only-in-extra-root" in missing.stderr, missing.stderr
    before = run(["--configs", root, "run", exp, "--format", "json"])
    after = run(["run", exp, "--configs", root, "--format", "json"])
    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    assert json.loads(after.stdout)["experiment"]["model"]["name"] == "only-in-extra-root"
    out = workdir / "rows.csv"
    sweep = run(["sweep", exp, "--vary", "/training/micro_batch=1,2", "-o", str(out), "--configs", root])
    assert sweep.returncode == 0 and out.read_text().count("\n") == 3, sweep.stderr
    plan = run(["plan", exp, "--top", "1", "--threads", "1", "--configs", root])
    assert plan.returncode == 0, plan.stderr
    page = workdir / "r.html"
    report = run(["report", exp, "-o", str(page), "--configs", root])
    assert report.returncode == 0 and page.stat().st_size > 0, report.stderr
    print("ok 1: run/sweep/plan/report X --configs DIR find DIR's model; run's output equals --configs DIR run X")


def test_help_lists_globals_and_exit_codes():
    names = subcommands()
    for args in [["--help"]] + [[n, "--help"] for n in names]:
        r = run(args)
        assert r.returncode == 0, (args, r.stderr)
        assert "--configs" in r.stdout, f"{' '.join(args)} does not list --configs"
        assert "Exit codes: 0 ok, 1 internal error" in r.stdout, f"{' '.join(args)} does not list the exit codes"
        assert r.stdout.count("Exit codes:") == 1, f"{' '.join(args)} lists the exit codes more than once"
        assert "2 bad input" in r.stdout and "3 a check failed" in r.stdout
    print(f"ok 2: --help of the program and of its {len(names)} subcommands lists --configs and the exit codes once")


def on_pty(args, env):
    """Runs the CLI with stdout and stderr on a pseudo-terminal; returns everything it wrote."""
    master, slave = pty.openpty()
    p = subprocess.Popen([CLI, *args], stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=60)
    os.close(master)
    return p.returncode, out


def test_no_escape_sequences(workdir):
    plain = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    nocolor = dict(plain, NO_COLOR="1")
    commands = [["run", "gpt2-1b-a100-8gpu"], ["validate", "--format", "text"], ["topo", "gpt3-175b-a100-1024"],
                ["collective", "--cluster", "a100-1node", "--op", "all_reduce"],
                ["plan", "gpt2-1b-a100-8gpu", "--top", "2", "--threads", "1"],
                ["run", "no-such-experiment"],
                ["sweep", "gpt2-1b-a100-8gpu", "--vary", "/training/micro_batch=1,2", "-o", str(workdir / "s.csv")]]
    for args in commands:
        a = subprocess.run([CLI, *args], capture_output=True, env=plain)
        b = subprocess.run([CLI, *args], capture_output=True, env=nocolor)
        for stream in (a.stdout, a.stderr, b.stdout, b.stderr):
            assert b"\x1b" not in stream, f"escape sequence in the output of {' '.join(args)}"
        assert a.stdout == b.stdout and a.returncode == b.returncode, f"NO_COLOR changes {' '.join(args)}"
    for args in (["run", "gpt2-1b-a100-8gpu"], commands[-1]):
        for env in (plain, nocolor):
            code, out = on_pty(args, env)
            assert code == 0, out[-2000:]
            assert b"\x1b" not in out, f"escape sequence on a terminal from {' '.join(args)}"
    print(f"ok 3: {len(commands)} commands, piped and on a terminal, with and without NO_COLOR: no escape sequence")


def test_exit_codes(workdir):
    assert run(["run", "gpt2-1b-a100-8gpu"]).returncode == 0
    assert run(["run", "no-such-experiment"]).returncode == 2
    assert run(["run", "gpt2-1b-a100-8gpu", "--no-such-option"]).returncode == 2
    assert run(["run", "gpt2-1b-a100-8gpu", "--set", "/parallelism/tp=3"]).returncode == 2
    assert run(["run", "gpt2-1b-a100-8gpu", "--trace", "/nonexistent-dir/x.json"]).returncode == 2
    assert run([]).returncode == 2  # a subcommand is required
    a = run(["run", "gpt2-1b-a100-8gpu", "--format", "json"]).stdout
    b = run(["run", "gpt2-1b-a100-8gpu", "--format", "json", "--set", "/training/micro_batch=2"]).stdout
    (workdir / "a.json").write_text(a)
    (workdir / "b.json").write_text(b)
    assert run(["compare", str(workdir / "a.json"), str(workdir / "a.json")]).returncode == 0
    assert run(["compare", str(workdir / "a.json"), str(workdir / "b.json")]).returncode == 3
    print("ok 4: exit codes 0 (ok), 2 (bad input, unknown option, unwritable output), 3 (compare differs)")


def main():
    with tempfile.TemporaryDirectory() as d:
        workdir = pathlib.Path(d)
        test_global_options_after_subcommand(workdir)
        test_help_lists_globals_and_exit_codes()
        test_no_escape_sequences(workdir)
        test_exit_codes(workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
