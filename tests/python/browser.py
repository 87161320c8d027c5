"""Headless Chromium for the page tests (html_report_test.py, whatif_report_test.py).

CLUSTERSIM_CHROMIUM names the browser (default /usr/bin/chromium). Each call gets its own throw-away profile
under `workdir`, so runs never share state.
"""

import os
import subprocess
import tempfile

CHROMIUM = os.environ.get("CLUSTERSIM_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
         "--disable-dev-shm-usage"]


def chromium(args, workdir):
    """Runs Chromium with `args`, logging to stderr; returns the CompletedProcess (120 s timeout)."""
    profile = tempfile.mkdtemp(dir=workdir)
    return subprocess.run([CHROMIUM, *FLAGS, "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=120)
