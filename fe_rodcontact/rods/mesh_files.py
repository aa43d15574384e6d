"""Rods read from mesh files with meshio: gmsh ``.msh``, ``.xdmf``, ``.vtu``/``.vtk`` polylines.

Rank 0 reads the file, splits its line cells into rods (by tag, or else by connected
component), checks each rod (zero-length cells, duplicate nodes, a single chain), orders and
orients its cells along the chain, and :func:`~fe_rodcontact.rods.mesh.distribute_chains`
builds the :class:`~fe_rodcontact.rods.mesh.RodMesh`; an error is raised on every rank.
"""

import contextlib
import io
from pathlib import Path

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.chains import (
    RodChain,
    chain_cells,
    chain_with_frames,
    duplicate_nodes,
    validate_chain,
)
from fe_rodcontact.rods.mesh import RodMesh, distribute_chains

__all__ = ["read_rod_mesh"]

Array = npt.NDArray[np.float64]


def _order_chain(cells: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], bool]:
    """Reorder and re-orient the cells of a valid chain from one end to the other."""
    ends = cells[:, :2]
    count = np.bincount(ends.ravel())
    open_ends = np.flatnonzero(count == 1)
    closed = len(open_ends) == 0
    start = int(ends[0, 0]) if closed else int(open_ends.min())
    by_vertex: dict[int, list[int]] = {}
    for c, (a, b) in enumerate(ends):
        by_vertex.setdefault(int(a), []).append(c)
        by_vertex.setdefault(int(b), []).append(c)
    ordered, used, v = [], np.zeros(len(cells), bool), start
    for _ in range(len(cells)):
        c = next(c for c in by_vertex[v] if not used[c])
        used[c] = True
        cell = cells[c].copy()
        if cell[0] != v:
            cell[0], cell[1] = cell[1], cell[0]
        ordered.append(cell)
        v = int(cell[1])
    return np.array(ordered, dtype=np.int64), closed


def _chain_from_cells(x: Array, cells: npt.NDArray[np.int64], name: str) -> RodChain:
    """A :class:`RodChain` from a validated set of P1/P2 cells in any order and orientation.

    Vertex tangents average the one-sided tangents of the two cells meeting there (the
    derivative of each cell's P1/P2 interpolation); midpoint tangents are the cell's own.
    """
    ordered, closed = _order_chain(cells)
    degree = cells.shape[1] - 1
    xa, xb = x[ordered[:, 0]], x[ordered[:, 1]]
    if degree == 1:
        t_start = t_end = xb - xa
    else:
        xm = x[ordered[:, 2]]
        t_start, t_mid, t_end = -3 * xa - xb + 4 * xm, xb - xa, xa + 3 * xb - 4 * xm

    def unit(v: Array) -> Array:
        return v / np.linalg.norm(v, axis=-1, keepdims=True)

    t_start, t_end = unit(t_start), unit(t_end)
    vertex_t = t_start.copy()
    vertex_t[1:] += t_end[:-1]
    if closed:
        vertex_t[0] += t_end[-1]
    else:
        vertex_t = np.vstack([vertex_t, t_end[-1:]])
    vertex_t = unit(vertex_t)
    vertex_ids = np.concatenate([ordered[:, 0], [] if closed else ordered[-1:, 1]]).astype(int)
    if degree == 1:
        node_ids, tangents = vertex_ids, vertex_t
    else:
        n_nodes = len(vertex_ids) + len(ordered)
        node_ids = np.empty(n_nodes, dtype=int)
        tangents = np.empty((n_nodes, 3))
        node_ids[0::2], tangents[0::2] = vertex_ids, vertex_t
        node_ids[1::2], tangents[1::2] = ordered[:, 2], unit(t_mid)
    xs = x[node_ids]
    cells_chain, n_nodes = chain_cells(degree, len(ordered), closed)
    assert n_nodes == len(xs)
    return chain_with_frames(xs, cells_chain, tangents, closed, name)


_LINE_TYPES = {"line": 1, "line3": 2}


