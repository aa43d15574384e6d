"""Newton's method (PETSc SNES) on DOLFINx forms, packing the coefficients once per solve.

DOLFINx's ``NonlinearProblem`` packs every coefficient of the residual and of the Jacobian
in each SNES callback: three times per Newton iteration (residual, its Dirichlet lifting,
Jacobian). A rod's forms carry many coefficients that do not change during a solve — the
rotations and curvatures at the quadrature points, reference strains, stiffnesses, the
previous time step — and only the unknown does. :class:`NewtonProblem` packs everything at
the start of :meth:`NewtonProblem.solve`; each callback then overwrites only the unknown's
columns of the packed arrays, a single index gather from the unknown's dof array.

The contract that makes this correct: during one SNES solve only the unknown changes. Code
that changes another coefficient and then drives the SNES callbacks itself (not through
:meth:`NewtonProblem.solve`) calls :meth:`NewtonProblem.pack` first.

Forms for which the gather is not the packing DOLFINx does (interior-facet integrals, or an
element that needs dof transformations) are packed in full in every callback instead:
slower, never wrong.
"""

import weakref
from collections.abc import Callable, Collection, Sequence

from petsc4py import PETSc

import dolfinx.fem
import dolfinx.fem.petsc
import dolfinx.la.petsc
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.solvers.solve_check import LinearSolveCheck

__all__ = ["NewtonProblem"]

Packed = dict[tuple[dolfinx.fem.IntegralType, int], npt.NDArray[np.float64]]


class _PackedForm:
    """A compiled form with its constants and coefficients packed, and a cheap refresh."""

    def __init__(self, form: dolfinx.fem.Form, unknown: dolfinx.fem.Function):
        self.form = form
        self._unknown = unknown
        self.constants = np.empty(0)
        self.coefficients: Packed = {}
        cpp = form._cpp_object
        position = next(
            (i for i, c in enumerate(cpp.coefficients) if c is unknown._cpp_object), None
        )
        self._depends_on_unknown = position is not None
        space = unknown.function_space
        gatherable = not space.element.needs_dof_transformations and all(
            kind in (dolfinx.fem.IntegralType.cell, dolfinx.fem.IntegralType.exterior_facet)
            for kind in cpp.integral_types
        )
        # Per integral: the unknown's columns in the packed array and, for each entity and
        # column, the entry of u.x.array that goes there (DOLFINx packs coefficients in form
        # order, each as its cell dofs times block size, entities in the integral's order).
        self._gathers: dict[tuple[dolfinx.fem.IntegralType, int], tuple[slice, npt.NDArray]]
        self._gathers = {}
        if position is None or not gatherable:
            return
        widths = [c.function_space.element.space_dimension for c in cpp.coefficients]
        start = sum(widths[:position])
        columns = slice(start, start + widths[position])
        bs = space.dofmap.bs
        cell_dofs = space.dofmap.list
        width = cell_dofs.shape[1] * bs
        for kind in cpp.integral_types:
            for index in range(cpp.num_integrals(kind, 0)):
                entities = cpp.domains(kind, index)
                cells = entities if kind == dolfinx.fem.IntegralType.cell else entities[:, 0]
                blocked = cell_dofs[cells]
                flat = (blocked[:, :, None] * bs + np.arange(bs)).reshape(len(cells), width)
                self._gathers[kind, index] = (columns, flat.astype(np.intp))

    def pack(self) -> None:
        """Pack the constants and all coefficients."""
        self.constants = dolfinx.fem.pack_constants(self.form)
        self.coefficients = dolfinx.fem.pack_coefficients(self.form)
        if self._gathers.keys() - self.coefficients.keys():
            raise RuntimeError("packed coefficients do not match the form's integrals")

    def refresh_unknown(self) -> None:
        """Copy the unknown's current values into its packed columns."""
        if not self._depends_on_unknown:
            return
        if not self._gathers:
            self.coefficients = dolfinx.fem.pack_coefficients(self.form)
            return
        values = self._unknown.x.array
        for key, (columns, entries) in self._gathers.items():
            self.coefficients[key][:, columns] = values[entries]


