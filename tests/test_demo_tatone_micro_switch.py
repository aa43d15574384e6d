"""Tatone's micro-switch demo runs small, serially and on 2 ranks: the cantilever snaps onto
the adhesive plane and is pulled off where the lumped closed forms put it."""

import runpy
import sys

import numpy as np
from conftest import REPO


def test_demo_tatone_micro_switch(comm, shared_tmp, monkeypatch, capsys):
    """A coarse, fast run (8 arm elements, Δt = 0.1 s, clamp speed 4 mm/s; ~10 s serial).

    References (derived in the demo's markdown, none fitted): the cantilever's stiffness
    k = 3EI/L³ (with its rounded corner, +1e-4), the point law A = −W of the adhesive line law
    (`AdhesiveLaw.energy`), its maximum 0.3 β g₀ (`AdhesiveLaw.adhesion_energy`), the folds of
    the equilibria z = g + A(g)/k where the line law's attraction equals k.
    Tolerances, against what this run measured:
    - stiffness within 2 % (measured +0.9 %: the leg tilts with the arm's end and shortens
      the lever by up to 0.3 %; the rest is the coarse step and mesh, +0.4 % in the full demo);
    - pull-off force (the clamp force where the tip passes the fold's gap) within 3 % of
      0.3 β g₀ (measured +1.5 %; +0.7 % at 1 mm/s), its clamp offset within 2 % of
      g_off + A(g_off)/k − ηv (measured +0.4 %);
    - snap-in: the tip reaches the fold late, never early (the slow passage through a fold
      lags by ∝ v^(2/3): −4.3 % at 1 mm/s, −2.7 % at 0.5 mm/s in the full demo), within 8 %
      (measured −4.1 %);
    - energy balance (kinetic + elastic + contact − clamp work + viscous dissipation) constant
      to ≤ 1e-9 J of the 1.2e-4 J the clamp does (measured 1.0e-10 J, the Newton tolerance).
    """
    out = shared_tmp / "micro_switch"
    extra = ["--speed", "4e-3", "--dt", "0.1", "--elements", "8"]
    monkeypatch.setattr(sys, "argv", ["demo_tatone_micro_switch.py", "--out-dir", str(out), *extra])
    runpy.run_path(str(REPO / "demos" / "demo_tatone_micro_switch.py"), run_name="__main__")
    comm.barrier()
    data = np.load(out / "micro_switch.npz")
    assert abs(data["measured_stiffness"] / data["stiffness"] - 1) <= 2e-2
    assert abs(data["pull_force"] / data["pull_off_force"] - 1) <= 3e-2
    assert abs(data["pull_at"] / data["pull_offset"] - 1) <= 2e-2
    assert 0.92 * data["snap_offset"] <= data["snap_at"] <= data["snap_offset"]
    assert data["snap_at"] < data["pull_at"]  # a loop: it snaps in below where it lets go
    balance = data["balance"]
    assert np.abs(balance - balance[0]).max() <= 1e-9
    if comm.rank == 0:
        assert "snap-in" in capsys.readouterr().out
        assert (out / "micro_switch.png").exists()
