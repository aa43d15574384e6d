"""The ``fe-rodcontact statics`` command and its TOML case files, good and bad."""

import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.cli import main
from fe_rodcontact.cli.case import StaticsCase, load_case
from fe_rodcontact.errors import InputError

CASES = REPO / "demos" / "cases"


def test_rollup_case_runs_and_writes_results(comm, shared_tmp):
    out = shared_tmp / "rollup"
    assert (
        main(["statics", str(CASES / "cantilever_rollup.toml"), "--out", str(out), "--no-progress"])
        == 0
    )
    for name in ("rods.bp", "rods.vtu", "rods.png", "statics.npz"):
        assert (out / name).exists()
    data = np.load(out / "statics.npz")
    assert data["load_factor"][-1] == pytest.approx(1.0)
    # A full circle: the tip returns to the clamp (closed form, round-off tolerance).
    names = list(data["end_names"])
    assert np.allclose(data["end_positions"][-1][names.index("cantilever:end")], 0, atol=1e-10)


def test_mesh_file_case_gravity_matches_beam_theory(comm, shared_tmp):
    """rod1 of two_rods.msh (L = 4, steel, r = 2 cm) under self-weight: tip deflection
    qL⁴/(8EI) of Euler–Bernoulli theory; w/L = 3% so geometric nonlinearity and shear change
    it by < 0.3%, the tolerance here."""
    out = shared_tmp / "gravity"
    assert (
        main(["statics", str(CASES / "two_rods_gravity.toml"), "--out", str(out), "--no-progress"])
        == 0
    )
    data = np.load(out / "statics.npz")
    names = list(data["end_names"])
    tip = data["end_positions"][-1][names.index("rod1:end")]
    area, inertia = np.pi * 0.02**2, np.pi * 0.02**4 / 4
    q = 7850.0 * area * 9.81
    expected = q * 4.0**4 / (8 * 2.1e11 * inertia)
    assert -tip[2] == pytest.approx(expected, rel=3e-3)


def write_case(shared_tmp, comm, text, name="case.toml"):
    path = shared_tmp / name
    if comm.rank == 0:
        path.write_text(text)
    comm.barrier()
    return path


GOOD = """
[[rods]]
curve = "straight"
start = [0, 0, 0]
end = [1, 0, 0]
elements = 4
[section]
radius = 0.01
E = 1e9
nu = 0.3
"""


END_FORCE = "[[loads]]\ntype = 'end_force'\nrod = 0\nend = 'end'\nforce = [0, 0, 1]\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("[solvr]\n", "unknown key solvr"),
        ("[output]\nfolderr = 'x'\n", "unknown key output.folderr"),
        (
            "[[loads]]\ntype = 'end_moment'\nrod = 0\nend = 'end'\nmoment = [0, 1]\n",
            "loads\\[0\\].moment must be a list of 3 numbers",
        ),
        ("[[loads]]\ntype = 'twist'\n", "unknown load type 'twist'"),
        ("[[supports]]\nrod = 0\n", "missing key supports\\[0\\].end"),
        ("[mesh]\ndegree = 'two'\n", "mesh.degree must be an integer"),
        (
            END_FORCE + "follow = true\n",
            "unknown key loads\\[0\\].follow",
        ),
    ],
)
def test_bad_case_keys_are_named(comm, shared_tmp, extra, message):
    path = write_case(shared_tmp, comm, GOOD + extra)
    with pytest.raises(InputError, match=message):
        load_case(path, StaticsCase)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace('"straight"', '"spiral"'), "rods\\[0\\].curve: unknown curve 'spiral'"),
        (GOOD.replace("E = 1e9", "E = -1e9"), "section"),
        (GOOD.replace("nu = 0.3", ""), "exactly one of G"),
        (GOOD + "[[supports]]\nrod = 0\nend = 'middle'\n", "'start' or 'end'"),
        (GOOD + "[[supports]]\nrod = 'nope'\nend = 'start'\n", "unknown rod 'nope'"),
        (GOOD + "[mesh]\nfile = 'rods.msh'\n", "not both"),
        (GOOD.replace("elements = 4", ""), "positive number of elements"),
    ],
)
def test_invalid_case_values_fail_on_every_rank(comm, shared_tmp, text, message, capsys):
    path = write_case(shared_tmp, comm, text)
    assert main(["statics", str(path), "--out", str(shared_tmp / "o"), "--no-progress"]) == 2
    if comm.rank == 0:
        assert message.replace("\\", "") in capsys.readouterr().err


def test_unreadable_case_files(comm, shared_tmp):
    with pytest.raises(InputError, match="no such case file"):
        load_case(shared_tmp / "missing.toml")
    path = write_case(shared_tmp, comm, "[[rods]\n", "broken.toml")
    with pytest.raises(InputError, match="not valid TOML"):
        load_case(path)
