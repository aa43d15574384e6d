"""Tatone's demos (balls, top, dice) run small, serially and on 2 ranks, and draw pictures."""

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


def test_demo_tatone_dice(comm, shared_tmp, monkeypatch, capsys):
    """The die lands on a corner or an edge (contact energy above 1e-5 J, measured 1.6e-4 J;
    the damping takes more than 1e-5 J, measured 8.4e-5 J) and keeps its energy balance
    (≤ 1e-10 J of the 1.3e-3 J it brings, measured 5e-18 J)."""
    out = shared_tmp / "dice"
    extra = ["--order", "3", "--height", "0.02", "--t-end", "0.05", "--dt", "2e-3"]
    run_demo("demo_tatone_dice.py", out, monkeypatch, extra)
    comm.barrier()
    data = np.load(out / "dice.npz")
    assert data["contact"].max() > 1e-5
    assert data["dissipated"][-1] > 1e-5
    balance = data["balance"]
    assert np.abs(balance - balance[0]).max() <= 1e-10
    if comm.rank == 0:
        assert "energy balance drift" in capsys.readouterr().out
        assert (out / "dice.png").exists()
