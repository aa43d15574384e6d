"""The flagship demo runs small (serially and on 2 ranks) and writes its results."""

import runpy
import sys

import pytest
from conftest import REPO


def test_demo_rollup_helix(comm, shared_tmp, monkeypatch, capsys):
    out = shared_tmp / "demo"
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "demo_rollup_helix.py",
            "--elements",
            "16",
            "--turns",
            "1",
            "--helix-turns",
            "1",
            "--out-dir",
            str(out),
        ],
    )
    runpy.run_path(str(REPO / "demos" / "demo_rollup_helix.py"), run_name="__main__")
    if comm.rank == 0:
        printed = capsys.readouterr().out
        assert "f =  1.00 turns" in printed and "helix:" in printed
        assert (out / "rollup_helix.png").exists()
    for name in ("rollup.bp", "rollup.vtu", "helix.bp", "helix.vtu"):
        assert (out / name).exists()


def test_output_files_hold_the_deformed_rod(comm, shared_tmp):
    """The .vtu polyline's points are the deformed centreline (gathered across ranks)."""
    import meshio
    import numpy as np

    from fe_rodcontact.io.rods import write_vtu
    from fe_rodcontact.rods.curves import straight
    from fe_rodcontact.rods.loads import EndForce, Support
    from fe_rodcontact.rods.mesh import create_rod_mesh
    from fe_rodcontact.rods.rod import CosseratRod
    from fe_rodcontact.rods.section import Section
    from fe_rodcontact.stepping.statics import StaticProblem

    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=8, degree=2)
    rod = CosseratRod(rods, Section.circular(0.01, 1e9, nu=0.3))
    StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [EndForce(0, "end", (0, 0, -1.0))],
        petsc_options_prefix="vtu_",
    ).solve()
    write_vtu(rod, shared_tmp / "rod.vtu")
    data = meshio.read(shared_tmp / "rod.vtu")
    expected = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
    assert data.cells[0].type == "line3" and len(data.cells[0].data) == 8
    assert np.allclose(data.points, expected)
    # Euler–Bernoulli tip deflection PL³/3EI, small load: 1% (shear and nonlinearity < 0.1%).
    deflection = 1.0 / (3 * 1e9 * np.pi * 0.01**4 / 4)
    assert -expected[rods.end_node(0, "end"), 2] == pytest.approx(deflection, rel=1e-2)
