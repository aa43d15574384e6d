"""Rod meshes: generators, files through meshio, and a clear error for every bad mesh."""

import meshio
import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import arc, helix, polyline, ring, straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.mesh_files import read_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section


@pytest.mark.parametrize("degree", [1, 2])
def test_generators_in_one_mesh(comm, degree):
    rods = create_rod_mesh(
        comm,
        [
            straight((0, 0, 0), (1, 0, 0)),
            arc(2.0, np.pi / 3),
            ring(1.0, centre=(5, 0, 0)),
            helix(0.5, 0.2, 2.0, centre=(0, 5, 0)),
        ],
        elements=[4, 6, 12, 24],
        degree=degree,
    )
    assert rods.num_rods == 4 and rods.degree == degree
    assert rods.closed == (False, False, True, False)
    n_cells = [
        comm.allreduce(int(np.sum(rods.cells(i) < rods.mesh.topology.index_map(1).size_local)))
        for i in range(4)
    ]
    assert n_cells == [4, 6, 12, 24]
    # A ring has no ends; open rods have exactly one start and one end vertex globally.
    with pytest.raises(InputError, match="closed loop"):
        rods.end_tag(2, "start")
    for i in (0, 1, 3):
        for end in ("start", "end"):
            assert comm.allreduce(len(rods.end_vertices(i, end))) == 1
    # Exact lengths from the parameterisation: polygon/P2 lengths converge to them.
    assert rods.lengths[1] == pytest.approx(2 * np.pi / 3, rel=1e-2)


@pytest.mark.parametrize("degree", [1, 2])
def test_precurved_rods_are_stress_free(comm, degree):
    """A ring and a helix have zero energy and residual in their own shape."""
    import dolfinx.fem
    import dolfinx.fem.petsc

    rods = create_rod_mesh(
        comm, [ring(1.0), helix(1.0, 0.5, 2.0)], elements=[16, 32], degree=degree
    )
    rod = CosseratRod(rods, Section.circular(0.05, 1e6, nu=0.3))
    assert abs(rod.elastic_energy()) < 1e-20
    vector = dolfinx.fem.petsc.assemble_vector(dolfinx.fem.form(rod.internal_residual()))
    assert vector.norm() < 1e-8
    vector.destroy()


@pytest.mark.parametrize(
    ("name", "rods", "degree", "closed"),
    [
        ("two_rods.msh", 2, 1, (False, False)),
        ("helix_p2.vtu", 1, 2, (False,)),
        ("ring.xdmf", 1, 1, (True,)),
    ],
)
def test_sample_meshes(comm, name, rods, degree, closed):
    mesh = read_rod_mesh(comm, REPO / "meshes" / name)
    assert (mesh.num_rods, mesh.degree, mesh.closed) == (rods, degree, closed)


def test_shuffled_file_cells_are_chained(comm):
    """two_rods.msh has shuffled, randomly flipped cells: each rod is re-chained start→end."""
    rods = read_rod_mesh(comm, REPO / "meshes" / "two_rods.msh")
    rod = CosseratRod(rods, Section.circular(0.1, 1e6, nu=0.3))
    x = rod.gather_nodal_coordinates()
    assert np.allclose(x[rods.end_node(0, "start")], [0, 0, 0])
    assert np.allclose(x[rods.end_node(0, "end")], [4, 0, 0])
    assert abs(rod.elastic_energy()) < 1e-20  # consistent orientation: stress-free


def _write(shared_tmp, comm, name, points, cells, cell_type="line", **kw):
    path = shared_tmp / name
    if comm.rank == 0:
        meshio.write(
            path, meshio.Mesh(np.asarray(points, float), [(cell_type, np.asarray(cells))], **kw)
        )
    comm.barrier()
    return path


LINE = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]


@pytest.mark.parametrize(
    ("points", "cells", "cell_type", "message"),
    [
        (LINE, [[0, 1, 2]], "triangle", "not lines"),
        (
            [[0, 0, 0], [1, 0, 0], [1, 0, 0], [2, 0, 0]],
            [[0, 1], [1, 2], [2, 3]],
            "line",
            "zero length",
        ),
        ([[0, 0, 0], [1, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1], [2, 3]], "line", "duplicate nodes"),
        ([*LINE, [1, 1, 0]], [[0, 1], [1, 2], [1, 4]], "line", "more than two cells"),
    ],
)
def test_bad_mesh_files(comm, shared_tmp, points, cells, cell_type, message):
    path = _write(
        shared_tmp, comm, f"bad_{message.replace(' ', '_')}.vtu", points, cells, cell_type
    )
    with pytest.raises(InputError, match=message):
        read_rod_mesh(comm, path)


def test_two_pieces_with_one_tag(comm, shared_tmp):
    path = _write(
        shared_tmp,
        comm,
        "pieces.vtu",
        [*LINE, [5, 0, 0], [6, 0, 0]],
        [[0, 1], [1, 2], [4, 5]],
        cell_data={"rod": [np.array([0, 0, 0])]},
    )
    with pytest.raises(InputError, match="single chain"):
        read_rod_mesh(comm, path, rod_tag="rod")


def test_unknown_format_and_missing_file(comm, shared_tmp):
    with pytest.raises(InputError, match="unknown rod mesh format"):
        read_rod_mesh(comm, shared_tmp / "rods.stl")
    with pytest.raises(InputError, match="no such file"):
        read_rod_mesh(comm, shared_tmp / "missing.msh")


def test_bad_generated_rods(comm):
    with pytest.raises(InputError, match="zero-length"):
        create_rod_mesh(comm, [polyline([[0, 0, 0], [1, 0, 0], [1, 0, 0]])])
    with pytest.raises(InputError, match="degree must be 1 or 2"):
        create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=2, degree=3)
    with pytest.raises(InputError, match="positive number of elements"):
        create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=0)
    with pytest.raises(InputError, match="coincide"):
        straight((1, 1, 1), (1, 1, 1))
