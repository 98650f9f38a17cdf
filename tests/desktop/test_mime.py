#!/usr/bin/env python3
"""The scenario MIME type (resources/org.parallax.Parallax.mime.xml), installed into a
fresh XDG data folder with the real update-mime-database and asked through GIO, as a
file manager asks. And the desktop file claims that type, not every JSON file
(issue 34, item 13). Args: MIME_XML DESKTOP_FILE."""
import os
import shutil
import subprocess
import sys
import tempfile

mime_xml, desktop_file = sys.argv[1:3]
data = tempfile.mkdtemp(prefix="plx-mime-", dir=os.environ.get("TMPDIR"))
try:
    os.makedirs(os.path.join(data, "mime", "packages"))
    shutil.copy(mime_xml, os.path.join(data, "mime", "packages", "org.parallax.Parallax.xml"))
    # freedesktop.org's own types, so that application/json (the parent) is known.
    shutil.copy("/usr/share/mime/packages/freedesktop.org.xml", os.path.join(data, "mime", "packages"))
    # No fsync of every file (8 s here): the folder is thrown away.
    subprocess.run(["update-mime-database", os.path.join(data, "mime")], check=True,
                   env=dict(os.environ, PKGSYSTEM_ENABLE_FSYNC="0"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # A child process: GIO reads XDG_DATA_DIRS once, at its first question.
    probe = r'''
import sys
from gi.repository import Gio
def guess(name, data):
    t, _ = Gio.content_type_guess(name, data)
    return t
scenario = b'{\n  "name": "gpt3",\n  "model": "gpt3-175b",\n  "cluster": "dgx-a100-80gb",\n  "strategy": {"tp": 8}\n}\n'
print(guess("run.plx.json", scenario))
print(guess(None, scenario))
print(guess("table.json", b'{"cases": []}'))
print(Gio.content_type_is_a("application/x-parallax-scenario+json", "application/json"))
'''
    env = dict(os.environ, XDG_DATA_HOME=os.path.join(data, "home"), XDG_DATA_DIRS=data)
    out = subprocess.run([sys.executable, "-c", probe], env=env, check=True,
                         capture_output=True, text=True).stdout.split("\n")
    assert out[0] == "application/x-parallax-scenario+json", out
    assert out[1] == "application/x-parallax-scenario+json", out
    assert out[2] == "application/json", out
    assert out[3] == "True", out
finally:
    shutil.rmtree(data)

with open(desktop_file, encoding="utf-8") as f:
    lines = [l.strip() for l in f if l.startswith("MimeType=")]
assert lines == ["MimeType=application/x-parallax-scenario+json;"], lines
print("1 passed, 0 failed")