def _weak(method: Callable[..., None]) -> Callable[..., None]:
    """A callback that calls ``method`` without keeping its object alive."""
    ref = weakref.WeakMethod(method)

    def call(*args: object) -> None:
        bound = ref()
        if bound is not None:
            bound(*args)

    return call


def _petsc_reason(error: PETSc.Error) -> str:
    """The message lines of a PETSc error (without its call stack)."""
    lines = [line.split("] ", 1)[-1].strip() for line in str(error).splitlines()[1:]]
    said = [line for line in lines if line and "() at " not in line]
    return " ".join(said[:2]) or f"error code {error.ierr}"


def _set_options(
    snes: PETSc.SNES, prefix: str, given: dict[str, object], optional: Collection[str]
) -> None:
    """Push ``given`` under ``prefix``, let the SNES read them, remove them; check use."""
    options = PETSc.Options()
    for key, value in given.items():
        options[f"{prefix}{key}"] = value
    message = None
    try:
        snes.setFromOptions()
    except PETSc.Error as error:
        shown = ", ".join(f"{k} = {v!r}" for k, v in given.items() if k not in optional)
        message = (
            f"petsc_options: PETSc rejected the options ({_petsc_reason(error)}); "
            f"check the names and values given: {shown or 'none'}."
        )
    finally:
        unused = [k for k in given if not options.used(f"{prefix}{k}") and k not in optional]
        for key in given:
            options.delValue(f"{prefix}{key}")
    if message is None and unused:
        message = (
            f"petsc_options: {unused} not used by the solver (a misspelt name, or an option "
            "of a solver type that is not selected); remove or correct them."
        )
    raise_collectively(snes.comm.tompi4py(), message)


def _suspicious_convergence(reason: int, norms: npt.NDArray[np.float64], atol: float) -> str | None:
    """Why a converged SNES solve is not a solution, or ``None`` when it is one.

    A step-size test (``snes_stol``) also "converges" when x is so large (a garbage solution
    of a singular system) that no step is relatively big; accept it only when the residual
    fell by six orders of magnitude or to within 10·``atol`` (the round-off floor).
    """
    if len(norms) and not np.all(np.isfinite(norms)):
        return "the residual became inf/NaN"
    small_step = reason == PETSc.SNES.ConvergedReason.CONVERGED_SNORM_RELATIVE
    if small_step and len(norms) > 1 and norms[-1] > max(1e-6 * norms[0], 10 * atol):
        return (
            f"Newton's steps stalled with the residual at {norms[-1]:.3g} "
            f"(from {norms[0]:.3g}): a singular or ill-posed problem"
        )
    return None


