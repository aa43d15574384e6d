"""The rolling-versus-potential demo runs small (serially and on 2 ranks) and writes its pictures.

What it must show, checked on its summary:

- rolling: no slip at the contact (≤ 1e-10 m/s: the constraint holds to the Newton tolerance)
  and the energy conserved (≤ 1e-8 relative, the energy-momentum scheme's invariant);
- potential: the energy balance E + dissipated = E₀ holds (≤ 1e-8: penalty energy through a
  discrete gradient, friction work recorded), the frictionless strings slip, and a large
  friction coefficient brings the slip and the trajectory close to rolling (the regularised
  Coulomb law sticks when μ F_n exceeds the tangential force that rolling needs, here μ ≳ 1.6).
"""

import json
import runpy
import sys

from conftest import REPO


def test_demo_rolling_vs_potential(comm, shared_tmp, monkeypatch):
    out = shared_tmp / "rvp"
    argv = ["demo_rolling_vs_potential.py", "--elements", "12", "--t-end", "0.03"]
    argv += ["--mu", "0,10", "--out-dir", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(REPO / "demos" / "demo_rolling_vs_potential.py"), run_name="__main__")
    comm.barrier()
    summary = json.loads((out / "summary.json").read_text())
    rolling, frictionless, sticky = summary["runs"]
    assert rolling["model"] == "rolling" and rolling["max_slip_speed"] < 1e-10
    assert rolling["energy_balance_error"] < 1e-8
    for run in (frictionless, sticky):
        assert run["model"] == "potential"
        assert run["energy_balance_error"] < 1e-8
    assert frictionless["mean_slip_speed"] > 0.05  # it slides freely
    assert sticky["mean_slip_speed"] < 0.1 * frictionless["mean_slip_speed"]
    assert sticky["trajectory_difference_end"] < 0.2 * frictionless["trajectory_difference_end"]
    assert sticky["dissipated_fraction"] > 0
    assert (out / "compare.png").exists() and (out / "friction_sweep.png").exists()
