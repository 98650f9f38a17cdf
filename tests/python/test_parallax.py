#!/usr/bin/env python3
"""The Python API (PyGObject on Parallax-1.0.typelib) against parallax-cli: the same
scenario gives the same numbers both ways, bad input is a GLib.Error that names it,
and examples/python/notebook.py runs. Run by meson from the build tree
(tests/meson.build sets GI_TYPELIB_PATH, LD_LIBRARY_PATH, PLX_CLI, PLX_EXAMPLE)."""
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import gi

gi.require_version("Parallax", "1.0")
from gi.repository import GLib, Parallax  # noqa: E402

CLI = os.environ["PLX_CLI"]
SRCDIR = os.environ["G_TEST_SRCDIR"]
EXAMPLE = os.environ["PLX_EXAMPLE"]
EXAMPLES = os.path.join(os.path.dirname(EXAMPLE), "..")
FILE = os.path.join(EXAMPLES, "gpt3-1f1b-full.json")


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


class CliAgreement(unittest.TestCase):
    def assert_report_is(self, report, expected):
        # Both sides are the same doubles: json-glib writes 17 significant digits,
        # which read back to the same double, so equality is exact.
        self.assertEqual(report.get_step_time_s(), expected["step_time_s"])
        self.assertEqual(report.get_mfu(), expected["mfu"])
        self.assertEqual(report.get_peak_memory_bytes(), expected["peak_memory_bytes"])

    def test_file_equals_cli(self):
        report = Parallax.Scenario.new_from_file(FILE).simulate()
        self.assert_report_is(report, cli_json("simulate", FILE))

    def test_first_call_of_a_fresh_process_equals_cli(self):
        # Issue 34: the first simulate() of a process that loads the library was
        # 100-500x too slow (11,795.9 s here against 19.96 s), and this file passed
        # only because an earlier test had simulated first. test_file_equals_cli,
        # alone in a new interpreter, makes that first call.
        done = subprocess.run([sys.executable, __file__, "CliAgreement.test_file_equals_cli"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Ran 1 test", done.stderr)

    def test_default_equals_cli_without_file(self):
        report = Parallax.Scenario.new_default().simulate()
        self.assert_report_is(report, cli_json("simulate"))

    def test_every_number_of_the_report_equals_cli(self):
        report = Parallax.Scenario.new_from_file(FILE).simulate()
        expected = cli_json("simulate", FILE)
        for key in ("step_time_s", "tokens_per_s", "model_flops_per_step", "hardware_flops_per_step", "mfu",
                    "hfu", "bubble_fraction", "fits_in_memory", "peak_memory_bytes", "hbm_bytes",
                    "hbm_usable_bytes", "n_gpus", "reported_stage", "layer_forward_s", "layer_backward_s"):
            self.assertEqual(getattr(report, "get_" + key)(), expected[key], key)
        self.assertEqual(report.get_engine(), expected["engine"])
        self.assertEqual(list(Parallax.Report.memory_categories()), list(expected["memory_bytes"]))
        self.assertEqual(list(Parallax.Report.time_categories()), list(expected["time_s"]))
        for name, value in expected["memory_bytes"].items():
            self.assertEqual(report.get_memory_bytes(name), value, name)
        for name, value in expected["time_s"].items():
            self.assertEqual(report.get_time_s(name), value, name)

    def test_other_engines_equal_cli(self):
        scenario = Parallax.Scenario.new_from_file(FILE)
        for engine in ("analytical", "ir"):
            self.assert_report_is(scenario.simulate_with_engine(engine), cli_json("simulate", FILE, "--engine", engine))

    def test_strategy_change_equals_cli_flags(self):
        scenario = Parallax.Scenario.new_from_file(FILE)
        scenario.set_strategy_int("tp", 4)
        # 64 GPUs (8 nodes x 8) over tp 4 x pp 8 x cp 1: dp derived anew as 64 / 32 = 2.
        self.assertEqual(scenario.get_strategy().get_dp(), 2)
        self.assert_report_is(scenario.simulate(), cli_json("simulate", FILE, "--tp", "4"))

        scenario.update_strategy('{"pp": 4, "schedule": "interleaved-1f1b", "virtual_stages": 2}')
        # The earlier change stays: dp = 64 / (4 x 4) = 4.
        self.assertEqual(scenario.get_strategy().get_dp(), 4)
        self.assertEqual(scenario.get_strategy().get_schedule(), "interleaved-1f1b")
        self.assert_report_is(scenario.simulate(), cli_json("simulate", FILE, "--tp", "4", "--pp", "4", "--schedule",
                                                            "interleaved-1f1b", "--virtual-stages", "2"))

        scenario.set_strategy_string("recompute", "selective")
        scenario.set_strategy_bool("sequence_parallel", True)
        self.assert_report_is(scenario.simulate(), cli_json("simulate", FILE, "--tp", "4", "--pp", "4", "--schedule",
                                                            "interleaved-1f1b", "--virtual-stages", "2",
                                                            "--recompute", "selective", "--sequence-parallel"))

    def test_search_equals_cli(self):
        scenario = Parallax.Scenario.new_from_file(FILE)
        results = scenario.search("pp=8", 3)
        expected = cli_json("search", FILE, "--fix", "pp=8", "--top", "3")["results"]
        self.assertEqual(len(results), 3)
        for got, want in zip(results, expected):
            self.assertEqual(got.get_step_time_s(), want["step_time_s"])
            self.assertEqual(got.get_n_gpus(), want["n_gpus"])
            self.assertEqual(got.get_peak_memory_bytes(), want["peak_memory_bytes"])
            strategy = got.get_strategy()
            self.assertEqual((strategy.get_tp(), strategy.get_pp(), strategy.get_dp(), strategy.get_cp()),
                             (want["tp"], 8, want["dp"], want["cp"]))

    def test_applied_search_result_simulates_to_its_step_time(self):
        scenario = Parallax.Scenario.new_from_file(FILE)
        best = scenario.search(None, 1)[0]
        self.assertTrue(best.get_event_simulated())
        scenario.apply_search_result(best)
        # The search re-simulated this strategy with the event engine; the scenario
        # rebuilt from it must run the same strategy, so the same step.
        self.assertEqual(scenario.simulate().get_step_time_s(), best.get_step_time_s())
        self.assertEqual(scenario.get_strategy().get_tp(), best.get_strategy().get_tp())


class Errors(unittest.TestCase):
    def test_bad_path_names_the_file(self):
        path = os.path.join(tempfile.gettempdir(), "no-such-parallax-scenario.json")
        with self.assertRaises(GLib.Error) as cm:
            Parallax.Scenario.new_from_file(path)
        self.assertIn(path, cm.exception.message)
        # The domain and code are introspected: a caller can tell a missing file
        # from a malformed one.
        self.assertTrue(cm.exception.matches(Parallax.error_quark(), Parallax.Error.NOT_FOUND))

    def test_malformed_file_names_the_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write('{"model": ')
            f.flush()
            with self.assertRaises(GLib.Error) as cm:
                Parallax.Scenario.new_from_file(f.name)
            self.assertIn(f.name, cm.exception.message)
            self.assertTrue(cm.exception.matches(Parallax.error_quark(), Parallax.Error.PARSE))

    def test_bad_strategy_names_key_and_leaves_scenario(self):
        scenario = Parallax.Scenario.new_default()
        before = scenario.describe()
        with self.assertRaises(GLib.Error) as cm:
            scenario.set_strategy_int("tp", 0)
        self.assertIn("tp", cm.exception.message)
        with self.assertRaises(GLib.Error) as cm:
            scenario.set_strategy_int("tensor_parallel", 2)
        self.assertIn("tensor_parallel", cm.exception.message)
        with self.assertRaises(GLib.Error) as cm:
            scenario.update_strategy("[1, 2]")
        self.assertIn("not a JSON object", cm.exception.message)
        self.assertEqual(scenario.describe(), before)

    def test_bad_names_are_errors(self):
        scenario = Parallax.Scenario.new_default()
        report = scenario.simulate()
        for call, name in ((lambda: report.get_memory_bytes("kv_cache"), "kv_cache"),
                           (lambda: scenario.simulate_with_engine("fast"), "fast"),
                           (lambda: scenario.get_cluster().get_peak_flops("int4"), "int4"),
                           (lambda: scenario.export_chart("gantt", "/tmp/x.png", 0, 0), "gantt"),
                           (lambda: scenario.export_chart("timeline", "/tmp/x.bmp", 0, 0), ".bmp"),
                           (lambda: scenario.export_chart("timeline", "/tmp/x.png", 8, 100), "width: 8 "),
                           (lambda: scenario.search(None, 0), "top 0"),
                           (lambda: scenario.search("tq=2", 1), "tq")):
            with self.assertRaises(GLib.Error) as cm:
                call()
            self.assertIn(name, cm.exception.message)


class Charts(unittest.TestCase):
    def test_png_and_svg(self):
        scenario = Parallax.Scenario.new_default()
        with tempfile.TemporaryDirectory() as out:
            png = os.path.join(out, "timeline.png")
            scenario.export_chart("timeline", png, 640, 360)
            with open(png, "rb") as f:
                head = f.read(24)
            # PNG signature, then the IHDR chunk: width and height, big-endian, at 16.
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual(struct.unpack(">II", head[16:24]), (640, 360))
            svg = os.path.join(out, "memory.svg")
            scenario.export_chart("memory", svg, 0, 0)
            with open(svg) as f:
                text = f.read()
            # 0 x 0 is the CLI's default memory chart, 1200 x 800 pixels.
            self.assertIn('width="1200"', text)
            self.assertIn('height="800"', text)
            trace = os.path.join(out, "step.json")
            scenario.export_trace(trace)
            with open(trace) as f:
                self.assertIn("traceEvents", json.load(f))


class Packaging(unittest.TestCase):
    def test_example_runs(self):
        with tempfile.TemporaryDirectory() as out:
            env = dict(os.environ, PARALLAX_OUT=out)
            done = subprocess.run([sys.executable, EXAMPLE], env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertTrue(os.path.getsize(os.path.join(out, "timeline.png")) > 0)
            self.assertTrue(os.path.getsize(os.path.join(out, "memory.svg")) > 0)

    def test_every_function_is_documented(self):
        # g-ir-scanner passes a function without a gtk-doc comment silently (and so
        # without annotations); the GIR shows which have one.
        gir = os.path.join(os.environ["GI_TYPELIB_PATH"].split(os.pathsep)[0], "Parallax-1.0.gir")
        core = "{http://www.gtk.org/introspection/core/1.0}"
        c_id = "{http://www.gtk.org/introspection/c/1.0}identifier"
        functions = [e for e in ET.parse(gir).iter() if e.tag in (core + "function", core + "method",
                                                                    core + "constructor")]
        self.assertGreater(len(functions), 80)
        undocumented = [e.get(c_id) for e in functions if e.find(core + "doc") is None and
                        e.find(core + "return-value/" + core + "doc") is None]
        self.assertEqual(undocumented, [])

    def test_library_exports_the_api_alone(self):
        # The version script (tools/gi-exports) makes the functions of the installed
        # headers the library's only symbols: every function of the GIR is exported,
        # and nothing is exported that the GIR lacks but the free functions, which
        # bindings reach through the boxed types.
        libdir = os.environ["LD_LIBRARY_PATH"].split(os.pathsep)[0]
        gir = os.path.join(os.environ["GI_TYPELIB_PATH"].split(os.pathsep)[0], "Parallax-1.0.gir")
        c_id = "{http://www.gtk.org/introspection/c/1.0}identifier"
        glib_ns = "{http://www.gtk.org/introspection/glib/1.0}"
        root = ET.parse(gir).getroot()
        in_gir = {e.get(c_id) for e in root.iter() if e.get(c_id, "").startswith("plx_")}
        in_gir |= {e.get(glib_ns + "get-type") for e in root.iter() if e.get(glib_ns + "get-type")}
        symbols = subprocess.run(["nm", "-D", "--defined-only", os.path.join(libdir, "libparallax.so")],
                                 check=True, capture_output=True, text=True).stdout
        exported = {line.split()[2].split("@")[0] for line in symbols.splitlines() if " T " in line}
        self.assertEqual(in_gir - exported, set())
        self.assertEqual({n for n in exported - in_gir if not n.endswith("_free")}, set())
        self.assertIn("plx_scenario_simulate", exported)
        self.assertNotIn("plx_sim_run_scenario", exported)

    def test_cli_needs_no_gui_toolkit(self):
        # The libraries the CLI itself asks for (its DT_NEEDED entries): cairo and
        # pango, never GTK, libadwaita or X11 (cairo's own dependencies are its own).
        dynamic = subprocess.run(["readelf", "-d", CLI], check=True, capture_output=True, text=True).stdout
        needed = [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
        self.assertIn("libcairo.so.2", needed)
        for lib in needed:
            for gui in ("gtk", "adwaita", "X11", "xcb"):
                self.assertNotIn(gui, lib)


if __name__ == "__main__":
    unittest.main(verbosity=2)
