"""``fe-rodcontact bodies``: the demos' case files run small; bad bodies are one line.

The example cases (``demos/cases/tatone_*.toml``) run with a short end time and coarse
quadratures, serially and on 2 ranks (each rank computes the same bodies; rank 0 writes):
exit 0, every body's series with its energy balance constant (≤ 1e-10 J, the solver
tolerance; the bodies move about 1e-3 J), the JSON description of every key, and the ParaView
frames (a point cloud per frame with the bodies' velocity, normal and contact force).
"""

import json
import re

import meshio
import numpy as np
import pytest
from case_texts import write_case
from conftest import REPO

from fe_rodcontact.cli import main
from fe_rodcontact.cli.bodies import run_case
from fe_rodcontact.cli.bodies_case import BodiesCase
from fe_rodcontact.cli.case import load_case
from fe_rodcontact.errors import InputError

SMALL = {
    "tatone_balls.toml": {"t_end = 0.6": "t_end = 0.03", "points = 600": "points = 100"},
    "tatone_dice.toml": {"t_end = 1.0": "t_end = 0.02", "order = 4": "order = 2"},
    "tatone_top.toml": {"t_end = 0.3": "t_end = 0.005", "order = 12": "order = 6"},
}


def small_case(name, folder, comm, changes=()):
    """The example case ``name`` with the replacements of SMALL (and ``changes``), 3 frames."""
    text = (REPO / "demos" / "cases" / name).read_text()
    for old, new in [*SMALL[name].items(), *changes]:
        assert old in text, old
        text = text.replace(old, new)
    text = re.sub(r"frames = \d+", "frames = 3", text)
    return write_case(folder / name, text, comm)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_example_case_runs_and_writes_series_and_frames(name, comm, shared_tmp, capsys):
    case = small_case(name, shared_tmp, comm)
    out = shared_tmp / "out"
    assert main(["bodies", str(case), "--out", str(out)]) == 0
    spec = load_case(case, BodiesCase)
    series = np.load(out / "series.npz")
    description = json.loads((out / "series.json").read_text())
    for i, body in enumerate(spec.bodies):
        label = body.name or f"bodies[{i}]"
        assert series[f"{label}.t"][-1] == pytest.approx(spec.time.t_end)
        balance = series[f"{label}.balance"]
        assert np.abs(balance - balance[0]).max() <= 1e-10
        assert np.all(np.diff(series[f"{label}.dissipated"]) >= 0)
        assert series[f"{label}.velocity"].shape[1] == 3
    assert set(description["columns"]) == set(series.files)
    assert all(c["unit"] != "?" for c in description["columns"].values())
    index = (out / "bodies.pvd").read_text()
    frames = re.findall(r'file="(bodies_\d+\.vtu)"', index)
    assert len(frames) == 4  # the start and 3 frames
    last = meshio.read(out / frames[-1])
    assert {"body", "velocity", "normal", "area", "contact_force"} <= set(last.point_data)
    assert np.allclose(np.linalg.norm(last.point_data["normal"], axis=1), 1.0)
    if comm.rank == 0:
        assert "energy balance drift" in capsys.readouterr().out


def test_case_contact_forces_hold_the_top(comm, shared_tmp):
    """The top starts resting on its tip (its height from the demo's brentq, to 10 digits):
    the first frame's contact forces add up to its weight, vertically (≤ 1e-5, measured
    8.1e-7), and stay within 2 % of it over 5 ms (its tip settles: measured ≤ 0.9 %)."""
    case = small_case("tatone_top.toml", shared_tmp, comm, [("order = 6", "order = 12")])
    out = shared_tmp / "top"
    assert main(["bodies", str(case), "--out", str(out), "--quiet"]) == 0
    weight = load_case(case, BodiesCase).bodies[0].build("bodies[0]", []).mass * 9.81
    for k in range(4):
        force = meshio.read(out / f"bodies_{k:06d}.vtu").point_data["contact_force"].sum(axis=0)
        assert np.abs(force[:2]).max() <= 1e-12 * weight
        assert abs(force[2] / weight - 1) <= (1e-5 if k == 0 else 2e-2)


