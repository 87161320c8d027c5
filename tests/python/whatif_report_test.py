#!/usr/bin/env python3
"""`clustersim report --sweep ROWS -o page.html` and `report --plan PLAN.json -o page.html` write one
self-contained HTML page with a heat map and a Pareto front. The page renders in headless Chromium without
console messages, and every number it shows equals what this script recomputes on its own from the sweep's
CSV / JSON Lines rows or the plan's JSON: each heat-map cell is the best row of its (x, y) pair, the front
is the set of non-dominated rows. Bad axes and files that are not sweep output exit 2 naming the problem.
Skips the browser part (exit 77) when /usr/bin/chromium is absent, after the checks that need no browser.

usage: whatif_report_test.py PATH/TO/clustersim [--keep DIR]   (--keep also writes screenshots there)
"""
import csv
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from browser import CHROMIUM, chromium

CLI = sys.argv[1] if len(sys.argv) > 1 else "clustersim"
KEEP = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
HIGHER_IS_BETTER = ("mfu", "hfu", "tokens_per_s", "tflops", "headroom", "goodput", "throughput")


class Dom(html.parser.HTMLParser):
    """Heat-map cells (data-x, data-y, data-value, text), front-table rows and the render markers."""

    def __init__(self):
        super().__init__()
        self.ids, self.cells, self.front, self.reasons = {}, [], [], []
        self.cell, self.row, self.capture, self.in_reasons = None, None, None, False
        self.memory_note = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
        cls = a.get("class", "")
        if tag == "p" and a.get("id") == "memory-limit":
            self.memory_note = {"text": ""}
            self.capture = self.memory_note
        if tag == "ul" and a.get("id") == "invalid-reasons":
            self.in_reasons = True
        elif tag == "li" and self.in_reasons:
            self.reasons.append({"text": ""})
            self.capture = self.reasons[-1]
        if cls == "hm-cell":
            self.cell = {"x": a["data-x"], "y": a["data-y"], "index": a["data-index"], "value": None, "text": ""}
        elif cls == "hm-value" and self.cell is not None:
            self.cell["value"] = a.get("data-value")
            self.capture = self.cell
        elif cls == "front-row":
            self.row = {"index": a["data-index"], "values": []}
        elif tag == "td" and self.row is not None and "data-value" in a:
            self.row["values"].append([a["data-key"], a["data-value"], ""])
            self.capture = self.row["values"][-1]

    def handle_endtag(self, tag):
        if tag == "g" and self.cell is not None:
            self.cells.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.front.append(self.row)
            self.row = None
        if tag == "ul":
            self.in_reasons = False
        if tag in ("text", "td", "li", "p"):
            self.capture = None

    def handle_data(self, data):
        if isinstance(self.capture, dict):
            self.capture["text"] += data
        elif isinstance(self.capture, list):
            self.capture[2] += data


def number(text):
    return float(text.replace(",", ""))


def close(shown, value):
    """The page prints 4 significant digits (or the integer when >= 1e4)."""
    return abs(number(shown) - value) <= 5e-4 * abs(value) + 1e-12


def run(args, **kw):
    return subprocess.run([CLI, *args], capture_output=True, text=True, **kw)


def self_contained(source):
    code = re.sub(r'<script type="application/json".*?</script>', "", source, flags=re.S)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", code), "page loads an external resource"
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", code), "page names a URL"
    assert "@import" not in code and "url(" not in code


def embedded(source):
    m = re.search(r'<script type="application/json" id="whatif-json">(.*?)</script>', source, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1).replace("<\\/", "</"))


def front_of(points):
    """Non-dominated (x, y) points, both minimised: by x then y, kept when y is below all before."""
    best, out = float("inf"), []
    for p in sorted(points, key=lambda p: (p[1], p[2], p[0])):
        if p[2] < best:
            out.append(p)
            best = p[2]
    return out


