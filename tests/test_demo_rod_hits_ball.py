"""The ball-hits-rod demo runs small, serially and on 2 ranks, and draws its picture."""

import runpy
import sys

import numpy as np
from conftest import REPO


def test_demo_rod_hits_ball(comm, shared_tmp, monkeypatch, capsys):
    """The ball hits the rod and gives it momentum (more than 10 % of its z momentum,
    measured 40 %); rod + ball keep linear and angular momentum to 1e-10 and their energy to
    1e-9 relative (the invariants of the coupled energy–momentum step, docs/bodies.md;
    measured about 1e-14)."""
    out = shared_tmp / "rod_hits_ball"
    argv = ["demo_rod_hits_ball.py", "--out-dir", str(out), "--elements", "8"]
    monkeypatch.setattr(sys, "argv", [*argv, "--t-end", "0.02", "--dt", "1e-3"])
    runpy.run_path(str(REPO / "demos" / "demo_rod_hits_ball.py"), run_name="__main__")
    comm.barrier()
    data = np.load(out / "rod_hits_ball.npz")
    given = data["rod_momentum"][-1, 2] / data["ball_momentum"][0, 2]
    print(f"the rod took {given:.3g} of the ball's z momentum")
    assert given > 0.1
    for key in ("momentum", "angular", "energy"):
        values = data[key]
        scale = np.abs(values).max()
        assert np.abs(values - values[0]).max() <= (1e-9 if key == "energy" else 1e-10) * scale
    if comm.rank == 0:
        assert "drift relative" in capsys.readouterr().out
        assert (out / "rod_hits_ball.png").exists()
