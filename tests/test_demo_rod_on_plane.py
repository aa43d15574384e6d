"""The rod-on-plane demo runs small (serially and on 2 ranks) and writes its pictures."""

import runpy
import sys

import numpy as np
import pytest
from conftest import REPO


@pytest.mark.parametrize(
    ("scene", "extra"),
    [("rod", ["--t-end", "0.2", "--dt", "2e-3"]), ("pull-off", ["--t-end", "1.0", "--dt", "0.01"])],
)
def test_demo_rod_on_plane(comm, shared_tmp, monkeypatch, capsys, scene, extra):
    out = shared_tmp / scene
    argv = ["demo_rod_on_plane.py", "--scene", scene, "--elements", "8", "--out-dir", str(out)]
    monkeypatch.setattr(sys, "argv", [*argv, *extra])
    runpy.run_path(str(REPO / "demos" / "demo_rod_on_plane.py"), run_name="__main__")
    comm.barrier()
    data = np.load(out / f"{scene}.npz")
    assert np.abs(data["contact_energy"]).max() > 0
    balance = data["total_energy"] + data.get("dissipated_energy", 0 * data["t"])
    assert np.abs(balance - balance[0]).max() < 1e-6 * max(data["external_work"].max(), 1e-3)
    if comm.rank == 0:
        printed = capsys.readouterr().out
        assert "energy balance" in printed
        assert (out / f"{scene}.png").exists()
