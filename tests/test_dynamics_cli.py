"""``fe-rodcontact dynamics``: a small case runs and writes its series; bad keys are errors."""

import numpy as np
import pytest
from case_texts import ONE_ROD, write_case

from fe_rodcontact.cli import main

CASE = (
    ONE_ROD
    + """
[[loads]]
type = "end_force"
rod = "rod"
end = "end"
force = [0.0, 1.0, 0.0]
history = "heaviside(0.5 - t)"

[initial]
angular_velocity = ["0", "0", "1"]

[time]
t_end = 1.0
dt = 0.1

[output]
vtx_every = 5
"""
)


def test_cli_dynamics_runs(comm, shared_tmp):
    case = shared_tmp / "case.toml"
    write_case(case, CASE, comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "out"), "--no-progress"]) == 0
    data = np.load(shared_tmp / "out" / "series.npz")
    assert data["t"][-1] == pytest.approx(1.0)
    # impulse of the force: 1 × 0.5 (history switched off at t = 0.5, a step boundary)
    assert data["linear_momentum"][-1] == pytest.approx([0.0, 0.5, 0.0], abs=1e-10)
    assert np.abs(data["total_energy"] - data["total_energy"][0]).max() < 1e-10
    assert (shared_tmp / "out" / "rods.bp").exists()


def test_cli_dynamics_unknown_key(comm, shared_tmp, capsys):
    case = shared_tmp / "bad.toml"
    write_case(case, CASE.replace("dt = 0.1", "dt = 0.1\nstep_size = 3"), comm)
    assert main(["dynamics", str(case), "--no-progress"]) == 2
    if comm.rank == 0:
        assert "time.step_size" in capsys.readouterr().err