def _read_chains(path: Path, rod_tag: str | None) -> tuple[list[RodChain], int]:
    """Read a meshio file on one rank and split it into one chain per tag (or component)."""
    import meshio

    suffixes = {".msh", ".xdmf", ".xmf", ".vtu", ".vtk"}
    if path.suffix.lower() not in suffixes:
        raise InputError(
            f"{path}: unknown rod mesh format {path.suffix!r}; use one of {sorted(suffixes)}."
        )
    if not path.exists():
        raise InputError(f"{path}: no such file.")
    said = io.StringIO()  # meshio prints some errors itself before it calls sys.exit()
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            data = meshio.read(path)
    except (Exception, SystemExit) as error:  # meshio raises many types; name the file either way
        lines = [*said.getvalue().splitlines(), str(error)]
        detail = next((t.removeprefix("Error: ").strip() for t in lines if len(t) > 3), "")
        detail = detail or type(error).__name__
        raise InputError(
            f"{path}: meshio could not read it ({detail}); check that the file is complete "
            "and in the format its suffix says."
        ) from None
    blocks = [b for b in data.cells if b.dim == 1 or b.type in _LINE_TYPES]
    other = sorted({b.type for b in data.cells if b.type not in _LINE_TYPES and b.type != "vertex"})
    if other:
        raise InputError(
            f"{path}: cells of type {other} are not lines; a rod mesh holds only 'line' or "
            "'line3' cells (remove surface/volume cells or export only the curves)."
        )
    if not blocks:
        raise InputError(f"{path}: no line cells found.")
    degrees = {_LINE_TYPES[b.type] for b in blocks}
    if len(degrees) > 1:
        raise InputError(f"{path}: mixes line and line3 cells; use one element degree.")
    degree = degrees.pop()
    cells = np.vstack([b.data for b in blocks]).astype(np.int64)
    # Tags: gmsh physical groups, or a named cell-data field, else connected components.
    tag_names = [rod_tag] if rod_tag else ["gmsh:physical", "rod", "rods", "tags", "cell_tags"]
    tags = None
    for key in tag_names:
        if key in data.cell_data:
            tags = np.concatenate(
                [
                    np.asarray(arr).ravel()
                    for arr, b in zip(data.cell_data[key], data.cells)
                    if b.type in _LINE_TYPES
                ]
            )
            break
    if rod_tag and tags is None:
        raise InputError(f"{path}: no cell data {rod_tag!r}; found {sorted(data.cell_data)}.")
    x = np.zeros((len(data.points), 3))
    x[:, : data.points.shape[1]] = data.points
    length = np.linalg.norm(x[cells[:, 1]] - x[cells[:, 0]], axis=1)
    short = np.flatnonzero(length <= 1e-12 * max(float(np.ptp(x, axis=0).max()), 1e-300))
    if len(short):
        raise InputError(
            f"{path}: cell {short[0]} has zero length (its end nodes "
            f"{cells[short[0], :2].tolist()} coincide); remove it or merge its nodes."
        )
    duplicate = duplicate_nodes(x, np.unique(cells))
    if duplicate is not None:
        raise InputError(f"{path}: {duplicate}")
    if tags is None:
        tags = _components(cells)
    chains = []
    for value in np.unique(tags):
        rod_cells = cells[tags == value]
        name = f"rod{value}"
        message = validate_chain(x, rod_cells, name)
        if message:
            raise InputError(f"{path}: {message}")
        chains.append(_chain_from_cells(x, rod_cells, name))
    return chains, degree


def _components(cells: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Label connected components of line cells (through shared end nodes)."""
    parent = np.arange(cells.max() + 1)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in cells[:, :2]:
        ra, rb = find(int(a)), find(int(b))
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([find(int(a)) for a in cells[:, 0]])
    return np.unique(roots, return_inverse=True)[1]


def read_rod_mesh(
    comm: MPI.Comm,
    filename: str | Path,
    *,
    rod_tag: str | None = None,
    cell_ranks: npt.ArrayLike | None = None,
) -> RodMesh:
    """Read rods from a gmsh ``.msh``, ``.xdmf`` or ``.vtu``/``.vtk`` file of line cells.

    Rods are the cells sharing a tag (gmsh physical group, or the cell-data field ``rod_tag``),
    or else the connected components. Cells may come in any order and orientation; each rod
    is ordered from its lowest-numbered free end.
    """
    chains, degree, message = None, None, None
    if comm.rank == 0:
        try:
            chains, degree = _read_chains(Path(filename), rod_tag)
        except InputError as error:
            message = str(error)
    raise_collectively(comm, message)
    degree = comm.bcast(degree, root=0)
    return distribute_chains(comm, chains, degree, cell_ranks)
