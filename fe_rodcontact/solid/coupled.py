"""Rods and a solid body in one static Newton solve: a blocked system with contact coupling.

The unknowns are the rods' (u, θ) and the solid's displacement, one DOLFINx blocked vector
(``kind="mpi"``: rank by rank, the rod's owned dofs, then the solid's). The residual is

    [ F_rod(u, θ) + f_rod(u, y) ]        F_rod: internal − external virtual work of the rods
    [ F_solid(y)  + f_solid(u, y) ]      F_solid: the user's residual of the solid

with f the contact forces of :class:`~fe_rodcontact.solid.contact.SurfaceContact`; the
Jacobian is the blocked matrix [[J_rr + K_rr, K_rs], [K_sr, J_ss + K_ss]], whose diagonal
blocks DOLFINx assembles from the forms' Gateaux derivatives and to which the contact adds its
tangent K (the coupling blocks K_rs, K_sr live only where rods touch). The SNES callbacks are
DOLFINx's own (:func:`dolfinx.fem.petsc.assemble_residual`,
:func:`dolfinx.fem.petsc.assemble_jacobian`) followed by the contact's rows; rows of Dirichlet
dofs are left as DOLFINx writes them (their columns keep the contact's entries: the increment
of a prescribed dof is known, so this is the consistent linearisation). The linear solves are
LU (PETSc serially, MUMPS in parallel).

Load steps: λ goes from 0 to 1 in steps; at each one the rods' supports and loads are set at
λ (:class:`~fe_rodcontact.stepping.statics.StaticScheme`), the solid's callback is told λ, and
Newton starts from the last converged state. A failed step is halved (the state restored);
after a converged step the rods commit their rotations.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from petsc4py import PETSc

import dolfinx.fem
import dolfinx.fem.petsc
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.rods.loads import Load, Support
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solid.body import SolidBody
from fe_rodcontact.solid.contact import ContactState, SurfaceContact
from fe_rodcontact.solid.layout import BlockLayout
from fe_rodcontact.solvers.options import default_newton_options
from fe_rodcontact.stepping.statics import StaticScheme

__all__ = ["CoupledStaticProblem", "CoupledStaticResult"]

IntArray = npt.NDArray[np.int64]


@dataclass
class CoupledStaticResult:
    """What the coupled solve went through.

    Attributes:
        load_factors: The accepted load factors.
        iterations: Newton iterations of each accepted step.
        residuals: The residual norms of each accepted step's iterations.
        contact: The contact at each accepted step.
        rejected_steps: Steps cut in half.
    """

    load_factors: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)
    residuals: list[list[float]] = field(default_factory=list)
    contact: list[ContactState] = field(default_factory=list)
    rejected_steps: int = 0


def _dirichlet_rows(
    bcs: Sequence[dolfinx.fem.DirichletBC], field: int, layout: BlockLayout
) -> IntArray:
    """The blocked system's rows of the owned dofs of Dirichlet conditions of one field."""
    rows = []
    for bc in bcs:
        space = bc.function_space
        bs = space.dofmap.index_map_bs
        dofs, owned = bc.dof_indices()
        dofs = np.asarray(dofs[:owned], dtype=np.int64)
        blocks = space.dofmap.index_map.local_to_global((dofs // bs).astype(np.int32))
        rows.append(np.take_along_axis(layout.rows(field, blocks), (dofs % bs)[:, None], 1)[:, 0])
    return np.unique(np.concatenate(rows)) if rows else np.zeros(0, dtype=np.int64)


class CoupledStaticProblem:
    """Rods and a solid in static equilibrium with potential contact between them.

    Args:
        rod: The rods (P1).
        solid: The solid body (the user's displacement, residual and conditions).
        contact: The contact between the rods' tubes and the solid's surface.
        supports: The rods' supports (prescribed values scale with λ).
        loads: The rods' loads (scaled with λ).
        petsc_options_prefix: Mandatory prefix of the SNES options.
        petsc_options: SNES/KSP options overriding the defaults (Newton with the l2 line search,
            rtol 1e-10, atol 1e-9, LU).
    """

    def __init__(
        self,
        rod: CosseratRod,
        solid: SolidBody,
        contact: SurfaceContact,
        supports: Sequence[Support] = (),
        loads: Sequence[Load] = (),
        *,
        petsc_options_prefix: str,
        petsc_options: dict[str, object] | None = None,
    ):
        comm = rod.mesh.comm
        message = None
        if not petsc_options_prefix:
            message = "petsc_options_prefix must be a non-empty string."
        elif not isinstance(solid, SolidBody):
            message = f"solid must be a SolidBody, got {type(solid).__name__}."
        elif not isinstance(contact, SurfaceContact):
            message = f"contact must be a SurfaceContact, got {type(contact).__name__}."
        elif solid.mesh.comm.size != comm.size:
            message = "the rods and the solid must live on the same communicator."
        raise_collectively(comm, message, InputError)
        contact.check_rods(rod)
        self._rod, self._solid, self._contact = rod, solid, contact
        self._scheme = StaticScheme(
            rod, supports, loads, extra_residual=None, check_rigid_motions=False, contact=False
        )
        unknowns = [rod.state, solid.displacement]
        residuals = [self._scheme.residual, solid.residual]
        jacobians: list[list[ufl.Form | None]] = [
            [ufl.derivative(residuals[0], unknowns[0]), None],
            [None, ufl.derivative(residuals[1], unknowns[1])],
        ]
        options = default_newton_options(comm)
        # The l2 line search: the first contact of a step can push the solid's elements inside
        # out with a full step (ln J = NaN); measured on the rod pressed into the coarse block
        # (8 cells): 10, 5, 3, 3 iterations for four steps, where full steps fail.
        options.update({"snes_atol": 1e-9, "snes_stol": 0.0, "snes_linesearch_type": "l2"})
        # A 3D solid is no band: PETSc's default nested dissection, not the rods' RCM.
        options.pop("pc_factor_mat_ordering_type", None)
        options.update(petsc_options or {})
        self._options = options
        self._bcs = [*self._scheme.bcs, *solid.bcs]
        self._problem = dolfinx.fem.petsc.NonlinearProblem(
            residuals,
            unknowns,
            J=jacobians,
            bcs=self._bcs,
            kind="mpi",
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=options,
        )
        self._layout = BlockLayout([u.function_space for u in unknowns])
        contact.bind(rod, solid, self._layout)
        self._fixed_rows = np.concatenate(
            [
                _dirichlet_rows(self._scheme.bcs, 0, self._layout),
                _dirichlet_rows(solid.bcs, 1, self._layout),
            ]
        )
        A = self._problem.A
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        snes = self._problem.solver
        self._function_context = {
            "u": unknowns,
            "residual": self._problem.F,
            "jacobian": self._problem.J,
            "bcs": self._bcs,
            "_blocks": self._problem.b.getAttr("_blocks"),
        }
        snes.setFunction(self.assemble_residual, self._problem.b)
        snes.setJacobian(self.assemble_jacobian, A, None)
        snes.setConvergenceHistory(reset=True)
        self.state: ContactState | None = None
        """The contact at the last residual evaluation."""

    @property
    def solver(self) -> PETSc.SNES:
        """The PETSc SNES."""
        return self._problem.solver

    @property
    def x(self) -> PETSc.Vec:
        """The blocked solution vector (rods, then solid, on each rank)."""
        return self._problem.x

    @property
    def b(self) -> PETSc.Vec:
        """The blocked residual vector."""
        return self._problem.b

    @property
    def A(self) -> PETSc.Mat:
        """The blocked Jacobian matrix."""
        return self._problem.A

    @property
    def unknowns(self) -> list[dolfinx.fem.Function]:
        """The rods' state and the solid's displacement."""
        return [self._rod.state, self._solid.displacement]

    @property
    def petsc_options(self) -> dict[str, object]:
        """The SNES/KSP options of the solve (the defaults with the user's on top)."""
        return dict(self._options)

    @property
    def prescribed_rows(self) -> npt.NDArray[np.int64]:
        """This rank's rows of Dirichlet dofs (rods' supports, solid's conditions)."""
        return self._fixed_rows

    @property
    def layout(self) -> BlockLayout:
        """The rows of the blocked system."""
        return self._layout

    def _keep(self, rows: IntArray) -> npt.NDArray[np.bool_]:
        return ~np.isin(rows, self._fixed_rows)

    def assemble_residual(self, snes: PETSc.SNES, x: PETSc.Vec, b: PETSc.Vec) -> None:
        """DOLFINx's blocked residual at x, plus the contact forces on the free rows."""
        dolfinx.fem.petsc.assemble_residual(snes, x, b, **self._function_context)
        state, rows, values, _ = self._contact.evaluate(tangent=False)
        self.state = state
        keep = self._keep(rows)
        start = self._layout.local_range[0]
        local = b.getArray(readonly=False)
        np.add.at(local, rows[keep] - start, values[keep])
        b.assemble()

    def assemble_jacobian(
        self, snes: PETSc.SNES, x: PETSc.Vec, J: PETSc.Mat, P: PETSc.Mat | None
    ) -> None:
        """DOLFINx's blocked Jacobian at x, plus the contact's tangent on the free rows."""
        dolfinx.fem.petsc.assemble_jacobian(
            snes, x, J, P, self._function_context["u"], self._problem.J, None, self._bcs
        )
        _, _, _, (rows, cols, values) = self._contact.evaluate(tangent=True)
        keep = self._keep(rows)
        rows, cols, values = rows[keep], cols[keep], values[keep]
        order = np.argsort(rows, kind="stable")
        rows, cols, values = rows[order], cols[order], values[order]
        cuts = np.flatnonzero(np.diff(rows)) + 1
        for r, c, v in zip(
            np.split(rows, cuts), np.split(cols, cuts), np.split(values, cuts), strict=True
        ):
            if len(r):
                J.setValues(
                    np.array([r[0]], dtype=PETSc.IntType),
                    c.astype(PETSc.IntType),
                    v,
                    addv=PETSc.InsertMode.ADD_VALUES,
                )
        J.assemble()

    def _save(self) -> list[np.ndarray]:
        functions = (*self._rod.state_functions(), self._solid.displacement)
        return [f.x.array.copy() for f in functions]

    def _restore(self, saved: list[np.ndarray]) -> None:
        functions = (*self._rod.state_functions(), self._solid.displacement)
        for f, values in zip(functions, saved, strict=True):
            f.x.array[:] = values

    def _check_start(self) -> None:
        """A singular law refuses a surface point on or inside a rod's tube at the start."""
        x = self._problem.x
        dolfinx.fem.petsc.assign(self.unknowns, x)
        state, _, _, _ = self._contact.evaluate(tangent=False)
        law = self._contact.law
        message = None
        if law.singular and state.min_gap <= 0:
            message = (
                f"at the start, a point of the solid's surface has gap {state.min_gap:.6g} <= 0 "
                f"to a rod's tube; the {type(law).__name__} is singular there. Start the rods "
                "clear of the solid (or use a penalty law)."
            )
        raise_collectively(self._rod.mesh.comm, message, InputError)

    def solve_step(self, load_factor: float) -> tuple[bool, int, list[float]]:
        """One Newton solve at λ from the current state: (converged, iterations, residuals)."""
        self._scheme.set_load_factor(load_factor)
        self._solid.set_load_factor(load_factor)
        snes = self._problem.solver
        snes.setConvergenceHistory(reset=True)
        self._problem.solve()
        reason = snes.getConvergedReason()
        history = [float(r) for r in snes.getConvergenceHistory()[0]]
        return reason > 0, snes.getIterationNumber(), history

    def solve(
        self,
        steps: int = 4,
        *,
        max_cuts: int = 6,
        on_step: Callable[[float], None] | None = None,
    ) -> CoupledStaticResult:
        """Apply the supports and loads from λ = 0 to 1 in ``steps`` equal steps.

        Args:
            steps: Number of load steps.
            max_cuts: How often a failed step may be halved.
            on_step: Called with λ after each accepted step.

        Raises:
            ConvergenceError: On every rank, when a step fails after ``max_cuts`` halvings.
        """
        self._check_start()
        result = CoupledStaticResult()
        load_factor, step, cuts = 0.0, 1.0 / steps, 0
        while load_factor < 1.0 - 1e-12:
            target = min(load_factor + step, 1.0)
            saved = self._save()
            converged, iterations, history = self.solve_step(target)
            if not converged:
                self._restore(saved)
                result.rejected_steps += 1
                cuts += 1
                if cuts > max_cuts:
                    raise ConvergenceError(
                        f"the coupled rods–solid Newton failed beyond load factor "
                        f"{load_factor:.6g} (step {step:.3g}, PETSc reason "
                        f"{self._problem.solver.getConvergedReason()}); use more steps, a "
                        "softer penalty or a finer mesh."
                    )
                step *= 0.5
                continue
            self._rod.commit("rotation vector")
            load_factor = target
            assert self.state is not None
            result.load_factors.append(load_factor)
            result.iterations.append(iterations)
            result.residuals.append(history)
            result.contact.append(self.state)
            if on_step is not None:
                on_step(load_factor)
        return result
