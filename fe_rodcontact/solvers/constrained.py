"""Newton on the rods with point terms and Lagrange multipliers: [R(x) + f(x, μ); c(x)] = 0.

The rod residual R and its Jacobian J come from a
:class:`~fe_rodcontact.solvers.newton.NewtonProblem`
(pack-once assembly of the UFL forms, Dirichlet rows); point terms
(:class:`~fe_rodcontact.solvers.linearisation.PointTerms`: rolling constraints, point contact
forces) add f(x, μ) with its tangent K = ∂f/∂x, the coupling G = ∂f/∂μ, and constraint rows
c(x, μ) with C = ∂c/∂x and D = ∂c/∂μ (zero for pure constraints). One PETSc SNES solves

    [ J + K   G ] [Δx]     [R + f]
    [   C     D ] [Δμ] = − [  c  ]

with public callbacks :meth:`ConstrainedNewton.residual` and :meth:`ConstrainedNewton.jacobian`.

Layout: the multipliers (a few per contact) are owned by rank 0 and follow its rod dofs, the
stacked layout of a MatNest converted to AIJ (:mod:`~fe_rodcontact.solvers.bordered_numbering`).
The pattern is set once per solve (contact
stencils are fixed during a solve), and only rebuilt when it changed; on several ranks the
matrix is assembled through PETSc's COO interface, with its values written in one call per
iteration.

The linear solves are direct. On several ranks they are MUMPS's LU, which pivots where the zero
multiplier block needs it. Serially they are PETSc's own LU (3–4 times faster than MUMPS on
these banded rod matrices), which does not pivot; the unknowns are therefore numbered in an
order of elimination that never meets a zero pivot when the rod block is positive definite
(:mod:`fe_rodcontact.solvers.elimination`), and the matrix is built in that order on arrays that
PETSc shares (:class:`~fe_rodcontact.solvers.ordered_matrix.OrderedMatrix`: a new pattern is merged
row by row, not sorted as COO entries). Where the order fails (an indefinite rod block, a
near-zero pivot caught by the PC or by the residual check of
:class:`~fe_rodcontact.solvers.solve_check.LinearSolveCheck`), the solve is repeated from its start
with
MUMPS: decided per solve, so a restarted run repeats the same choices.

A step's re-solve after the contact points moved a little starts near its solution: where its
start residual is below :data:`REUSE_FACTORS_BELOW` atol and the pattern is unchanged, it keeps
the last matrix and its factorisation (chord steps, continued to :data:`CHORD_TOLERANCE` atol;
Newton from the start again if they fail). Decided from the residual's norm, the same on every
rank.
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from mpi4py import MPI
from petsc4py import PETSc

import dolfinx.fem.petsc
import dolfinx.la.petsc
import numpy as np
import numpy.typing as npt

from fe_rodcontact.solvers.bordered_numbering import BorderedNumbering, PointPattern
from fe_rodcontact.solvers.coo_matrix import CooMatrix
from fe_rodcontact.solvers.linearisation import PointLinearisation, PointTerms, combine
from fe_rodcontact.solvers.newton import (
    NewtonProblem,
    _set_options,
    _suspicious_convergence,
    _weak,
)
from fe_rodcontact.solvers.ordered_matrix import OrderedMatrix
from fe_rodcontact.solvers.solve_check import LinearSolveCheck

__all__ = ["ConstrainedNewton"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

REUSE_FACTORS_BELOW = 1e4
"""A re-solve of a step whose start residual is below this multiple of atol (and whose pattern
is the last solve's) reuses the last matrix and its factorisation (chord steps)."""
CHORD_TOLERANCE = 0.1
"""Chord steps go on to this fraction of atol (the accuracy a full Newton step overshoots to),
or to the residual's round-off floor where that is higher (they cannot pass it)."""


@dataclass(frozen=True)
class _Linearised:
    """The point terms at one iterate: its (vector, state), its values, the linearisation."""

    key: tuple[int, int]
    values: FloatArray
    linearised: PointLinearisation


def _forced_step_from_a_solution(snes: PETSc.SNES, norms: FloatArray, atol: float) -> bool:
    """Whether SNES failed only on an iteration forced from a start that met the tolerance.

    ``snes_force_iteration`` makes the first iteration run even when the start residual is
    below atol (a step's residual may start there). From a solution (a step's re-solve starts
    at the last one) the Newton step only meets round-off, and a back-tracking line search
    gives up on it: DIVERGED_LINE_SEARCH after 0 iterations.
    """
    return bool(
        snes.getConvergedReason() == PETSc.SNES.ConvergedReason.DIVERGED_LINE_SEARCH
        and snes.getIterationNumber() == 0
        and len(norms)
        and norms[0] <= atol
    )


class ConstrainedNewton:
    """Newton's method on the rods with point terms (see the module docs).

    Args:
        problem: The rod's Newton problem (residual, Jacobian, Dirichlet conditions).
        terms: The point terms (their multipliers are numbered in this order).
        petsc_options_prefix: Prefix of this SNES's options (non-empty).
        petsc_options: SNES options (tolerances; the linear solver is chosen here, see the
            module docs).

    Attributes:
        lu_fallbacks: Solves repeated with MUMPS after PETSc's LU failed (serial only).
    """

    def __init__(
        self,
        problem: NewtonProblem,
        terms: Sequence[PointTerms],
        *,
        petsc_options_prefix: str,
        petsc_options: dict[str, object] | None = None,
    ):
        self._problem = problem
        self._terms = tuple(terms)
        self._prefix = petsc_options_prefix
        self._options = dict(petsc_options or {})
        space = problem.unknown.function_space
        self._comm: MPI.Comm = space.mesh.comm
        self._ordered = self._comm.size == 1
        self._options.update({"ksp_type": "preonly", "pc_type": "lu"})
        if self._ordered:
            self._options["pc_factor_mat_solver_type"] = "petsc"
            self._options["pc_factor_mat_ordering_type"] = "natural"
        else:
            self._options["pc_factor_mat_solver_type"] = "mumps"
        index_map = space.dofmap.index_map
        bs = space.dofmap.index_map_bs
        self._n = index_map.size_local * bs
        start = index_map.local_range[0] * bs
        self._x_rod = dolfinx.fem.petsc.create_vector(space)
        self._b_rod = dolfinx.fem.petsc.create_vector(space)
        owned_bc = [bc.dof_indices()[0][: bc.dof_indices()[1]] for bc in problem.bcs]
        local_bc = np.unique(np.concatenate(owned_bc)) if owned_bc else np.zeros(0, np.int64)
        local_bc = local_bc[local_bc < self._n].astype(np.int64) + start
        self._numbering = BorderedNumbering(
            owned_start=start,
            owned_size=self._n,
            rank0_dofs=int(self._comm.bcast(self._n if self._comm.rank == 0 else None)),
            multipliers=-1,
            dirichlet=np.unique(np.concatenate(self._comm.allgather(local_bc))),
            on_rank0=self._comm.rank == 0,
        )
        self._snes: PETSc.SNES | None = None
        self._A: PETSc.Mat | None = None
        self._X: PETSc.Vec | None = None
        self._F: PETSc.Vec | None = None
        self._contact: PointPattern | None = None
        self._coo_matrix: CooMatrix | None = None  # several ranks: rebuilt per layout
        self._ordered_matrix: OrderedMatrix | None = None
        self._factored = False  # the matrix of this pattern has been assembled (and factored)
        self._reusing = False  # this solve keeps the last matrix and its factors
        self.reused_factor_solves = 0
        """Re-solves that reused the last factorisation (:data:`REUSE_FACTORS_BELOW`)."""
        self._rod_slot: slice | IntArray = slice(0, self._n)
        self._multiplier_slot: slice | IntArray = slice(self._n, None)
        self.lu_fallbacks = 0
        self._linearised: _Linearised | None = None
        self._rod_residual_at: tuple[FloatArray, FloatArray] | None = None  # (state, R)
        self._check = LinearSolveCheck()
        self._sizes: list[int] = []
        self.multipliers = np.zeros(0)
        """The multipliers of the last solve (all of them, the same on every rank)."""
        self._failure: str | None = None

    def __del__(self) -> None:
        """Free the PETSc objects."""
        for name in ("_snes", "_A", "_X", "_F", "_x_rod", "_b_rod", "_ordered_matrix"):
            obj = getattr(self, name, None)
            if obj is not None:
                obj.destroy()

    # -- set-up per solve ----------------------------------------------------------------------
    @property
    def solver(self) -> PETSc.SNES | None:
        """The SNES of the last solve (``None`` before the first)."""
        return self._snes

    @property
    def failure(self) -> str | None:
        """Why the last solve failed (``None`` after a converged one)."""
        return self._failure

    def _layout(self, m: int) -> None:
        """Vectors, matrix and SNES for m multipliers (rebuilt when m changes)."""
        if m == self._numbering.multipliers:
            return
        for name in ("_snes", "_A", "_X", "_F"):
            obj = getattr(self, name)
            if obj is not None:
                obj.destroy()
        self._numbering = replace(self._numbering, multipliers=m)
        local = self._n + (m if self._comm.rank == 0 else 0)
        self._X = PETSc.Vec().createMPI((local, PETSc.DECIDE), comm=self._comm)
        self._F = self._X.duplicate()
        self._A = PETSc.Mat().create(comm=self._comm)
        self._A.setSizes(((local, PETSc.DECIDE), (local, PETSc.DECIDE)))
        self._A.setType("aij")
        self._contact = None
        self._coo_matrix = None
        self._rod_slot, self._multiplier_slot = slice(0, self._n), slice(self._n, None)
        self._snes = PETSc.SNES().create(self._comm)
        self._snes.setFunction(_weak(self.residual), self._F)
        self._snes.setJacobian(_weak(self.jacobian), self._A, self._A)
        self._snes.setOptionsPrefix(self._prefix)
        _set_options(self._snes, self._prefix, self._options, self._options.keys())
        self._check.attach(self._snes.getKSP())
        self._snes.setConvergenceHistory(reset=True)

    # -- the solve -------------------------------------------------------------------------------
    def solve(self, *, same_step: bool = False) -> tuple[bool, int]:
        """Newton from the current rod state and the terms' initial multipliers.

        Serially, a solve whose linear solve failed with PETSc's LU is repeated from its start
        with MUMPS (module docs); the iterations of both count.

        Args:
            same_step: A solve of the last solve's equations with moved points: no coefficient
                of the rod's forms changed, so they are not packed again, and the rod residual
                where the last solve ended is reused.

        Returns:
            (converged, iterations); the rod state and :attr:`multipliers` hold the last iterate.
        """
        self._sizes = [c.num_multipliers for c in self._terms]
        m = int(sum(self._sizes))
        self._layout(m)
        start = self._problem.unknown.x.array.copy()
        if not same_step:
            self._problem.pack()
            self._rod_residual_at = None
        converged, iterations, linear_failure = self._newton(reuse_factors=same_step)
        if not converged and self._reusing:  # the chord steps failed: Newton from the start
            self._problem.unknown.x.array[:] = start
            converged, more, linear_failure = self._newton()
            iterations += more
        if linear_failure and self._ordered:
            self.lu_fallbacks += 1
            self._problem.unknown.x.array[:] = start
            self._factor_with("mumps")
            try:
                converged, more, _ = self._newton()
            finally:
                self._factor_with("petsc")
            iterations += more
        return converged, iterations

    def _factor_with(self, package: str) -> None:
        """Let the next factorisations use ``package`` (``"petsc"``: in the order set here)."""
        assert self._snes is not None
        pc = self._snes.getKSP().getPC()
        pc.reset()
        pc.setFactorSolverType(package)
        if package == "petsc":
            pc.setFactorOrdering("natural")

    def _newton(self, reuse_factors: bool = False) -> tuple[bool, int, bool]:
        """One SNES solve from the start state: (converged, iterations, linear solve failed).

        Args:
            reuse_factors: Keep the last matrix and its factorisation (chord steps, to
                :data:`CHORD_TOLERANCE` of atol) where the pattern is the last solve's and the
                start residual is below :data:`REUSE_FACTORS_BELOW` atol.
        """
        assert self._X is not None and self._snes is not None and self._F is not None
        self._linearised = None
        unknown = self._problem.unknown
        start = (
            np.concatenate([c.initial_multipliers() for c in self._terms])
            if self._terms
            else np.zeros(0)
        )
        array = self._X.getArray()
        array[self._rod_slot] = unknown.x.array[: self._n]
        if self._comm.rank == 0:
            array[self._multiplier_slot] = start
        changed = self._set_pattern(self._X)
        start_values = self._X.getArray(readonly=True).copy()
        rtol, snes_atol, stol, max_it = self._snes.getTolerances()
        atol = max(snes_atol, self._problem.stall_floor)
        reuse = reuse_factors and self._factored and not changed
        if reuse:  # the start residual (its parts are cached for SNES's first evaluation)
            self.residual(None, self._X, self._F)
            reuse = self._F.norm() <= REUSE_FACTORS_BELOW * atol
        self._reusing = reuse  # the matrix's state stays, so the PC keeps its factors
        self.reused_factor_solves += int(reuse)
        # atol never below the state's round-off floor, which Newton and chord steps cannot pass
        floor = self._problem.stall_floor
        self._snes.setTolerances(atol=max(CHORD_TOLERANCE * atol, floor) if reuse else atol)
        error = None
        try:
            self._snes.solve(None, self._X)
        except PETSc.Error as exc:
            error = f"PETSc error {exc.ierr} in the linear solve (a singular matrix?)"
        finally:
            self._snes.setTolerances(rtol, snes_atol, stol, max_it)
        errors = [e for e in self._comm.allgather(error) if e is not None]
        reason = self._snes.getConvergedReason()
        norms = self._snes.getConvergenceHistory()[0]
        if not errors and _forced_step_from_a_solution(self._snes, norms, atol):
            self._X.getArray()[:] = start_values  # the start stands
            reason = PETSc.SNES.ConvergedReason.CONVERGED_FNORM_ABS
        self._take(self._X)
        converged = reason > 0 and not errors
        # A factorisation that failed or a solution that the check rejected (not a PETSc error
        # raised through the solve: that leaves the vectors locked, and is not the LU's doing).
        linear_failure = not errors and reason == PETSc.SNES.ConvergedReason.DIVERGED_LINEAR_SOLVE
        if errors:
            self._failure = errors[0]
        elif not converged:
            self._failure = self._check.failure or f"SNES reason {reason}"
        else:
            self._failure = _suspicious_convergence(reason, norms, atol)
            converged = self._failure is None
        return converged, int(self._snes.getIterationNumber()), linear_failure

    def split_multipliers(self) -> list[FloatArray]:
        """:attr:`multipliers` split per term."""
        offsets = np.cumsum([0, *self._sizes])
        return [self.multipliers[a:b] for a, b in itertools.pairwise(offsets)]

    # -- SNES callbacks ---------------------------------------------------------------------------
    def _take(self, X: PETSc.Vec) -> None:
        """Copy X into the rod state (with ghosts) and the multipliers (on every rank)."""
        values = X.getArray(readonly=True)
        self._x_rod.getArray()[:] = values[self._rod_slot]
        dolfinx.la.petsc._ghost_update(
            self._x_rod, PETSc.InsertMode.INSERT, PETSc.ScatterMode.FORWARD
        )
        dolfinx.fem.petsc.assign(self._x_rod, self._problem.unknown)
        mine = values[self._multiplier_slot].copy() if self._comm.rank == 0 else None
        self.multipliers = self._comm.bcast(mine, root=0)

    def _linearise(self, X: PETSc.Vec) -> PointLinearisation:
        """The point terms at X, computed once per iterate.

        SNES's line search evaluates the residual at a work vector and then copies it into the
        solution vector, where the Jacobian is asked for: a new (vector, state) with the same
        values. Those are recognised by their values (on every rank alike), which saves one
        linearisation per Newton iteration.
        """
        cached = self._linearised
        key = (X.handle, X.stateGet())
        if cached is not None:
            if cached.key == key:
                return cached.linearised
            same = np.array_equal(X.getArray(readonly=True), cached.values)
            if self._comm.allreduce(same, op=MPI.LAND):
                self._linearised = _Linearised(key, cached.values, cached.linearised)
                return cached.linearised
        self._take(X)
        parts = [
            c.linearise(mu) for c, mu in zip(self._terms, self.split_multipliers(), strict=True)
        ]
        linearised = combine(parts, self._sizes)
        self._linearised = _Linearised(key, X.getArray(readonly=True).copy(), linearised)
        return linearised

    def residual(self, _snes: PETSc.SNES | None, X: PETSc.Vec, F: PETSc.Vec) -> None:
        """[R(x) + f(x, μ); c(x)] into F (f on the rows that are not Dirichlet rows)."""
        linearised = self._linearise(X)
        rows, values = linearised.force_rows, linearised.force_values
        keep = self._numbering.free_owned(rows)
        rod = self._rod_residual().copy()
        np.add.at(rod, rows[keep] - self._numbering.owned_start, values[keep])
        out = F.getArray()
        out[self._rod_slot] = rod
        if self._comm.rank == 0:
            out[self._multiplier_slot] = linearised.constraint

    def _rod_residual(self) -> FloatArray:
        """The rod's R(x) at the rod state (owned rows; Dirichlet rows x − g), once per state.

        A step's re-solve starts where its last solve ended, with the same packed forms: the
        rod part of its first residual is that solve's last one. The state is recognised by
        its values, decided on every rank alike (the assembly's ghost updates are collective).
        """
        x = self._x_rod.getArray(readonly=True)
        cached = self._rod_residual_at
        same = cached is not None and np.array_equal(cached[0], x)
        if self._comm.allreduce(same, op=MPI.LAND):
            assert cached is not None
            return cached[1]
        self._problem.assemble_residual(None, self._x_rod, self._b_rod)
        rod = self._b_rod.getArray(readonly=True)[: self._n].copy()
        self._rod_residual_at = (x.copy(), rod)
        return rod

    def _set_pattern(self, X: PETSc.Vec) -> bool:
        """A matrix with the pattern of this solve (stencils are fixed during a solve).

        The pattern is the rod matrix's (read once per layout) and the point terms' entries. A
        new matrix whenever the pattern changes: a factorisation keeps data of the pattern it
        was built on (MUMPS on several ranks returned garbage after a re-preallocation).

        Returns:
            Whether the pattern changed (a new matrix, not yet assembled).
        """
        linearised = self._linearise(X)
        changed = self._contact is None  # a new layout (or the first solve)
        if changed:
            self._read_rod_pattern()
        contact = self._numbering.pattern(linearised)
        if self._contact is not None:
            changed |= not contact.same_places(self._contact)
        self._contact = contact
        if not self._comm.allreduce(changed, op=MPI.LOR):
            return False
        assert self._snes is not None and self._A is not None
        self._factored = False
        old = self._A
        if self._ordered:
            self._A = self._renumbered_matrix(X, contact)
        else:
            assert self._coo_matrix is not None
            self._A = self._coo_matrix.matrix(self._comm, old.getSizes(), contact)
        old.destroy()  # (a no-op where OrderedMatrix freed it already)
        self._snes.setJacobian(_weak(self.jacobian), self._A, self._A)
        return True

    def _read_rod_pattern(self) -> None:
        """The rod matrix's pattern for a new layout.

        Serially an :class:`OrderedMatrix`, built once (the rod pattern never changes); on
        several ranks the rod entries' places in the constrained system, which shift with m.
        """
        if self._ordered_matrix is not None:
            return
        rod_matrix = self._problem.matrix
        self._problem.assemble_jacobian(None, self._x_rod, rod_matrix, None)
        if self._ordered:
            self._ordered_matrix = OrderedMatrix(rod_matrix)
        else:
            self._coo_matrix = CooMatrix(rod_matrix, self._numbering, self._n)

    def _renumbered_matrix(self, X: PETSc.Vec, contact: PointPattern) -> PETSc.Mat:
        """The matrix in the order of elimination of this pattern (serial; module docs).

        Moves X's values to their new places (its linearisation stays valid).
        """
        assert self._ordered_matrix is not None
        positions = self._ordered_matrix.set_pattern(
            contact.rows, contact.cols, self._numbering.multipliers
        )
        array = X.getArray()
        rod, multipliers = array[self._rod_slot].copy(), array[self._multiplier_slot].copy()
        self._rod_slot, self._multiplier_slot = positions[: self._n], positions[self._n :]
        array[self._rod_slot], array[self._multiplier_slot] = rod, multipliers
        if self._linearised is not None:
            self._linearised = _Linearised(
                (X.handle, X.stateGet()), array.copy(), self._linearised.linearised
            )
        assert self._ordered_matrix.matrix is not None
        return self._ordered_matrix.matrix

    def jacobian(
        self, _snes: PETSc.SNES | None, X: PETSc.Vec, A: PETSc.Mat, _P: PETSc.Mat | None
    ) -> None:
        """[[J + K, G], [C, D]] into A (in the pattern set for this solve)."""
        linearised = self._linearise(X)
        if self._contact is None or not self._contact.matches(linearised):
            raise RuntimeError("the point terms changed their pattern during a solve.")
        if self._reusing:
            return
        self._factored = True
        if self._ordered_matrix is not None:
            self._problem.assemble_jacobian(None, self._x_rod, self._ordered_matrix.rod_view, None)
            self._ordered_matrix.fill(self._contact.values(linearised))
            return
        assert self._coo_matrix is not None
        rod_matrix = self._problem.matrix
        self._problem.assemble_jacobian(None, self._x_rod, rod_matrix, None)
        self._coo_matrix.fill(A, rod_matrix, self._contact.values(linearised))
