"""The saddle-point system [[K, Bᵀ], [B, 0]] [x; μ] = [f; g], assembled and solved by PETSc.

``K`` is the fields' operator in the stacked layout of
:class:`~fe_rodcontact.strings.constraints.StackedNumbering`, ``B`` and ``g`` come from a
:class:`~fe_rodcontact.strings.constraints.PointConstraints`. After every
:meth:`PointConstraints.update <fe_rodcontact.strings.constraints.PointConstraints.update>` call
:meth:`SaddlePointProblem.update`, which builds ``B`` from COO entries (any rank may hold
any entry; PETSc moves them), ``Bᵀ``, and the monolithic AIJ operator from a ``MatNest``.
Multipliers are owned by rank 0, so the saddle vector's local part is ``[fields, μ]`` on
rank 0 and ``[fields]`` elsewhere.

Two solver set-ups (``method``), both exact up to round-off:

- ``"direct"``: LU of the whole saddle matrix (PETSc's LU serially, MUMPS in parallel);
- ``"schur"``: ``fieldsplit`` with a full Schur factorisation on the ``MatNest`` operator, LU
  on the fields block and ``redundant`` LU on the tiny explicit Schur complement
  ``−B K⁻¹ Bᵀ``. K is factorised once (it does not change when B does), so an update costs
  m + 2 triangular solves instead of a factorisation.

The solve goes through a SNES (``ksponly`` by default, since the problem is linear in x and μ)
whose callbacks are the public functions :func:`saddle_residual` and :func:`saddle_jacobian`.
Options are pushed under the mandatory ``petsc_options_prefix`` only while they are read
(construction and every solve, as fieldsplit reads sub-solver options lazily) and removed
from the global database afterwards.
"""

import contextlib
from collections.abc import Iterator
from typing import Any, Literal

from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.solvers.solve_check import LinearSolveCheck
from fe_rodcontact.strings.constraints import PointConstraints

__all__ = [
    "SaddlePointProblem",
    "block_diagonal",
    "default_options",
    "saddle_jacobian",
    "saddle_residual",
]


def block_diagonal(blocks: list[PETSc.Mat]) -> PETSc.Mat:
    """Return ``diag(blocks)`` as one AIJ matrix in the stacked (MatNest) layout."""
    n = len(blocks)
    rows = [[blocks[i] if i == j else None for j in range(n)] for i in range(n)]
    nest = PETSc.Mat().createNest(rows, comm=blocks[0].comm)
    nest.assemble()
    out = nest.convert("aij", out=PETSc.Mat())
    nest.destroy()
    return out


def default_options(method: Literal["direct", "schur"], comm: MPI.Comm) -> dict[str, Any]:
    """The solver options of ``method`` (without prefix)."""
    lu = "mumps" if comm.size > 1 else "petsc"
    options: dict[str, Any] = {"snes_type": "ksponly", "ksp_type": "preonly"}
    if method == "direct":
        options |= {"pc_type": "lu", "pc_factor_mat_solver_type": lu}
        if lu == "petsc":
            # Natural ordering keeps the multipliers (zero diagonal) last: their pivot is the
            # Schur complement, never zero. The field blocks are banded, so fill stays small.
            options["pc_factor_mat_ordering_type"] = "natural"
    elif method == "schur":
        options |= {
            "pc_type": "fieldsplit",
            "pc_fieldsplit_type": "schur",
            "pc_fieldsplit_schur_fact_type": "full",
            "pc_fieldsplit_schur_precondition": "full",
            "fieldsplit_fields_ksp_type": "preonly",
            "fieldsplit_fields_pc_type": "lu",
            "fieldsplit_fields_pc_factor_mat_solver_type": lu,
            "fieldsplit_multipliers_ksp_type": "preonly",
            "fieldsplit_multipliers_pc_type": "redundant",
            "fieldsplit_multipliers_redundant_pc_type": "lu",
        }
    else:
        raise InputError(f"unknown saddle-point method {method!r}; use 'direct' or 'schur'")
    return options


def saddle_residual(
    snes: PETSc.SNES, x: PETSc.Vec, b: PETSc.Vec, problem: "SaddlePointProblem"
) -> None:
    """SNES residual ``b = J x − [f; g]`` of the (linear) saddle-point system."""
    problem.operator.mult(x, b)
    b.axpy(-1.0, problem.rhs_vector)


