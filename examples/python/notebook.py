#!/usr/bin/env python3
# Parallax from Python, one cell at a time (VS Code, Jupyter's "percent" format, or
# `python3 notebook.py`). Needs PyGObject (Debian: python3-gi) and an installed
# libparallax, or from a build tree:
#   GI_TYPELIB_PATH=build/src/gi LD_LIBRARY_PATH=build/src/gi python3 examples/python/notebook.py
# Charts go to $PARALLAX_OUT (default: the current folder). See docs/library.md.

# %% Load a scenario file
import os
from pathlib import Path

import gi

gi.require_version("Parallax", "1.0")
from gi.repository import GLib, Parallax  # noqa: E402

here = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
scenario = Parallax.Scenario.new_from_file(str(here.parent / "gpt3-1f1b-full.json"))
print(scenario.get_name())
print(scenario.describe())

# %% What it runs on
model, cluster = scenario.get_model(), scenario.get_cluster()
print(f"{model.get_name()}: {model.get_n_params() / 1e9:.1f} B parameters, {model.get_n_layers()} layers")
print(f"{cluster.get_name()}: {cluster.get_num_nodes()} x {cluster.get_gpus_per_node()} {cluster.get_gpu_name()}, "
      f"{cluster.get_peak_flops('bf16') / 1e12:.0f} TFLOP/s bf16")

# %% Change the strategy: TP 4 instead of 8 (dp is derived again, as `--tp 4` does)
scenario.set_strategy_int("tp", 4)
scenario.update_strategy('{"recompute": "selective", "sequence_parallel": true}')
print(scenario.get_strategy().describe())

# %% A value the strategy cannot take is a GLib.Error that names it; the scenario stays
try:
    scenario.set_strategy_int("pp", 7)
except GLib.Error as e:
    print("refused:", e.message)

# %% Simulate one step and print every number of the report
report = scenario.simulate()
print(f"engine               {report.get_engine()}")
print(f"step                 {report.get_step_time_s():.3f} s")
print(f"tokens/s             {report.get_tokens_per_s():.0f}")
print(f"MFU / HFU            {report.get_mfu():.3f} / {report.get_hfu():.3f}")
print(f"model FLOPs/step     {report.get_model_flops_per_step():.4g}")
print(f"hardware FLOPs/step  {report.get_hardware_flops_per_step():.4g}")
print(f"bubble               {report.get_bubble_fraction():.3f}")
print(f"peak memory          {report.get_peak_memory_bytes() / 2**30:.2f} GiB of "
      f"{report.get_hbm_usable_bytes() / 2**30:.2f} usable ({report.get_hbm_bytes() / 2**30:.0f} HBM), "
      f"fits: {report.get_fits_in_memory()}")
print(f"GPUs                 {report.get_n_gpus()}, peak on stage {report.get_reported_stage()}")
print(f"stage fwd / bwd      {report.get_stage_forward_s() * 1e3:.2f} / {report.get_stage_backward_s() * 1e3:.2f} ms")
print(f"layer fwd / bwd      {report.get_layer_forward_s() * 1e3:.3f} / {report.get_layer_backward_s() * 1e3:.3f} ms")
for name in Parallax.Report.memory_categories():
    print(f"  memory {name:<12} {report.get_memory_bytes(name) / 2**30:8.2f} GiB")
for name in Parallax.Report.time_categories():
    print(f"  time   {name:<12} {report.get_time_s(name):8.3f} s")

# %% Search: the three fastest strategies with 8 pipeline stages (it did not fit; these do)
results = scenario.search("pp=8", 3)
for r in results:
    print(f"{r.get_step_time_s():7.3f} s  MFU {r.get_mfu():.3f}  {r.get_peak_memory_bytes() / 2**30:6.2f} GiB  "
          f"{r.get_strategy().describe()}")

# %% Take the best one and draw its timeline and memory
scenario.apply_search_result(results[0])
out = Path(os.environ.get("PARALLAX_OUT", "."))
scenario.export_chart("timeline", str(out / "timeline.png"), 1200, 600)
scenario.export_chart("memory", str(out / "memory.svg"), 0, 0)
print("charts:", out / "timeline.png", out / "memory.svg")
