"""The flying-spaghetti demo runs small (serially and on 2 ranks) and writes its time series."""

import runpy
import sys

import numpy as np
from conftest import REPO


def test_demo_flying_spaghetti(comm, shared_tmp, monkeypatch, capsys):
    out = shared_tmp / "spaghetti.npz"
    plot = shared_tmp / "spaghetti.png"
    argv = ["demo_flying_spaghetti.py", "--elements", "4", "--dt", "0.25", "--t-end", "7.5"]
    monkeypatch.setattr(sys, "argv", [*argv, "--out", str(out), "--plot", str(plot)])
    runpy.run_path(str(REPO / "demos" / "demo_flying_spaghetti.py"), run_name="__main__")
    comm.barrier()
    data = np.load(out)
    for key in ("t", "kinetic_energy", "elastic_energy", "external_work"):
        assert data[key].shape == (31,)
    assert data["linear_momentum"].shape == (31, 3)
    assert data["angular_momentum"].shape == (31, 3)
    # energy balance: K + V − W_ext stays at its initial value 0 (conserving scheme)
    assert np.abs(data["total_energy"]).max() <= 1e-9 * data["kinetic_energy"].max()
    if comm.rank == 0:
        assert "energy after load" in capsys.readouterr().out
        assert plot.exists() and (shared_tmp / "spaghetti_motion.png").exists()
