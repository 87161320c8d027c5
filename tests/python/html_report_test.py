#!/usr/bin/env python3
"""`clustersim report` writes one self-contained HTML page that renders in headless Chromium: the page
reports success (#render-ok), no error, and the figures it shows (elements with data-key/data-value)
equal the report JSON (`clustersim run --format json`), as numbers and as the text printed. Skips
(exit 77) when /usr/bin/chromium is absent.

usage: html_report_test.py PATH/TO/clustersim [--keep DIR]   (--keep also writes a screenshot there)
"""
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


class Figures(html.parser.HTMLParser):
    """Collects (data-key, data-value, text) of every element carrying data-key, and the ids seen."""

    def __init__(self):
        super().__init__()
        self.figures, self.ids, self.stack = [], {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
        self.stack.append([tag, a, ""])

    def handle_endtag(self, tag):
        while self.stack:
            t, a, text = self.stack.pop()
            if "data-key" in a:
                self.figures.append((a["data-key"], a.get("data-value"), text.strip()))
            if self.stack:
                self.stack[-1][2] += text
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2] += data


def lookup(report, dotted):
    v = report
    for part in dotted.split("."):
        v = v[int(part)] if isinstance(v, list) else v[part]
    return v


def shown_number(text):
    """The number in a figure's text and the multiplier its unit implies relative to SI base units."""
    m = re.match(r"^(-?[\d,]*\.?\d+(?:e[+-]?\d+)?)\s*(.*)$", text)
    assert m, "figure text has no number: " + repr(text)
    scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "%": 1e-2, "GiB": 2 ** 30, "MJ": 1e6, "J": 1, "": 1}[m.group(2)]
    return float(m.group(1).replace(",", "")), scale


def check(experiment, extra, workdir):
    page = os.path.join(workdir, experiment + "".join(extra).replace("-", "_") + ".html")
    subprocess.run([CLI, "report", experiment, *extra, "-o", page], check=True, capture_output=True)
    report = json.loads(subprocess.run([CLI, "run", experiment, *extra, "--format", "json"], check=True,
                                       capture_output=True, text=True).stdout)
    source = open(page, encoding="utf-8").read()
    # Self-contained: outside the embedded data (whose citations may hold URLs), no URL at all.
    code = re.sub(r'<script type="application/json".*?</script>', "", source, flags=re.S)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", code), "page loads an external resource"
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", code), "page names a URL"
    assert "@import" not in code and "url(" not in code
    embedded = re.search(r'<script type="application/json" id="report-json">(.*?)</script>', source, re.S)
    assert embedded and json.loads(embedded.group(1)) == report, "embedded JSON differs from `run --format json`"

    result = chromium(["--dump-dom", "file://" + page], workdir)
    assert result.returncode == 0, result.stderr[-2000:]
    console = [l for l in result.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, "console messages while rendering:\n" + "\n".join(console)
    dom = Figures()
    dom.feed(result.stdout)
    assert "render-error" not in dom.ids, result.stdout[-3000:]
    assert "render-ok" in dom.ids, "the page did not finish rendering"
    ops = int(dom.ids["render-ok"]["data-ops"])
    assert ops > 0 and result.stdout.count('class="op op-') == ops, "timeline boxes missing"
    keys = {k for k, _, _ in dom.figures}
    for required in ("step_time_s", "mfu", "tokens_per_s", "memory.total_bytes", "communication_exposed_s.tp",
                     "memory.weights_bytes", "stages.0.compute_s"):
        assert required in keys, "no figure for " + required
    if report.get("energy"):
        assert "energy.by_component.devices" in keys
    for key, value, text in dom.figures:
        expected = lookup(report, key)
        assert float(value) == expected, (key, value, expected)
        number, scale = shown_number(text)
        assert abs(number * scale - expected) <= 5e-4 * abs(expected) + 1e-12, (key, text, expected)
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        shot = os.path.join(KEEP, os.path.basename(page)[:-5] + ".png")
        chromium(["--screenshot=" + shot, "--window-size=1400,1800", "--hide-scrollbars", "file://" + page], workdir)
        shutil.copy(page, KEEP)
        print("screenshot:", shot)
    return len(dom.figures)


def main():
    if not os.path.exists(CHROMIUM):
        print(f"SKIP: {CHROMIUM} not found (Debian: apt-get install chromium; tools/install-deps --optional)")
        return 77
    with tempfile.TemporaryDirectory() as workdir:
        cases = [("llama2-70b-h100-512-energy", []), ("gpt3-175b-a100-1024", [])]
        version = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True).stdout
        if "flow engine: built" in version:
            cases.append(("gpt2-1b-a100-8gpu", ["--engine", "flow"]))
        else:
            print("note: this build has no flow engine; its page is not checked")
        for experiment, extra in cases:
            n = check(experiment, extra, workdir)
            print(f"ok {experiment} {' '.join(extra)}: {n} figures equal the JSON report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