BAD = [
    (
        {'shape = "rounded_cube"': 'shape = "cone"'},
        r"bodies\[0\]: shape 'cone' unknown; use one of",
    ),
    ({"half_side = 0.01": "radius = 0.01"}, "radius is not a key of shape 'rounded_cube'"),
    ({"density = 1200.0": "density = -1200.0"}, "density must be positive, got -1200.0"),
    (
        {"density = 1200.0": "density = 1200.0\nviscosity = 3.0"},
        "viscosity is for model = 'affine'",
    ),
    (
        {'shape = "rounded_cube"': 'model = "affine"\nshape = "rounded_cube"'},
        "needs \\[bodies.material\\]",
    ),
    (
        {"position = [0.0, 0.0, 0.04]": "position = [0.0, 0.0, 0.005]"},
        "'die' starts inside PlaneContact 'table'",
    ),
    ({'type = "plane"': 'type = "wall"'}, "type 'wall' unknown; use 'plane' or 'drum'"),
    ({"t_end = 0.02": "t_end = 0.02\nsteps = 3"}, "unknown key time.steps"),
]


@pytest.mark.parametrize(("changes", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_bodies_case_is_one_line_on_every_rank(changes, message, comm, shared_tmp, capsys):
    """Each rank raises the same InputError naming the key and the fix; the command exits with
    2 on every rank and prints that one line once."""
    case = small_case("tatone_dice.toml", shared_tmp, comm, list(changes.items()))
    with pytest.raises(InputError, match=message) as error:
        run_case(load_case(case, BodiesCase), comm, shared_tmp / "bad")
    assert "\n" not in str(error.value)
    assert comm.allgather(str(error.value)) == [str(error.value)] * comm.size
    capsys.readouterr()
    assert main(["bodies", str(case), "--out", str(shared_tmp / "bad"), "--quiet"]) == 2
    if comm.rank == 0:
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.search(message, err[0])


DRUM = """
[time]
t_end = 0.02
dt = 2e-3

[[bodies]]
name = "ball"
shape = "sphere"
radius = 0.02
points = 200
density = 1000.0
position = [0.0, 0.0, -0.0791]

[contact]
law = { name = "repulsive", coefficient = 1e-20 }
friction = { friction_coefficient = 0.5, regularization_velocity = 1e-3 }
contact_range = 0.01

[[contact.obstacles]]
type = "drum"
name = "drum"
radius = 0.1
axis = [0.0, 1.0, 0.0]
rate = 5.0

[output]
frames = 1
"""


def test_ball_in_a_turning_drum_from_a_case(comm, shared_tmp):
    """A ball at the bottom of a drum turning at 5 rad/s (the case of tests/test_drum.py):
    the drive supplies work (> 0) and the balance kinetic + gravity + contact + dissipated −
    supplied stays constant (≤ 1e-10 of the supplied work; the ball starts 0.01 mm from its
    resting distance from the axis, 0.07909 m by brentq in tests/test_drum.py)."""
    case = write_case(shared_tmp / "drum.toml", DRUM, comm)
    assert main(["bodies", str(case), "--out", str(shared_tmp / "drum"), "--quiet"]) == 0
    series = np.load(shared_tmp / "drum" / "series.npz")
    supplied = series["ball.supplied"][-1]
    assert supplied > 0
    balance = series["ball.balance"]
    assert np.abs(balance - balance[0]).max() <= 1e-10 * supplied
    assert series["ball.angular_velocity"][-1, 1] > 0  # turned the way the drum turns
    description = json.loads((shared_tmp / "drum" / "series.json").read_text())
    assert description["obstacles"] == ["drum"] and description["bodies"] == ["ball"]
