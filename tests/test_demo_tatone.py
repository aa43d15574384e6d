"""Tatone's demos run small (serially and on 2 ranks) and write their pictures and data."""

import runpy
import sys

import numpy as np
from conftest import REPO


def run_demo(name, out, monkeypatch, extra):
    monkeypatch.setattr(sys, "argv", [name, "--out-dir", str(out), *extra])
    runpy.run_path(str(REPO / "demos" / name), run_name="__main__")


def test_demo_tatone_balls(comm, shared_tmp, monkeypatch, capsys):
    """Both balls land and keep their energy balance (≤ 1e-10 J of about 0.1 J moved)."""
    out = shared_tmp / "balls"
    run_demo(
        "demo_tatone_balls.py",
        out,
        monkeypatch,
        ["--points", "100", "--drop", "0.002", "--t-end", "0.03", "--dt", "2e-3"],
    )
    comm.barrier()
    data = np.load(out / "balls.npz")
    for name in ("stiff", "soft"):
        assert data[f"{name}_gap"].min() < 2e-3  # landed
        balance = data[f"{name}_balance"]
        assert np.abs(balance - balance[0]).max() <= 1e-10
        assert np.diff(data[f"{name}_dissipated"]).min() >= 0
    if comm.rank == 0:
        assert "energy balance drift" in capsys.readouterr().out
        assert (out / "balls.png").exists()


def test_demo_tatone_top(comm, shared_tmp, monkeypatch, capsys):
    """The top precesses at the steady closed form's rate: within 2 % over this short, coarse
    run (0.02 s, dt = 1e-3, measured −0.4 %; the test of the rate is in test_rigid_bodies)."""
    out = shared_tmp / "top"
    extra = ["--spins", "200", "--t-end", "0.02", "--dt", "1e-3", "--order", "8"]
    run_demo("demo_tatone_top.py", out, monkeypatch, extra)
    comm.barrier()
    data = np.load(out / "top.npz")
    assert np.all(np.abs(data["rates"] / data["steady"] - 1) <= 2e-2)
    if comm.rank == 0:
        assert "precession" in capsys.readouterr().out
        assert (out / "top.png").exists()
