"""``[[initial.rods]]``: initial fields per rod in case files, and the flagship as a case file.

The crossed strings (``demos/cases/crossed_strings.toml``) start pre-stretched and bent towards
each other, each string by its own displacement, and pushed, each by its own velocity: no
expression in z picks the string. Checked on a short run (4 steps of 1 ms, 24 elements per
string), serially and on 2 ranks.
"""

import numpy as np
import pytest
from case_texts import consistent_kinetic_energy, write_case
from conftest import REPO

from fe_rodcontact.cli import main
from fe_rodcontact.cli.initial_fields import RodLocator, combine

CASE = REPO / "demos" / "cases" / "crossed_strings.toml"


def test_crossed_strings_case(comm, shared_tmp):
    text = CASE.read_text().replace("t_end = 0.5", "t_end = 0.004")
    case = write_case(shared_tmp / "crossed.toml", text, comm)
    out = shared_tmp / "crossed_out"
    assert main(["dynamics", str(case), "--out", str(out), "--quiet"]) == 0
    data = np.load(out / "series.npz")
    # Each string got its own velocity: the kinetic energy at t = 0 is that of the P1
    # interpolants of 0.5 cos(πx) on a and 0.3 sin(2πy) on b with the consistent mass, computed
    # here from the nodes (to round-off: 1e-12 relative); swapped or shared fields differ by
    # far more (a's field on b's points, x = 0, is 0.5 everywhere).
    s = np.linspace(-0.5, 0.5, 25)
    rho_a = 1100.0 * np.pi * 0.005**2
    expected = consistent_kinetic_energy(rho_a, s, 0.5 * np.cos(np.pi * s))
    expected += consistent_kinetic_energy(rho_a, s, 0.3 * np.sin(2 * np.pi * s))
    assert data["kinetic_energy"][0] == pytest.approx(expected, rel=1e-12)
    # Each string got its own displacement: they touch at the crossing from the start (within
    # touch_tolerance 1e-6 of 2R) and roll from then on: one contact at every step, slip at
    # round-off (≤ 1e-10 m/s), energy + the start's impact loss constant (≤ 1e-10 relative).
    assert np.all(data["contacts"] == 1)
    assert np.nanmax(data["max_slip"][1:]) <= 1e-10
    energy = (
        data["kinetic_energy"] + data["elastic_energy"] + np.nan_to_num(data["impact_energy_loss"])
    )
    assert np.abs(energy - energy[0]).max() <= 1e-10 * energy[0]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('rod = "c"\nvelocity = ["0", "0", "0"]', "initial.rods[1].rod: no rod named 'c'"),
        ('rod = "a"\nvelocity = ["0", "0", "0"]', "rod 'a' has two tables"),
        ('rod = "b"\nvelocity = ["0", "sqrt(", "0"]', "initial.rods[1].velocity[1]"),
        ('rod = "b"\nvelocity = ["0", "0"]', "initial.rods[1].velocity needs three"),
        ('rod = "b"\nspeed = ["0", "0", "0"]', "unknown key initial.rods[1].speed"),
    ],
)
def test_bad_rod_tables(comm, shared_tmp, capsys, entry, message):
    text = CASE.read_text()
    start = text.index('[[initial.rods]]\nrod = "b"')
    end = text.index("[time]")
    text = text[:start] + f"[[initial.rods]]\n{entry}\n\n" + text[end:]
    case = write_case(shared_tmp / "bad_initial.toml", text, comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "bad"), "--quiet"]) == 2
    if comm.rank == 0:
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err


def test_locator_finds_the_nearest_centreline():
    """Two parallel rods 0.3 apart: a in 2 long elements, b in 20 short ones above it."""
    coordinates = np.vstack(
        [
            np.column_stack([np.linspace(0, 1, 3), np.zeros(3), np.zeros(3)]),
            np.column_stack([np.linspace(0, 1, 21), np.zeros(21), np.full(21, 0.3)]),
        ]
    )
    cells = np.vstack([[[0, 1], [1, 2]], [[3 + i, 4 + i] for i in range(20)]])
    rods = np.array([0, 0] + [1] * 20, dtype=np.int32)
    locate = RodLocator(coordinates, cells, rods)
    points = np.array(
        [
            [0.0, 0.5, 1.0, 0.5, 0.5, 0.5, 0.37],  # nodes and points of each rod, and between
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.3, 0.3, 0.1, 0.2, 0.149],
        ]
    )
    # (0.5, 0, 0.1) is 0.1 from a but all 8 nearest cell midpoints are b's: the check
    # beyond them finds a's long element
    assert locate(points).tolist() == [0, 0, 1, 1, 0, 1, 0]


def test_combine_gives_each_rod_its_field():
    def locate(x):
        return (x[2] > 0.15).astype(np.int32)

    field = combine(lambda x: np.ones((3, x.shape[1])), {1: lambda x: 2 * x}, locate)
    x = np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.3]])
    assert np.array_equal(field(x), [[1.0, 2.0], [1.0, 0.0], [1.0, 0.6]])
    only = combine(None, {0: lambda x: x}, locate)
    assert np.array_equal(only(x), [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert combine(None, {}, locate) is None
