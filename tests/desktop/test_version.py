#!/usr/bin/env python3
"""`parallax --version` prints the project's version and exits 0 with no display
(issue 34, item 13: packagers' checks run it over ssh). Args: PARALLAX VERSION."""
import os
import subprocess
import sys

app, version = sys.argv[1:3]
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
r = subprocess.run([app, "--version"], env=env, capture_output=True, text=True, timeout=30)
assert r.returncode == 0, (r.returncode, r.stderr)
assert r.stdout == "parallax %s\n" % version, r.stdout
assert r.stderr == "", r.stderr
r = subprocess.run([app, "--help"], env=env, capture_output=True, text=True, timeout=30)
assert r.returncode == 0 and "--version" in r.stdout, r.stdout
print("1 passed, 0 failed")
