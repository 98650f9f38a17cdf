#!/usr/bin/env python3
"""One path of the differential test (test-differential.c): the numbers of each
scenario file through the Python binding (PyGObject on Parallax-1.0.typelib).

    gi-numbers.py ENGINE,ENGINE,... FILE...

One JSON object per file and engine on standard output: {"file", "engine",
"step_time_s", "mfu", "peak_memory_bytes"} or {"file", "engine", "error"}. Python
writes a float with the shortest digits that read back to the same double, so the
C side compares them to the last bit."""
import json
import sys

import gi

gi.require_version("Parallax", "1.0")
from gi.repository import GLib, Parallax  # noqa: E402


def main():
    engines = sys.argv[1].split(",")
    for path in sys.argv[2:]:
        try:
            scenario = Parallax.Scenario.new_from_file(path)
        except GLib.Error as e:
            for engine in engines:
                print(json.dumps({"file": path, "engine": engine, "error": e.message}))
            continue
        for engine in engines:
            try:
                r = scenario.simulate_with_engine(engine)
            except GLib.Error as e:
                print(json.dumps({"file": path, "engine": engine, "error": e.message}))
                continue
            print(json.dumps({"file": path, "engine": engine, "step_time_s": r.get_step_time_s(),
                              "mfu": r.get_mfu(), "peak_memory_bytes": r.get_peak_memory_bytes()}))
    sys.stdout.flush()


main()
