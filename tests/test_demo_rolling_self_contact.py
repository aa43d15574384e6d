"""The rolling self-contact demo runs small (serially and on 2 ranks) and writes its pictures.

The demo stops with an error when one of its checks fails; its summary is checked here again,
with the same tolerances:

- a free figure eight rolling on itself at its crossing: energy to 1e-10 of the initial kinetic
  energy and momenta to 1e-10 of their size (the Newton tolerance's order; measured 1e-14 and
  2e-14), slip ≤ 1e-10 m/s (measured 2e-16), the gap ≤ 1e-12 (R_a + R_b) (the contact points
  settle to 1e-13 (R_a+R_b) per step; measured 1.3e-13), and the same motion with the join a
  quarter turn away (1e-10; measured 2.6e-14);
- a ring rolling on a floor under gravity over its join: energy balance, slip and gap as above
  (measured 4e-15, 3e-17 m/s, 2.5e-13 R), and near the rigid hoop (the elastic ring sags and
  vibrates under its weight): its contact point goes round it as V R/ρ t to 1 % of the
  circumference (measured 0.25 %), its mean horizontal speed is V to 3 % (measured 0.85 %).
"""

import json
import runpy
import sys

from conftest import REPO


def test_demo_rolling_self_contact(comm, shared_tmp, monkeypatch):
    out = shared_tmp / "self_contact"
    argv = ["demo_rolling_self_contact.py", "--t-end", "0.08", "--out-dir", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(REPO / "demos" / "demo_rolling_self_contact.py"), run_name="__main__")
    comm.barrier()
    summary = json.loads((out / "summary.json").read_text())
    eight, floor = summary["eight"], summary["floor"]
    assert eight["steps"] == floor["steps"] == 16
    for scene in (eight, floor):
        assert scene["max_energy_error"] <= 1e-10
        assert scene["max_slip"] <= 1e-10
        assert scene["max_gap"] <= 1e-12
    assert eight["max_momentum_change"] <= 1e-10  # free; gravity acts on the ring
    assert eight["join_difference"] <= 1e-10
    assert floor["path_deviation"] <= 0.01 * floor["length"]
    assert floor["mean_speed_change"] <= 0.03
    assert floor["join_passed_at"] < 0.08
    assert (out / "eight.png").exists() and (out / "floor.png").exists()
