"""The crossed-strings flagship runs small (serially and on 2 ranks) and writes its outputs.

The strings roll without slip (discrete slip velocity at round-off), energy is conserved to
the Newton tolerance (≤ 1e-10 relative over the short run; measured ~1e-15), and the gap at
the contact does not change (≤ 1e-10 of the radius). With ``--animation`` it writes the GIF
of the strings' motion, one frame per frame interval.
"""

import json
import runpy
import sys

import PIL.Image
from conftest import REPO


def test_demo_crossed_strings(comm, shared_tmp, monkeypatch):
    out = shared_tmp / "crossed"
    argv = ["demo_crossed_strings.py", "--elements", "8", "--t-end", "0.02", "--dt", "2e-3"]
    argv += ["--animation", "--frame-interval", "0.004"]
    monkeypatch.setattr(sys, "argv", [*argv, "--out-dir", str(out)])
    runpy.run_path(str(REPO / "demos" / "demo_crossed_strings.py"), run_name="__main__")
    comm.barrier()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 10
    assert summary["max_relative_energy_error"] <= 1e-10
    assert summary["max_slip_velocity"] <= 1e-10
    assert summary["max_gap_change"] <= 1e-10 * 0.005
    for name in ("snapshots.png", "contact.png", "spectrum.png", "contacts.csv"):
        assert (out / name).exists(), name
    # the animation: a frame at t = 0 and every 4 ms (2 steps) up to 20 ms
    with PIL.Image.open(out / "strings.gif") as gif:
        assert gif.n_frames == 6
