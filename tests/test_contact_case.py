"""``[contact]`` in dynamics case files: the rod-on-slope case runs small; bad keys are errors."""

import h5py
import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.cli import main


def small_case(replace=()):
    text = (REPO / "demos" / "cases" / "rod_on_slope.toml").read_text()
    text = text.replace("t_end = 1.0", "t_end = 0.02").replace("elements = 16", "elements = 4")
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_rod_on_slope_case_runs(comm, shared_tmp):
    case = shared_tmp / "slope.toml"
    if comm.rank == 0:
        case.write_text(small_case())
    comm.barrier()
    out = shared_tmp / "slope_out"
    assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
    data = np.load(out / "series.npz")
    # A flat rod on the plane: a line contact, two Gauss points per element, from the start.
    assert np.all(data["contacts"] == 8)
    assert np.all(data["min_gap"] > 0) and np.all(data["min_gap"] < 0.005)
    balance = data["total_energy"] + data["dissipated_energy"]
    assert np.abs(balance - balance[0]).max() < 1e-9
    with h5py.File(out / "contacts.vtkhdf", "r") as f:
        assert np.array_equal(f["VTKHDF/Steps/Values"][:], data["t"])


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        ((('model = "potential"', 'model = "rolling"'),), "contact.law is a contact law"),
        ((('model = "potential"', 'model = "magnetic"'),), "model 'magnetic' unknown"),
        ((("margin = 0.005", "margin = 0.005\nspeed = 3"),), "unknown key contact.speed"),
        (
            (("margin = 0.005", "margin = 0.005\nslide_outside_cone = true"),),
            "contact.slide_outside_cone belongs to model = 'rolling'",
        ),
        ((('name = "repulsive"', 'name = "sticky"'),), "contact.law"),
        ((("exponent = 8 }\ndamping", "exponent = 0.5 }\ndamping"),), "contact.law"),
        ((("normal = [-0.42262, 0.0, 0.90631]\n", ""),), "a plane needs normal"),
        ((('type = "plane"', 'type = "sphere"'),), "contact.obstacles[0]: type 'sphere' unknown"),
        ((("margin = 0.005", "margin = -1.0"),), "margin must be positive"),
        ((("start = [-0.00930, 0.0, 0.01994]", "start = [-0.00930, 0.0, 0.0]"),), "gap"),
        ((("friction_coefficient = 0.3,", 'friction_coefficient = "high",'),), "friction"),
        (
            (("friction = {", 'friction = "rough"\n# {'),),
            "contact.friction must be a number, got 'rough'",
        ),
        (
            (("margin = 0.005", "margin = 0.005\nquadrature_degree = 0"),),
            "contact.quadrature_degree = 0 is not a Gauss rule's degree; give an integer of "
            "at least 1",
        ),
        (
            (("margin = 0.005", "margin = 0.005\nquadrature_degree = 2.5"),),
            "contact.quadrature_degree must be an integer, got 2.5",
        ),
        (
            (
                ('model = "potential"', 'model = "rolling"\nquadrature_degree = 6'),
                ("law = {", "# law = {"),
                ("damping = {", "# damping = {"),
                ("friction = {", "# friction = {"),
            ),
            "contact.quadrature_degree belongs to model = 'potential'",
        ),
    ],
)
def test_bad_contact_tables(comm, shared_tmp, capsys, replace, message):
    case = shared_tmp / "bad_contact.toml"
    if comm.rank == 0:
        case.write_text(small_case(replace))
    comm.barrier()
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "bad"), "--no-progress"]) == 2
    if comm.rank == 0:
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err


def test_rod_rolls_down_slope_case(comm, shared_tmp):
    """model = "rolling": friction (1/3) m g sin θ and normal force m g cos θ (rolling cylinder).

    One contact point per node of the rod; the forces meet the closed forms to round-off
    (measured 4e-14 relative; tolerance 1e-9, the Newton tolerance's order)."""
    text = (REPO / "demos" / "cases" / "rod_rolls_down_slope.toml").read_text()
    text = text.replace("t_end = 0.3", "t_end = 0.05")
    case = shared_tmp / "roll.toml"
    if comm.rank == 0:
        case.write_text(text)
    comm.barrier()
    out = shared_tmp / "roll_out"
    assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
    comm.barrier()
    rows = np.genfromtxt(out / "contacts.csv", delimiter=",", names=True)
    last = rows[rows["step"] == rows["step"].max()]
    assert len(last) == 9  # one contact per node of the rod lying on the plane
    force = np.array([last[f"force_{c}"].sum() for c in "xyz"])
    normal = np.array([-0.42262, 0.0, 0.90631])
    normal /= np.linalg.norm(normal)
    weight = 1000.0 * np.pi * 0.02**2 * 0.4 * 9.81
    sine = np.sqrt(1 - normal[2] ** 2)
    along = np.linalg.norm(force - (force @ normal) * normal)
    assert force @ normal == pytest.approx(weight * normal[2], rel=1e-9)
    assert along == pytest.approx(weight * sine / 3, rel=1e-9)
    assert np.max(rows["slip"]) < 1e-12


