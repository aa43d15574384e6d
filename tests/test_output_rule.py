"""One output rule for every subcommand, and each run says where it wrote.

Output folders (``--out``, ``[output].folder``) are relative to the current folder; input
paths in a case file (``[mesh].file``) are relative to the case file.
"""

from mpi4py import MPI

import pytest
from test_bad_inputs import DYNAMICS, STATICS

from fe_rodcontact.cli import main


@pytest.fixture
def folders(shared_tmp, monkeypatch):
    cases, run = shared_tmp / "cases", shared_tmp / "run"
    if MPI.COMM_WORLD.rank == 0:
        cases.mkdir()
        run.mkdir()
    MPI.COMM_WORLD.barrier()
    monkeypatch.chdir(run)
    return cases, run


@pytest.mark.parametrize(
    ("command", "text", "product"),
    [("statics", STATICS, "statics.npz"), ("dynamics", DYNAMICS, "series.npz")],
)
def test_case_output_folder_is_relative_to_the_current_folder(
    command, text, product, folders, capsys
):
    cases, run = folders
    case = cases / "case.toml"
    last = "vtx = false" if command == "statics" else "vtx_every = 0"  # in [output]
    if MPI.COMM_WORLD.rank == 0:
        case.write_text(text.replace(last, f'{last}\nfolder = "res"'))
    MPI.COMM_WORLD.barrier()
    assert main([command, str(case), "--no-progress"]) == 0
    assert (run / "res" / product).exists()
    assert not (cases / "res").exists()
    if MPI.COMM_WORLD.rank == 0:
        assert f"results in {run / 'res'}" in capsys.readouterr().out


def test_mesh_file_is_relative_to_the_case(folders, capsys):
    from conftest import REPO

    cases, run = folders
    case = cases / "mesh.toml"
    if MPI.COMM_WORLD.rank == 0:
        (cases / "rods.msh").write_bytes((REPO / "meshes" / "two_rods.msh").read_bytes())
        case.write_text(
            (REPO / "demos" / "cases" / "two_rods_gravity.toml")
            .read_text()
            .replace("../../meshes/two_rods.msh", "rods.msh")
            .replace('folder = "results/two_rods_gravity"', 'folder = "g"\nplot = false')
        )
    MPI.COMM_WORLD.barrier()
    assert main(["statics", str(case), "--no-progress"]) == 0
    assert (run / "g" / "statics.npz").exists()


def test_strings_out_is_relative_to_the_current_folder(folders, capsys):
    _, run = folders
    assert main(["strings", "--t-end", "0.05", "--out", "s/strings.npz"]) == 0
    assert (run / "s" / "strings.npz").exists()
    if MPI.COMM_WORLD.rank == 0:
        assert f"wrote {run / 's' / 'strings.npz'}" in capsys.readouterr().out