class NewtonProblem:
    """F(u; v) = 0 for all v, by PETSc SNES Newton, with pre-packed form coefficients.

    Args:
        residual: The residual form F(u; v), linear in the test function.
        unknown: The Function u the residual is written in.
        bcs: Dirichlet conditions on u (values are taken at each solve).
        petsc_options_prefix: Mandatory, non-empty prefix of the SNES options.
        petsc_options: Options set on the SNES (and its KSP/PC) under the prefix.
        jacobian: The Jacobian form; by default the Gateaux derivative of ``residual``.
        jit_options: CFFI JIT options for the compiled kernels.
        optional_options: Names in ``petsc_options`` that may go unused (defaults that the
            user's choice of solver makes irrelevant); any other unused name is an error.

    Raises:
        InputError: On every rank, when PETSc rejects an option value or an option is not
            used by the solver (a misspelt name), naming the options.
    """

    def __init__(
        self,
        residual: ufl.Form,
        unknown: dolfinx.fem.Function,
        bcs: Sequence[dolfinx.fem.DirichletBC] = (),
        *,
        petsc_options_prefix: str,
        petsc_options: dict[str, object] | None = None,
        jacobian: ufl.Form | None = None,
        jit_options: dict[str, object] | None = None,
        optional_options: Collection[str] = (),
        stall_floor: float = 0.0,
    ):
        self._petsc_objects: list[PETSc.Object] = []  # what __del__ frees, once created
        self._stall_floor = float(stall_floor)
        if not petsc_options_prefix:  # the same argument on every rank: no collective needed
            raise InputError("petsc_options_prefix must be a non-empty string, e.g. 'rods_'.")
        if jacobian is None:
            jacobian = ufl.derivative(residual, unknown)
        self._unknown = unknown
        self._bcs = list(bcs)
        self._residual = _PackedForm(dolfinx.fem.form(residual, jit_options=jit_options), unknown)
        self._jacobian = _PackedForm(dolfinx.fem.form(jacobian, jit_options=jit_options), unknown)
        self._A = dolfinx.fem.petsc.create_matrix(self._jacobian.form)
        space = unknown.function_space
        self._b = dolfinx.fem.petsc.create_vector(space)
        self._x = dolfinx.fem.petsc.create_vector(space)
        self._taken: tuple[int, int] | None = None  # (Vec handle, state) last copied into u
        self._snes = PETSc.SNES().create(space.mesh.comm)
        self._petsc_objects += [self._snes, self._A, self._b, self._x]
        # Weak callbacks: PETSc keeps them out of Python's sight, so bound methods would keep
        # this problem (its mesh, forms, communicators) alive for ever; measured: 400 solves
        # of a small rod exhausted MPICH's 2048 communicators on 2 ranks.
        self._snes.setFunction(_weak(self.assemble_residual), self._b)
        self._snes.setJacobian(_weak(self.assemble_jacobian), self._A, self._A)
        self._snes.setOptionsPrefix(petsc_options_prefix)
        self._A.setOptionsPrefix(f"{petsc_options_prefix}A_")
        _set_options(self._snes, petsc_options_prefix, petsc_options or {}, optional_options)
        self._check = LinearSolveCheck()
        self._check.attach(self._snes.getKSP())
        self._snes.setConvergenceHistory(reset=True)
        self._failure: str | None = None

    def __del__(self) -> None:
        """Free the PETSc objects."""
        for obj in self._petsc_objects:
            obj.destroy()

    @property
    def solver(self) -> PETSc.SNES:
        """The PETSc SNES."""
        return self._snes

    @property
    def matrix(self) -> PETSc.Mat:
        """The Jacobian matrix (the rod block of a constrained system)."""
        return self._A

    @property
    def unknown(self) -> dolfinx.fem.Function:
        """The unknown u."""
        return self._unknown

    @property
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """The Dirichlet conditions."""
        return self._bcs

    @property
    def stall_floor(self) -> float:
        """The residual's round-off floor at the state being solved (the stall test's floor).

        Set before each solve by its caller (the stepper, from the scheme's current state): a
        solve that stops on a small step with its residual within 10× max(atol, this) is
        accepted.
        """
        return self._stall_floor

    @stall_floor.setter
    def stall_floor(self, value: float) -> None:
        self._stall_floor = float(value)

    @property
    def residual_form(self) -> dolfinx.fem.Form:
        """The compiled residual."""
        return self._residual.form

    @property
    def jacobian_form(self) -> dolfinx.fem.Form:
        """The compiled Jacobian."""
        return self._jacobian.form

    def pack(self) -> None:
        """Pack constants and coefficients of both forms (done by :meth:`solve`)."""
        self._residual.pack()
        self._jacobian.pack()
        self._taken = None

    @property
    def failure(self) -> str | None:
        """Why the last :meth:`solve` failed, in words (``None`` after a converged one)."""
        return self._failure

    def solve(self) -> tuple[bool, int]:
        """Newton from the current u; returns (converged, iterations). u holds the last iterate.

        Every linear solve is checked
        (:class:`~fe_rodcontact.solvers.solve_check.LinearSolveCheck`);
        a PETSc error inside the solve (e.g. MUMPS on a singular matrix) counts as a failed
        solve on every rank, with the reason in :attr:`failure`.
        """
        self.pack()
        dolfinx.fem.petsc.assign(self._unknown, self._x)
        rtol, snes_atol, stol, max_it = self._snes.getTolerances()
        atol = max(snes_atol, self._stall_floor)  # never below the state's round-off floor
        self._snes.setTolerances(atol=atol)
        error = None
        try:
            self._snes.solve(None, self._x)
        except PETSc.Error as exc:
            error = f"PETSc error {exc.ierr} in the linear solve (a singular matrix?)"
        finally:
            self._snes.setTolerances(rtol, snes_atol, stol, max_it)
        comm = self._unknown.function_space.mesh.comm
        errors = [e for e in comm.allgather(error) if e is not None]
        dolfinx.la.petsc._ghost_update(self._x, PETSc.InsertMode.INSERT, PETSc.ScatterMode.FORWARD)
        dolfinx.fem.petsc.assign(self._x, self._unknown)
        reason = self._snes.getConvergedReason()
        converged = reason > 0 and not errors
        self._failure = None
        if errors:
            self._failure = errors[0]
        elif not converged:
            self._failure = self._check.failure or f"SNES reason {reason}"
        else:
            self._failure = _suspicious_convergence(
                reason, self._snes.getConvergenceHistory()[0], atol
            )
            converged = self._failure is None
        return converged, int(self._snes.getIterationNumber())

    # -- SNES callbacks ---------------------------------------------------------------------
    def _take(self, x: PETSc.Vec) -> None:
        """Copy x (with its ghosts) into the unknown."""
        dolfinx.la.petsc._ghost_update(x, PETSc.InsertMode.INSERT, PETSc.ScatterMode.FORWARD)
        dolfinx.fem.petsc.assign(x, self._unknown)

    def assemble_residual(self, _snes: PETSc.SNES | None, x: PETSc.Vec, b: PETSc.Vec) -> None:
        """Assemble F(x) into b, Dirichlet rows set to x − g (as DOLFINx's SNES callbacks do)."""
        self._take(x)
        self._residual.refresh_unknown()
        self._jacobian.refresh_unknown()
        self._taken = (x.handle, x.stateGet())
        dolfinx.la.petsc._zero_vector(b)
        residual, jacobian = self._residual, self._jacobian
        dolfinx.fem.petsc.assemble_vector(
            b, residual.form, constants=residual.constants, coeffs=residual.coefficients
        )
        dolfinx.fem.petsc.apply_lifting(
            b,
            [jacobian.form],
            bcs=[self._bcs],
            x0=[x],
            alpha=-1.0,
            constants=[jacobian.constants],
            coeffs=[jacobian.coefficients],
        )
        dolfinx.la.petsc._ghost_update(b, PETSc.InsertMode.ADD, PETSc.ScatterMode.REVERSE)
        dolfinx.fem.petsc.set_bc(b, self._bcs, x0=x, alpha=-1.0)
        dolfinx.la.petsc._ghost_update(b, PETSc.InsertMode.INSERT, PETSc.ScatterMode.FORWARD)

    def assemble_jacobian(
        self, _snes: PETSc.SNES | None, x: PETSc.Vec, A: PETSc.Mat, _P: PETSc.Mat | None
    ) -> None:
        """Assemble J(x) into A, identity rows and columns on the Dirichlet dofs."""
        if self._taken != (x.handle, x.stateGet()):  # else: F(x) was the last callback
            self._take(x)
            self._jacobian.refresh_unknown()
        A.zeroEntries()
        dolfinx.fem.petsc.assemble_matrix(
            A,
            self._jacobian.form,
            self._bcs,
            diag=1.0,
            constants=self._jacobian.constants,
            coeffs=self._jacobian.coefficients,
        )
        A.assemble()