def saddle_jacobian(
    snes: PETSc.SNES, x: PETSc.Vec, J: PETSc.Mat, P: PETSc.Mat, problem: "SaddlePointProblem"
) -> None:
    """SNES Jacobian: the saddle matrix, already assembled by :meth:`SaddlePointProblem.update`.

    Raises:
        RuntimeError: If the constraints changed since the last update.
    """
    if problem.stale:
        raise RuntimeError("constraints changed: call SaddlePointProblem.update() before solve")


class SaddlePointProblem:
    """``[[K, Bᵀ], [B, 0]] [x; μ] = [f; g]`` with B from a :class:`PointConstraints`."""

    def __init__(
        self,
        K: PETSc.Mat,
        constraints: PointConstraints,
        *,
        petsc_options_prefix: str,
        method: Literal["direct", "schur"] = "direct",
        petsc_options: dict[str, Any] | None = None,
    ):
        """Set up the solver (collective).

        Args:
            K: The fields' operator in the constraints' stacked layout (AIJ).
            constraints: The multiplier block.
            petsc_options_prefix: Prefix for every PETSc option of this problem (mandatory).
            method: ``"direct"`` or ``"schur"`` (see module docs). Without multipliers the
                direct method is used.
            petsc_options: Options overriding the defaults of ``method`` (without prefix).

        Raises:
            InputError: For an empty prefix, an unknown method or a K of the wrong size.
        """
        if not petsc_options_prefix:
            raise InputError("petsc_options_prefix is mandatory (e.g. 'strings_')")
        self._comm = constraints.comm
        numbering = constraints.numbering
        raise_collectively(
            self._comm,
            None
            if K.getLocalSize()[0] == numbering.local_size
            else f"K has {K.getLocalSize()[0]} local rows, the fields have {numbering.local_size}",
        )
        self._K = K
        self._constraints = constraints
        self._prefix = petsc_options_prefix
        m = constraints.num_multipliers
        self._method = method if m > 0 else "direct"
        self._options = default_options(self._method, self._comm) | dict(petsc_options or {})
        self._m_local = m if self._comm.rank == 0 else 0
        self._n_local = numbering.local_size
        self._B: PETSc.Mat | None = None
        self._Bt: PETSc.Mat | None = None
        self._J: PETSc.Mat | None = None
        self._zero: PETSc.Mat | None = None
        self._seen_terms: tuple | None = None
        self._rhs = PETSc.Vec().createMPI(
            (self._n_local + self._m_local, PETSc.DECIDE), comm=self._comm
        )
        self._x = self._rhs.duplicate()
        self._x.set(0.0)
        start = self._rhs.getOwnershipRange()[0]
        self._is_fields = PETSc.IS().createStride(self._n_local, start, 1, comm=self._comm)
        self._is_mult = PETSc.IS().createStride(
            self._m_local, start + self._n_local, 1, comm=self._comm
        )
        self._snes = PETSc.SNES().create(self._comm)
        self._snes.setOptionsPrefix(self._prefix)
        self._snes.setFunction(saddle_residual, self._rhs.duplicate(), kargs={"problem": self})
        with self._pushed_options():
            self._snes.setFromOptions()
            self._snes.getKSP().setFromOptions()
        if self._method == "schur":
            pc = self._snes.getKSP().getPC()
            pc.setFieldSplitIS(("fields", self._is_fields), ("multipliers", self._is_mult))
        self._check = LinearSolveCheck()
        self._check.attach(self._snes.getKSP())

    # -- properties -------------------------------------------------------------------------
    @property
    def snes(self) -> PETSc.SNES:
        """The nonlinear solver (``ksponly`` by default)."""
        return self._snes

    @property
    def operator(self) -> PETSc.Mat:
        """The saddle matrix from the last :meth:`update` (AIJ; a MatNest for ``"schur"``)."""
        if self._J is None:
            raise RuntimeError("call update() first")
        return self._J

    @property
    def constraint_matrix(self) -> PETSc.Mat:
        """B (multipliers × stacked fields) from the last :meth:`update`."""
        if self._B is None:
            raise RuntimeError("call update() first")
        return self._B

    @property
    def rhs_vector(self) -> PETSc.Vec:
        """The saddle right-hand side ``[f; g]`` of the last :meth:`solve`."""
        return self._rhs

    @property
    def stale(self) -> bool:
        """Whether the constraints changed since the last :meth:`update`."""
        return self._seen_terms is not self._constraints.terms

    @property
    def method(self) -> str:
        """``"direct"`` or ``"schur"``."""
        return self._method

    # -- options ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _pushed_options(self) -> Iterator[None]:
        opts = PETSc.Options()
        for key, value in self._options.items():
            opts[f"{self._prefix}{key}"] = value
        try:
            yield
        finally:
            for key in self._options:
                opts.delValue(f"{self._prefix}{key}")

    # -- lifecycle --------------------------------------------------------------------------
    def update(self) -> None:
        """Rebuild B, Bᵀ and the saddle matrix from the constraints' current entries."""
        c = self._constraints
        m = c.num_multipliers
        for mat in (self._B, self._Bt, self._J):
            if mat is not None:
                mat.destroy()
        B = PETSc.Mat().create(self._comm)
        B.setSizes(((self._m_local, m), (self._n_local, c.numbering.global_size)))
        B.setType(PETSc.Mat.Type.AIJ)
        rows, cols, vals = c.entries
        B.setPreallocationCOO(rows.astype(PETSc.IntType), cols.astype(PETSc.IntType))
        B.setValuesCOO(vals.astype(PETSc.ScalarType))
        B.assemble()
        self._B = B
        if m == 0:
            self._Bt = None
            self._J = self._K.copy()
        else:
            self._Bt = B.transpose(PETSc.Mat())
            if self._zero is None:
                # explicit zeros on the multiplier diagonal: LU factorisations need the entries
                self._zero = PETSc.Mat().createAIJ(
                    ((self._m_local, m), (self._m_local, m)), nnz=1, comm=self._comm
                )
                start, end = self._zero.getOwnershipRange()
                for i in range(start, end):
                    self._zero.setValue(i, i, 0.0)
                self._zero.assemble()
            nest = PETSc.Mat().createNest([[self._K, self._Bt], [B, self._zero]], comm=self._comm)
            nest.assemble()
            if self._method == "schur":
                # fieldsplit works on the nest: its fields block is K itself, unchanged from
                # step to step, so K is factorised once and only the Schur complement is new
                self._J = nest
            else:
                self._J = nest.convert("aij", out=PETSc.Mat())
                nest.destroy()
        self._snes.setJacobian(saddle_jacobian, self._J, self._J, kargs={"problem": self})
        self._seen_terms = c.terms

    def solve(self, f: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Solve for the fields and the multipliers.

        Args:
            f: This rank's owned part of the fields' right-hand side (stacked layout).

        Returns:
            This rank's owned part of x (stacked layout) and μ (length m, on every rank).

        Raises:
            ConvergenceError: On every rank, if the solver reports failure.
        """
        if self.stale:
            raise RuntimeError("constraints changed: call SaddlePointProblem.update() before solve")
        arr = self._rhs.getArray()
        arr[: self._n_local] = np.asarray(f, dtype=np.float64)
        arr[self._n_local :] = self._constraints.rhs if self._m_local else []
        with self._pushed_options():
            self._snes.solve(None, self._x)
        reason = self._snes.getConvergedReason()
        ksp_reason = self._snes.getKSP().getConvergedReason()
        if reason <= 0 or ksp_reason < 0:
            raise ConvergenceError(
                f"saddle-point solve failed (SNES {reason}, KSP {ksp_reason}"
                + (f": {self._check.failure}" if self._check.failure else "")
                + ")"
            )
        x = self._x.getArray(readonly=True)
        mu = np.array(x[self._n_local :]) if self._comm.rank == 0 else None
        mu = self._comm.bcast(mu, root=0)
        return np.array(x[: self._n_local]), mu

    def destroy(self) -> None:
        """Free the PETSc objects (collective)."""
        for obj in (self._B, self._Bt, self._J, self._zero, self._snes, self._rhs, self._x):
            if obj is not None:
                obj.destroy()
        self._is_fields.destroy()
        self._is_mult.destroy()