def test_friction_shorthand_is_the_table_with_the_default_speed(comm, shared_tmp):
    """``friction = 0.3`` and ``{ friction_coefficient = 0.3 }`` are Coulomb friction with
    ε_v = REGULARIZATION_VELOCITY (1e-3 m/s): the same run, bit for bit, as the full table."""
    from fe_rodcontact.cli.contact_case import REGULARIZATION_VELOCITY

    assert REGULARIZATION_VELOCITY == 1e-3  # the case file's own value, which it replaces
    table = "friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }"
    series = []
    for k, friction in enumerate(
        (table, "friction = 0.3", "friction = { friction_coefficient = 0.3 }")
    ):
        case = shared_tmp / f"friction_{k}.toml"
        if comm.rank == 0:
            case.write_text(small_case([(table, friction)]))
        comm.barrier()
        out = shared_tmp / f"friction_{k}"
        assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
        series.append(np.load(out / "series.npz"))
    assert series[0]["dissipated_energy"][-1] > 0  # the friction acts
    for other in series[1:]:
        for key in ("kinetic_energy", "dissipated_energy", "min_gap"):
            assert np.array_equal(other[key], series[0][key]), key


def test_pull_off_case(comm, shared_tmp):
    """``demos/cases/pull_off.toml`` small (4 elements, Δt = 0.1 s, to 3 s): the rod follows
    the adhesive law's stable branch while the pull grows and leaves past the pull-off force.

    At t = 2.4 s the pull is 0.225 N/m (0.9 of β/4): the quasi-static gap solves
    β((g/g₀)^(−3) − (g/g₀)^(−6)) = pull on the branch below the pull-off gap, u = (g/g₀)^(−3) =
    (1 + sqrt(1 − 4 pull/β))/2 (AdhesiveLaw with the slides' exponents). Tolerance 1 % of g:
    the ramp is slow against the contact's oscillation but not quasi-static (measured 0.11 %).
    By t = 3 s (pull 1.125 β/4) the rod has passed the pull-off gap g₀ 2^(1/3) and left.
    """
    from fe_rodcontact.contact import AdhesiveLaw

    text = (REPO / "demos" / "cases" / "pull_off.toml").read_text()
    for old, new in (("t_end = 4.0", "t_end = 3.0"), ("elements = 32", "elements = 4")):
        assert old in text
        text = text.replace(old, new)
    text = text.replace("dt = 0.01", "dt = 0.1")
    case = shared_tmp / "pull_off.toml"
    if comm.rank == 0:
        case.write_text(text)
    comm.barrier()
    out = shared_tmp / "pull_off"
    assert main(["dynamics", str(case), "--out", str(out), "--quiet"]) == 0
    data = np.load(out / "series.npz")
    law = AdhesiveLaw(coefficient=1.0, gap_scale=0.002)
    t, gap = data["t"], data["min_gap"]
    k = int(np.argmin(np.abs(t - 2.4)))
    pull = 0.09375 * t[k]
    static = law.gap_scale * ((1 + np.sqrt(1 - 4 * pull)) / 2) ** (-1 / 3)
    assert -law.force(static) == pytest.approx(pull, rel=1e-12)
    assert gap[k] == pytest.approx(static, rel=1e-2)
    assert gap[k] < law.pull_off_gap() < gap[-1]
    balance = data["total_energy"]
    assert np.abs(balance - balance[0]).max() <= 1e-8 * data["external_work"].max()


def test_quadrature_degree_sets_the_rule_along_the_rods(comm, shared_tmp):
    """``quadrature_degree`` is the degree of the rule of the obstacle laws along the rods: the
    documented default for P1 rods, 2·1 + 2 = 4, gives the run without the key bit for bit, and
    degree 1 (one point per element) a different one (the gap varies along the sagging rod)."""
    series = []
    for k, extra in enumerate(("", "\nquadrature_degree = 4", "\nquadrature_degree = 1")):
        case = shared_tmp / f"rule_{k}.toml"
        if comm.rank == 0:
            case.write_text(small_case([("margin = 0.005", "margin = 0.005" + extra)]))
        comm.barrier()
        out = shared_tmp / f"rule_{k}"
        assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
        series.append(np.load(out / "series.npz"))
    for key in ("kinetic_energy", "contact_energy", "dissipated_energy", "min_gap"):
        assert np.array_equal(series[1][key], series[0][key]), key
    assert not np.array_equal(series[2]["contact_energy"], series[0]["contact_energy"])
