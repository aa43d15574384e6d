"""The point-supported multiplier block: constraint rows B at points that move every step.

A constraint block couples ``m`` Lagrange multipliers to the degrees of freedom of several
fields (DOLFINx function spaces). Row ``j`` of ``B`` is a sum of *point terms*: a term puts the
weights ``c · w_k(p)`` on the dofs ``k`` of one field near a point ``p``, where ``c`` holds one
coefficient per block component of the field and ``w_k(p)`` is either

- the value at ``p`` of the basis function of dof ``k`` (exact evaluation of a P1/P2 field:
  ``Σ_k w_k u_k = u(p)``), or
- a smeared bump ``G((p − p_k)/spacing)`` of the offset between ``p`` and the dof's position
  (paper eq. 11), normalised to sum to one, see :mod:`fe_rodcontact.contact.geometry.kernels`.

The lifecycle is explicit: build a :class:`PointConstraints` once, then call
:meth:`PointConstraints.update` with an immutable snapshot of terms every time the points move.
Updating is collective; the terms must be the same on every rank.

Ownership: a point is claimed by exactly one rank, the owner of the cell that contains it (for
a parameterised 1D mesh: cell ``floor(s/h)``; for a
:class:`~fe_rodcontact.strings.locators.GeometryLocator`: the colliding owned cell of lowest
global index; the locators are in :mod:`fe_rodcontact.strings.locators`). In basis mode that
rank writes the whole term, also for ghost dofs; in kernel mode every rank writes the weights
of its owned dofs. Columns are numbered in the *stacked* layout of the fields (each rank's
owned dofs of field 0, then field 1, ...), the layout of a PETSc ``MatNest`` converted to AIJ
and of DOLFINx block assembly. Multipliers (rows) are numbered ``0..m-1`` and all live on rank
0 (the block is tiny). This module does not import PETSc;
:mod:`fe_rodcontact.strings.saddle_point` turns the entries into matrices.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from mpi4py import MPI

import numpy as np
import numpy.typing as npt
from dolfinx import fem

from fe_rodcontact.contact.geometry.kernels import Kernel
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.strings.locators import IntervalLocator, Locator

__all__ = ["PointConstraints", "PointTerm", "StackedNumbering"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PointTerm:
    """One contribution ``c · w(p)`` to row ``multiplier`` of B, on field ``field``.

    Attributes:
        multiplier: The row (multiplier number, ``0 <= multiplier < m``).
        field: Index of the field (function space) the term acts on.
        point: Where the term sits: a parameter value for an :class:`IntervalLocator`, physical
            coordinates for a :class:`~fe_rodcontact.strings.locators.GeometryLocator`.
        coefficients: One coefficient per block component of the field's space.
    """

    multiplier: int
    field: int
    point: float | tuple[float, ...]
    coefficients: tuple[float, ...] = (1.0,)


class StackedNumbering:
    """Global numbering of several fields stacked rank by rank (MatNest → AIJ layout).

    On rank r the stacked vector holds r's owned dofs of field 0, then of field 1, ...; ranks
    follow each other. :attr:`local_to_stacked` maps each field's local (owned + ghost,
    block-unrolled) dof index to its stacked global index.
    """

    def __init__(self, spaces: Sequence[fem.FunctionSpace]):
        """Compute the numbering (collective)."""
        comm = spaces[0].mesh.comm
        self.comm = comm
        sizes, starts = [], []
        for V in spaces:
            im, bs = V.dofmap.index_map, V.dofmap.index_map_bs
            sizes.append(im.size_local * bs)
            starts.append(im.local_range[0])
        self.owned_sizes = tuple(sizes)
        """Owned (unrolled) dofs of each field on this rank."""
        self.local_size = int(sum(sizes))
        """Owned stacked dofs on this rank."""
        all_sizes = np.array(comm.allgather(sizes), dtype=np.int64).reshape(comm.size, -1)
        all_starts = np.array(comm.allgather(starts), dtype=np.int64).reshape(comm.size, -1)
        rank_start = np.concatenate([[0], np.cumsum(all_sizes.sum(axis=1))[:-1]])
        field_start = rank_start[:, None] + np.cumsum(all_sizes, axis=1) - all_sizes
        self.global_size = int(all_sizes.sum())
        """Total number of stacked dofs."""
        self.offset = int(rank_start[comm.rank])
        """First stacked index owned by this rank."""
        self.local_to_stacked: list[IntArray] = []
        for f, V in enumerate(spaces):
            im, bs = V.dofmap.index_map, V.dofmap.index_map_bs
            n_local = im.size_local + im.num_ghosts
            glob = im.local_to_global(np.arange(n_local, dtype=np.int32)).astype(np.int64)
            owner = np.concatenate(
                [np.full(im.size_local, comm.rank), np.asarray(im.owners, dtype=np.int64)]
            )
            block = field_start[owner, f] + (glob - all_starts[owner, f]) * bs
            unrolled = (block[:, None] + np.arange(bs)[None, :]).reshape(-1)
            self.local_to_stacked.append(unrolled.astype(np.int64))


class PointConstraints:
    """Constraint rows ``B`` (and right-hand side ``g``) from point terms; see module docs."""

    def __init__(
        self,
        spaces: Sequence[fem.FunctionSpace],
        num_multipliers: int,
        locators: Sequence[Locator] | Locator,
        *,
        kernel: Kernel | None = None,
        bcs: Sequence[Sequence[fem.DirichletBC]] | None = None,
    ):
        """Build the block once.

        Args:
            spaces: One function space per field (the same space may appear twice).
            num_multipliers: Number of multipliers (rows of B).
            locators: One locator per field, or one for all fields.
            kernel: ``None`` for exact basis-function values, else a smeared kernel (needs
                :class:`IntervalLocator` s).
            bcs: Per field, Dirichlet conditions whose dofs get no constraint weight
                (their velocity is prescribed).

        Raises:
            InputError: For inconsistent arguments.
        """
        self._spaces = tuple(spaces)
        if not self._spaces:
            raise InputError("PointConstraints needs at least one function space")
        if num_multipliers < 0:
            raise InputError(f"number of multipliers must be >= 0, got {num_multipliers}")
        self._comm = self._spaces[0].mesh.comm
        self._num_multipliers = int(num_multipliers)
        if not isinstance(locators, Sequence):
            locators = [locators] * len(self._spaces)
        if len(locators) != len(self._spaces):
            raise InputError("give one locator per field")
        self._locators = tuple(locators)
        self._kernel = kernel
        self.numbering = StackedNumbering(self._spaces)
        """Stacked column numbering of the fields."""
        self._blocked = []
        for f, V in enumerate(self._spaces):
            if V.element.needs_dof_transformations:
                raise InputError(
                    f"field {f}: elements needing dof transformations are not supported"
                )
            bs = V.dofmap.index_map_bs
            n = (V.dofmap.index_map.size_local + V.dofmap.index_map.num_ghosts) * bs
            mask = np.zeros(n, dtype=bool)
            for bc in bcs[f] if bcs is not None else ():
                mask[bc.dof_indices()[0]] = True
            self._blocked.append(mask)
        self._dof_parameters: list[FloatArray | None] = [None] * len(self._spaces)
        if kernel is not None:
            for f, (V, loc) in enumerate(zip(self._spaces, self._locators, strict=True)):
                if not isinstance(loc, IntervalLocator):
                    raise InputError("smeared kernels need an IntervalLocator (a 1D parameter)")
                self._dof_parameters[f] = loc.dof_parameters(V)
        self._terms: tuple[PointTerm, ...] = ()
        self._rhs = np.zeros(self._num_multipliers)
        self._empty()

    # -- read-only state -------------------------------------------------------------------
    @property
    def comm(self) -> MPI.Comm:
        """The communicator of the fields."""
        return self._comm

    @property
    def spaces(self) -> tuple[fem.FunctionSpace, ...]:
        """The fields' function spaces."""
        return self._spaces

    @property
    def num_multipliers(self) -> int:
        """Number of multipliers (rows)."""
        return self._num_multipliers

    @property
    def kernel(self) -> Kernel | None:
        """The smeared kernel, or ``None`` for exact basis-function values."""
        return self._kernel

    @property
    def terms(self) -> tuple[PointTerm, ...]:
        """The snapshot of terms the rows were last built from."""
        return self._terms

    @property
    def rhs(self) -> FloatArray:
        """The right-hand side g (length m, the same on every rank)."""
        return self._rhs.copy()

    @property
    def entries(self) -> tuple[IntArray, IntArray, FloatArray]:
        """This rank's COO entries of B (rows, stacked global columns, values)."""
        return self._rows, self._cols, self._vals

    # -- lifecycle ---------------------------------------------------------------------------
    def _empty(self) -> None:
        self._rows = np.zeros(0, dtype=np.int64)
        self._cols = np.zeros(0, dtype=np.int64)
        self._vals = np.zeros(0)
        self._entry_term = np.zeros(0, dtype=np.int64)
        self._entry_field = np.zeros(0, dtype=np.int64)
        self._entry_dof = np.zeros(0, dtype=np.int64)

    def update(self, terms: Sequence[PointTerm], rhs: npt.ArrayLike | None = None) -> None:
        """Rebuild the rows for a new snapshot of terms (collective, same terms on every rank).

        Args:
            terms: The point terms.
            rhs: The constraint right-hand side g (length m); zero by default.

        Raises:
            InputError: On every rank, for an out-of-range multiplier/field, wrong number of
                coefficients or a point outside the mesh.
        """
        terms = tuple(terms)
        message = None
        for t in terms:
            if not 0 <= t.multiplier < self._num_multipliers:
                message = f"term {t}: multiplier out of range [0, {self._num_multipliers})"
            elif not 0 <= t.field < len(self._spaces):
                message = f"term {t}: field out of range [0, {len(self._spaces)})"
            elif len(t.coefficients) != self._spaces[t.field].dofmap.index_map_bs:
                message = f"term {t}: needs one coefficient per block component"
        raise_collectively(self._comm, message)
        g = np.zeros(self._num_multipliers) if rhs is None else np.asarray(rhs, dtype=np.float64)
        if g.shape != (self._num_multipliers,):
            raise InputError(f"rhs must have length {self._num_multipliers}")
        pieces: list[tuple[int, int, IntArray, FloatArray]] = []  # (term, field, dofs, weights)
        for f in range(len(self._spaces)):
            ids = [i for i, t in enumerate(terms) if t.field == f]
            if not ids:
                continue
            points = [terms[i].point for i in ids]
            if self._kernel is None:
                pieces.extend(self._basis_weights(f, ids, points))
            else:
                pieces.extend(self._kernel_weights(f, ids, points))
        rows, cols, vals, eterm, efield, edof = [], [], [], [], [], []
        for i, f, dofs, weights in pieces:
            t = terms[i]
            bs = len(t.coefficients)
            coeffs = np.asarray(t.coefficients, dtype=np.float64)
            unrolled = (dofs[:, None] * bs + np.arange(bs)[None, :]).reshape(-1)
            w = (weights[:, None] * coeffs[None, :]).reshape(-1)
            keep = (w != 0.0) & ~self._blocked[f][unrolled]
            unrolled, w = unrolled[keep], w[keep]
            rows.append(np.full(w.size, t.multiplier, dtype=np.int64))
            cols.append(self.numbering.local_to_stacked[f][unrolled])
            vals.append(w)
            eterm.append(np.full(w.size, i, dtype=np.int64))
            efield.append(np.full(w.size, f, dtype=np.int64))
            edof.append(unrolled.astype(np.int64))
        self._terms = terms
        self._rhs = g.copy()
        if not rows:
            self._empty()
            return
        self._rows = np.concatenate(rows)
        self._cols = np.concatenate(cols)
        self._vals = np.concatenate(vals)
        self._entry_term = np.concatenate(eterm)
        self._entry_field = np.concatenate(efield)
        self._entry_dof = np.concatenate(edof)

    def _basis_weights(
        self, f: int, ids: list[int], points: list
    ) -> list[tuple[int, int, IntArray, FloatArray]]:
        """Basis-function values at the points this rank owns."""
        V = self._spaces[f]
        cells, ref = self._locators[f].locate(points)
        element = V.ufl_element()
        scalar = element.sub_elements[0] if element.block_size > 1 else element
        out = []
        for i, cell, X in zip(ids, cells, ref, strict=True):
            if cell < 0:
                continue
            phi = scalar.tabulate(0, X[None, :])[0, 0]
            dofs = np.asarray(V.dofmap.cell_dofs(int(cell)), dtype=np.int64)
            out.append((i, f, dofs, np.asarray(phi, dtype=np.float64)))
        return out

    def _kernel_weights(
        self, f: int, ids: list[int], points: list
    ) -> list[tuple[int, int, IntArray, FloatArray]]:
        """Kernel weights on this rank's owned dofs, normalised to sum to one over all ranks."""
        V = self._spaces[f]
        loc = self._locators[f]
        assert isinstance(loc, IntervalLocator) and self._kernel is not None
        checked = loc.check(points)
        params = self._dof_parameters[f]
        assert params is not None
        n_owned = V.dofmap.index_map.size_local
        spacing = loc.dof_spacing(V)
        local = []
        sums = np.zeros(len(ids))
        for j, p in enumerate(checked):
            r = loc.offsets(float(p), params[:n_owned]) / spacing
            dofs = np.flatnonzero(np.abs(r) < self._kernel.radius)
            w = self._kernel(r[dofs])
            sums[j] = w.sum()
            local.append((dofs.astype(np.int64), w))
        total = np.empty_like(sums)
        self._comm.Allreduce(sums, total, op=MPI.SUM)
        return [
            (i, f, dofs, w / total[j])
            for j, (i, (dofs, w)) in enumerate(zip(ids, local, strict=True))
        ]

    # -- evaluation ---------------------------------------------------------------------------
    def evaluate(self, arrays: Sequence[npt.ArrayLike]) -> FloatArray:
        """Value of every term, ``c · Σ_k w_k x_k``, for field arrays with up-to-date ghosts.

        Args:
            arrays: One local array (owned + ghosts, e.g. ``Function.x.array``) per field.

        Returns:
            One value per term (same on every rank; collective).
        """
        partial = np.zeros(len(self._terms))
        for f, x in enumerate(arrays):
            sel = self._entry_field == f
            if np.any(sel):
                x = np.asarray(x)
                np.add.at(partial, self._entry_term[sel], self._vals[sel] * x[self._entry_dof[sel]])
        total = np.empty_like(partial)
        self._comm.Allreduce(partial, total, op=MPI.SUM)
        return total

    def residual(self, arrays: Sequence[npt.ArrayLike]) -> FloatArray:
        """Constraint residual ``B x − g`` per multiplier (collective)."""
        values = self.evaluate(arrays)
        out = -self._rhs.copy()
        np.add.at(out, [t.multiplier for t in self._terms], values)
        return out