def sweep_rows(path):
    if path.endswith(".jsonl"):
        rows = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
        return list(rows[0].keys()), [{k: ("" if v is None else (v if isinstance(v, str) else json.dumps(v)))
                                       for k, v in r.items()} for r in rows]
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def expected_sweep(path, x, y, z, px, py):
    cols, rows = sweep_rows(path)
    maximise = any(p in z for p in HIGHER_IS_BETTER)
    cells = {}
    for r in rows:
        key = (r[x], r[y])
        if r["status"] != "ok" or r[z] == "":
            cells.setdefault(key, None)
            continue
        v, i = float(r[z]), int(r["index"])
        cur = cells.get(key)
        if cur is None or (v > cur[0] if maximise else v < cur[0]) or (v == cur[0] and i < cur[1]):
            cells[key] = (v, i)
    points = [(int(r["index"]), float(r[px]), float(r[py])) for r in rows
              if r["status"] == "ok" and r[px] != "" and r[py] != ""]
    return cols, cells, front_of(points)


def render(page, workdir):
    result = chromium(["--dump-dom", "file://" + page], workdir)
    assert result.returncode == 0, result.stderr[-2000:]
    console = [l for l in result.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, "console messages while rendering:\n" + "\n".join(console)
    dom = Dom()
    dom.feed(result.stdout)
    assert "render-error" not in dom.ids, result.stdout[-3000:]
    assert "render-ok" in dom.ids, "the page did not finish rendering"
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        shot = os.path.join(KEEP, os.path.basename(page)[:-5] + ".png")
        chromium(["--screenshot=" + shot, "--window-size=1300,1400", "--hide-scrollbars", "file://" + page], workdir)
        shutil.copy(page, KEEP)
        print("screenshot:", shot)
    return dom


def check_cells(dom, cells):
    assert len(dom.cells) == len(cells), (len(dom.cells), len(cells))
    for c in dom.cells:
        want = cells[(c["x"], c["y"])]
        if want is None:
            assert c["value"] is None, c
            continue
        assert float(c["value"]) == want[0], (c, want)
        assert close(c["text"], want[0]), (c, want)
        assert int(float(c["index"])) == want[1], (c, want)


def check_front(dom, front, px, py):
    assert len(dom.front) == len(front) and front, (len(dom.front), len(front))
    for row, want in zip(dom.front, front):
        (kx, vx, tx), (ky, vy, ty) = row["values"]
        assert (kx, ky) == (px, py)
        assert float(vx) == want[1] and float(vy) == want[2], (row, want)
        assert close(tx, want[1]) and close(ty, want[2]), (row, want)


def check_sweep(path, extra, workdir, browser, min_front=1):
    page = path + "".join(extra).replace("-", "_").replace("/", "_") + ".html"
    done = run(["report", "--sweep", path, *extra, "-o", page])
    assert done.returncode == 0, done.stderr
    source = open(page, encoding="utf-8").read()
    self_contained(source)
    data = embedded(source)
    h, p = data["heatmap"], data["pareto"]
    cols, cells, front = expected_sweep(path, h["x"], h["y"], h["z"], p["x"], p["y"])
    varied = cols[1:cols.index("status")]
    opts = dict(zip(extra[::2], extra[1::2]))
    assert h["x"] == opts.get("--x", varied[0]) and h["y"] == opts.get("--y", varied[1])
    assert h["z"] == opts.get("--z", "step_time_s") and p["x"] == "step_time_s"
    metrics = cols[cols.index("reason") + 1:]
    rule = [m for suffix in ("cost_usd", "cost_usd_per_step", "energy_j", "joules_per_step")
            for m in metrics if m.endswith(suffix)] + ["memory.total_bytes"]
    assert p["y"] == opts.get("--pareto-y", rule[0]), (p["y"], rule[0])
    assert h["better"] == ("max" if any(k in h["z"] for k in HIGHER_IS_BETTER) else "min")
    assert [tuple(q[:3]) for q in p["front"]] == [(float(i), x, y) for i, x, y in front]
    assert len(front) >= min_front, front
    if not browser:
        return p["y"]
    dom = render(page, workdir)
    check_cells(dom, cells)
    check_front(dom, front, p["x"], p["y"])
    print(f"ok sweep {os.path.basename(path)} {' '.join(extra)}: {len(dom.cells)} cells, "
          f"{len(dom.front)} front points equal the rows")
    return p["y"]


def check_plan(path, workdir, browser):
    page = path + ".html"
    done = run(["report", "--plan", path, "-o", page])
    assert done.returncode == 0, done.stderr
    source = open(page, encoding="utf-8").read()
    self_contained(source)
    plan = json.load(open(path, encoding="utf-8"))
    cells = {}
    for c in plan["top"]:
        key = (str(c["strategy"]["tp"]), str(c["strategy"]["pp"]))
        cur = cells.get(key)
        if cur is None or c["objective"] < cur[0] or (c["objective"] == cur[0] and c["rank"] < cur[1]):
            cells[key] = (c["objective"], c["rank"])
    tkey = "run_time_s" if "run_time_s" in plan["top"][0] else "step_time_s"
    okey = "energy_j" if plan["objective"] == "energy" else ("cost_usd" if "cost_usd" in plan["top"][0] else "device_hours")
    front = [(0, c[tkey], c[okey]) for c in plan["pareto"]]
    assert front, "the plan has no Pareto front"
    if not browser:
        return
    dom = render(page, workdir)
    check_cells(dom, cells)
    check_front(dom, front, tkey, okey)
    # Why strategies were invalid: one list item per group of the plan's invalid_reasons, in its order.
    reasons = plan.get("invalid_reasons", [])
    assert sum(r["count"] for r in reasons) == plan["invalid"], (plan["invalid"], reasons)
    count = lambda n: f"{n:,}" if n >= 10000 else str(n)  # the page's num(): grouped from 10^4
    want = [f"{count(r['count'])} at {r['pointer'] or 'the step model'}: e.g. {r['example']['strategy']}: "
            f"{r['example']['message']}" for r in reasons]
    got = [li["text"] for li in dom.reasons]
    assert got == want, (got[:3], want[:3])
    # plan --memory-limit above 100 %: the page says how many feasible strategies are over the device's memory.
    limit = plan.get("memory_limit")
    if limit and limit["share_of_device_memory"] > 1:
        assert dom.memory_note is not None, "no memory-limit note"
        assert dom.memory_note["text"].startswith(f"{count(limit['feasible_over_device_memory'])} feasible "
                                                  "strategies are over the device's memory"), dom.memory_note
    else:
        assert dom.memory_note is None, dom.memory_note
    print(f"ok plan {os.path.basename(path)}: {len(dom.cells)} tp x pp cells equal the listed strategies' best "
          f"objective, {len(dom.front)} front points equal the plan's front, {len(got)} invalid-reason lines")


def check_refusals(csv_path, plan_path):
    bad = run(["report", "--sweep", csv_path, "--x", "/parallelism/nope", "-o", os.devnull])
    assert bad.returncode == 2 and "--x" in bad.stderr and "/parallelism/nope" in bad.stderr, bad.stderr
    bad = run(["report", "--sweep", csv_path, "--z", "no_such_metric", "-o", os.devnull])
    assert bad.returncode == 2 and "no_such_metric" in bad.stderr, bad.stderr
    bad = run(["report", "--sweep", plan_path, "-o", os.devnull])
    assert bad.returncode == 2 and plan_path in bad.stderr and "internal" not in bad.stderr, bad.stderr
    bad = run(["report", "--plan", csv_path, "-o", os.devnull])
    assert bad.returncode == 2 and csv_path in bad.stderr and "internal" not in bad.stderr, bad.stderr
    bad = run(["report", "gpt2-1b-a100-8gpu", "--sweep", csv_path, "-o", os.devnull])
    assert bad.returncode == 2, bad.stderr
    broken = json.load(open(plan_path, encoding="utf-8"))
    broken["invalid_reasons"] = [{"pointer": 1, "count": 2}]
    broken_path = plan_path + ".broken.json"
    open(broken_path, "w", encoding="utf-8").write(json.dumps(broken))
    bad = run(["report", "--plan", broken_path, "-o", os.devnull])
    assert bad.returncode == 2 and f"{broken_path}:/invalid_reasons/0" in bad.stderr, bad.stderr
    broken = json.load(open(plan_path, encoding="utf-8"))
    broken["memory_limit"] = {"share_of_device_memory": "150%"}
    open(broken_path, "w", encoding="utf-8").write(json.dumps(broken))
    bad = run(["report", "--plan", broken_path, "-o", os.devnull])
    assert bad.returncode == 2 and f"{broken_path}:/memory_limit" in bad.stderr, bad.stderr
    print("ok refusals: unknown axis, unknown metric, a plan as a sweep, a sweep as a plan and a malformed "
          "invalid_reasons or memory_limit exit 2")


def main():
    browser = os.path.exists(CHROMIUM)
    with tempfile.TemporaryDirectory() as workdir:
        sweep = os.path.join(workdir, "sweep.csv")
        varies = ["--vary", "/parallelism/tp=1,2,4,8", "--vary", "/training/micro_batch=1,2,4",
                  "--vary", "/training/recompute=none,full"]
        done = run(["sweep", "llama2-70b-h100-512-energy", "--vary", "/parallelism/tp=2,4,8", "--vary",
                    "/cluster/nodes=32,64", "--vary", "/training/recompute=none,full", "--vary", "/parallelism/pp=4,8",
                    "--vary", "/training/micro_batch=1,2", "-o", sweep])
        assert done.returncode == 0, done.stderr
        jsonl = os.path.join(workdir, "sweep.jsonl")
        done = run(["sweep", "gpt2-1b-a100-8gpu", *varies, "-o", jsonl])
        assert done.returncode == 0, done.stderr
        plan = os.path.join(workdir, "plan.json")
        done = run(["plan", "gpt2-1b-a100-8gpu", "--format", "json", "--pareto", "--top", "200", "--threads", "1"])
        assert done.returncode == 0, done.stderr
        open(plan, "w").write(done.stdout)
        # A search with invalid strategies (parameter servers refuse TP, PP, CP and ZeRO): the page lists why.
        ps_plan = os.path.join(workdir, "ps-plan.json")
        done = run(["plan", "gpt2-1b-ps-a100-32", "--format", "json", "--pareto", "--top", "50", "--threads", "1"])
        assert done.returncode == 0, done.stderr
        open(ps_plan, "w").write(done.stdout)
        assert json.loads(done.stdout)["invalid"] > 0
        # --memory-limit 150 %: strategies over the device's memory in the memory model are ranked and counted.
        over_plan = os.path.join(workdir, "over-plan.json")
        done = run(["plan", "gpt2-1b-a100-8gpu", "--set", "/training/seq_len=16384", "--set", "/model/seq_len=16384",
                    "--memory-limit", "150%", "--format", "json", "--pareto", "--top", "50", "--threads", "1"])
        assert done.returncode == 0, done.stderr
        open(over_plan, "w").write(done.stdout)
        assert json.loads(done.stdout)["memory_limit"]["feasible_over_device_memory"] > 0

        cost = check_sweep(sweep, [], workdir, browser, min_front=2)
        assert cost == "energy.cost_usd_per_step", "an energy experiment's sweep is drawn against its cost: " + cost
        check_sweep(sweep, ["--x", "/parallelism/pp", "--y", "/training/recompute", "--z", "mfu"], workdir, browser)
        check_sweep(jsonl, [], workdir, browser)
        mem = check_sweep(jsonl, ["--pareto-y", "memory.total_bytes", "--z", "tokens_per_s"], workdir, browser,
                          min_front=2)
        assert mem == "memory.total_bytes", mem
        check_plan(plan, workdir, browser)
        check_plan(ps_plan, workdir, browser)
        check_plan(over_plan, workdir, browser)
        check_refusals(sweep, plan)
    if not browser:
        print(f"SKIP: {CHROMIUM} not found (Debian: apt-get install chromium; tools/install-deps --optional); "
              "the page data was checked without a browser")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
