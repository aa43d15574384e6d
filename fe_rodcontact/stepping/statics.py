"""Static equilibrium of rods: load steps of the stepper, adaptive from λ = 0 to 1.

A load step from λ to λ + Δλ is a step of the :class:`~fe_rodcontact.stepping.stepper.Stepper`
with the :class:`StaticScheme`: loads and prescribed values at λ + Δλ, Newton (PETSc SNES) on
(u, θ) from the last converged state, then Λ ← exp(θ)Λ. A failed step is cut in half and the
state restored; below the minimum step the problem raises. A step counts as converged only when
SNES says so (residual or step-size test); SNES's divergence test is disabled because stiff rods
trip it on their first iteration.

**Contact** (a :class:`~fe_rodcontact.contact.scene.ContactScene`). Each load step is then a
"time step" from λ to λ + Δλ: rolling contact's rows are written on the increment from the last
converged state, as in dynamics with Δt = Δλ (no slip on the load increments: the quasi-static
limit), and rod–rod potential contact acts with the gradient of its law at the current
configuration. The rigid motions are checked at the first step, with every rolling contact
counted as three fixed displacement components at its contact point (tying the two rods of a
rod–rod contact).
"""

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.rods.loads import Load, Support
from fe_rodcontact.rods.rigid import check_supports, describe_motion, rigid_groups
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.supports import SupportConditions
from fe_rodcontact.solvers.options import default_newton_options
from fe_rodcontact.stepping.interrupt import Interrupted, stop_requested
from fe_rodcontact.stepping.progress import Progress
from fe_rodcontact.stepping.scheme import Scheme
from fe_rodcontact.stepping.stepper import StepControl, Stepper, StepResult
from fe_rodcontact.stepping.tolerances import RoundOffFloor, scaled_absolute_tolerance

__all__ = [
    "LoadStepping",
    "StaticProblem",
    "StaticResult",
    "StaticScheme",
    "check_supports_and_contacts",
]


@dataclass(frozen=True)
class LoadStepping:
    """Adaptive load stepping from λ = 0 to 1.

    Attributes:
        initial_step: First Δλ.
        min_step: Smallest Δλ before giving up.
        max_step: Largest Δλ.
        grow: Factor applied to Δλ after a step that took at most ``easy_iterations``.
        easy_iterations: Newton iterations at or below which a step counts as easy.
    """

    initial_step: float = 0.1
    min_step: float = 1e-6
    max_step: float = 0.25
    grow: float = 1.5
    easy_iterations: int = 5

    def __post_init__(self) -> None:
        if not 0 < self.min_step <= self.initial_step <= 1 or not self.min_step <= self.max_step:
            raise InputError(
                "load stepping needs 0 < min_step <= initial_step <= 1 and min_step <= max_step; "
                f"got {self.min_step}, {self.initial_step}, {self.max_step}."
            )
        if not self.grow >= 1:
            raise InputError(f"load stepping grow factor must be >= 1, got {self.grow}.")

    def control(self) -> StepControl:
        """The stepper's control of these steps."""
        return StepControl(
            self.initial_step, self.min_step, self.max_step, self.grow, self.easy_iterations
        )


def _free_motions(rows: npt.NDArray[np.float64], tolerance: float = 1e-10) -> npt.NDArray:
    """Null-space basis of constraint rows on stacked rigid motions (k, 6 g) → (m, 6 g)."""
    if rows.shape[0] == 0:
        return np.eye(rows.shape[1])
    scale = np.max(np.abs(rows), axis=0)
    scale[scale == 0] = 1.0
    _, singular, vt = np.linalg.svd(rows / scale)
    rank = int(np.sum(singular > tolerance * max(singular[0], 1.0)))
    basis = vt[rank:] / scale
    return basis / np.linalg.norm(basis, axis=1, keepdims=True)


def check_supports_and_contacts(
    rod: CosseratRod, supports: Sequence[Support], ties: RawContacts
) -> None:
    """Raise :class:`InputError` on every rank when supports and contacts leave a rigid motion.

    A contact at point p stops the relative rigid motion of its rods there: the rows
    [e_c, p × e_c] on rod a's group and their negatives on rod b's (none for an obstacle), the
    same rows as a fixed displacement component at p (:mod:`fe_rodcontact.rods.rigid`). Rolling
    contact keeps rolling itself free (a rotation about the line of contact points) unless a
    support stops it.

    Args:
        rod: The rods.
        supports: Their supports.
        ties: The contacts that hold the rods (rolling contacts).
    """
    rods = rod.rods
    groups = rigid_groups(rod)
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    size = 6 * len(groups)
    x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)  # where it starts
    rows: list[npt.NDArray[np.float64]] = []

    def fixed(point: npt.NDArray[np.float64], c: int, group: int, sign: float) -> None:
        row = np.zeros(size)
        e = np.eye(3)[c]
        row[6 * group : 6 * group + 6] = sign * np.concatenate([e, np.cross(point, e)])
        rows.append(row)

    for support in supports:
        i = rods.rod_index(support.rod)
        point = x[rods.end_node(i, support.end)]
        for c in support.displacement_components:
            fixed(point, c, group_of[i], 1.0)
        for c in support.rotation_components:
            row = np.zeros(size)
            row[6 * group_of[i] + 3 + c] = 1.0
            rows.append(row)
    for k in range(len(ties)):
        point = np.asarray(ties.point[k], dtype=float)
        a = group_of[int(ties.rod_a[k])]
        tied = int(ties.kind[k]) != KIND_OBSTACLE
        for c in range(3):
            fixed(point, c, a, 1.0)
            if tied:
                rows[-1][6 * group_of[int(ties.rod_b[k])] :][:6] -= np.concatenate(
                    [np.eye(3)[c], np.cross(point, np.eye(3)[c])]
                )
    free = _free_motions(np.array(rows).reshape(-1, size))
    message = None
    if len(free):
        parts = []
        for motion in free[:3]:
            moving = [
                g for g in range(len(groups)) if np.linalg.norm(motion[6 * g : 6 * g + 6]) > 1e-12
            ]
            names = ", ".join(repr(rods.names[i]) for g in moving for i in groups[g])
            g = moving[0]
            parts.append(f"{describe_motion(motion[6 * g : 6 * g + 6])} of rods {names}")
        message = (
            f"the supports and the {len(ties)} rolling contact(s) at the first load step leave "
            f"{len(free)} rigid motion(s) free, e.g. " + "; ".join(parts) + ": the constrained "
            "Newton matrix would be singular. Fix a displacement or rotation that stops it "
            "(rolling itself, a rotation about the line of the contact points, needs a "
            "prescribed rotation or a support)."
        )
    raise_collectively(rod.mesh.comm, message, InputError)


class StaticScheme(Scheme):
    """Load steps: loads and prescribed values scaled by λ, rotation vectors as increments.

    Args:
        rod: The rod model.
        supports: Boundary conditions at rod ends (prescribed values scale with λ).
        loads: Loads, all scaled by λ.
        extra_residual: User UFL terms added to the residual.
        check_rigid_motions: Refuse supports that leave a rod free to move rigidly; with
            contact, at the first step, counting its rolling contacts as supports.
        contact: Whether the problem has contact.
    """

    name = "static"
    increment = "rotation vector"

    def __init__(
        self,
        rod: CosseratRod,
        supports: Sequence[Support],
        loads: Sequence[Load],
        *,
        extra_residual: ufl.Form | None,
        check_rigid_motions: bool,
        contact: bool,
    ):
        self._rod = rod
        self.load_factor = dolfinx.fem.Constant(rod.mesh, 0.0)
        """λ of the step being solved."""
        self._conditions = SupportConditions(rod, supports, "rotation vector")
        self._supports = tuple(supports)
        self._check_pending = check_rigid_motions and contact
        if check_rigid_motions and not contact:
            check_supports(rod, supports)
        residual = rod.internal_residual()
        for load in loads:
            residual = residual - load.virtual_work(rod, self.load_factor)
        if extra_residual is not None:
            residual = residual + extra_residual
        self._residual = residual
        self._floor = RoundOffFloor(rod)

    @property
    def residual(self) -> ufl.Form:
        """Internal − external virtual work + user terms."""
        return self._residual

    @property
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """The supports' conditions."""
        return self._conditions.bcs

    def newton_options(self) -> dict[str, object]:
        """Direct Newton, absolute tolerance raised to the residual's round-off floor."""
        options = default_newton_options(self._rod.mesh.comm)
        options["snes_atol"] = scaled_absolute_tolerance(self._rod, float(options["snes_atol"]))  # type: ignore[arg-type]
        options["snes_force_iteration"] = True  # a tiny load's residual may start below atol
        return options

    def residual_floor(self) -> float:
        """The strains' round-off floor at the current positions."""
        return self._floor.statics()

    def set_load_factor(self, load_factor: float) -> None:
        """Loads and prescribed values at λ."""
        self.load_factor.value = load_factor
        self._conditions.update(load_factor)

    def begin(self, t: float, dt: float) -> None:
        """The loads and prescribed values at λ + Δλ (the state is the last converged one)."""
        self.set_load_factor(t + dt)

    def check_first_step(self, contact: ContactScene | None) -> None:
        """The rigid motions, with the first step's rolling contacts as supports."""
        if self._check_pending and contact is not None:
            check_supports_and_contacts(self._rod, self._supports, contact.rigid_ties())
        self._check_pending = False

    def commit(self, residual: dolfinx.fem.Form) -> None:
        """Λₙ ← exp(θ)Λₙ and θ ← 0."""
        self._rod.commit("rotation vector")


@dataclass
class StaticResult:
    """What a static solve went through: accepted load factors and Newton iterations."""

    load_factors: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)
    rejected_steps: int = 0
    elastic_energy: list[float] = field(default_factory=list)


class StaticProblem:
    """Rods in static equilibrium under supports and loads.

    Args:
        rod: The rod model.
        supports: Boundary conditions at rod ends.
        loads: Loads, all scaled by the load factor λ.
        extra_residual: User UFL terms added to the residual (e.g. a foundation, a coupling
            to another field); written with ``rod.state`` and ``rod.test_function``.
        petsc_options_prefix: Mandatory prefix of the SNES options.
        petsc_options: SNES/KSP options overriding the defaults
            (:func:`~fe_rodcontact.solvers.options.default_newton_options`).
        check_rigid_motions: Raise an InputError naming the rods that the supports leave
            free to move rigidly (a singular problem); turn off only when ``extra_residual``
            holds them (e.g. an elastic foundation). With ``contact`` the check runs at the
            first load step and counts the rolling contacts as supports.
        contact: The contact scene (rolling contact: no slip on the load increments, the load
            factor playing the part of time, so a moving obstacle's velocity is per unit load
            factor; rod–rod potential contact at the current configuration). The start is
            checked at the first :meth:`solve`; the iterations of a step are summed over its
            re-solves.
    """

    def __init__(
        self,
        rod: CosseratRod,
        supports: Sequence[Support] = (),
        loads: Sequence[Load] = (),
        *,
        petsc_options_prefix: str,
        extra_residual: ufl.Form | None = None,
        petsc_options: dict[str, object] | None = None,
        check_rigid_motions: bool = True,
        contact: ContactScene | None = None,
    ):
        comm = rod.mesh.comm
        raise_collectively(
            comm,
            None if petsc_options_prefix else "petsc_options_prefix must be a non-empty string.",
        )
        raise_collectively(
            comm,
            None
            if contact is None or isinstance(contact, ContactScene)
            else f"contact must be a ContactScene, got {type(contact).__name__}.",
        )
        if contact is not None:
            contact.attach("static", rod, supports)
        self._rod = rod
        self._contact = contact
        self._scheme = StaticScheme(
            rod,
            supports,
            loads,
            extra_residual=extra_residual,
            check_rigid_motions=check_rigid_motions,
            contact=contact is not None,
        )
        self._stepper = Stepper(
            rod,
            self._scheme,
            contact,
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=petsc_options,
        )
        if contact is not None:
            contact.observe(0, 0.0)

    @property
    def contact(self) -> ContactScene | None:
        """The contact scene."""
        return self._contact

    @property
    def multipliers(self) -> npt.NDArray[np.float64]:
        """The contact models' multipliers of the last solve (e.g. rolling contact forces)."""
        return self._stepper.multipliers

    @property
    def rod(self) -> CosseratRod:
        """The rod model."""
        return self._rod

    @property
    def residual(self) -> ufl.Form:
        """The full residual form (internal − external virtual work + user terms)."""
        return self._scheme.residual

    @property
    def solver(self) -> object:
        """The PETSc SNES."""
        return self._stepper.solver

    def solve_at(self, load_factor: float) -> tuple[bool, int]:
        """One Newton solve at ``load_factor`` from the current state; returns (converged, its).

        Without contact only: a contact model's terms belong to a step from the committed load
        factor (:meth:`solve`).
        """
        raise_collectively(
            self._rod.mesh.comm,
            "solve_at has no load step for contact models; use solve()."
            if self._contact is not None
            else None,
        )
        self._scheme.set_load_factor(load_factor)
        self._stepper.newton.stall_floor = self._scheme.residual_floor()
        return self._stepper.newton.solve()

    def solve(
        self,
        stepping: LoadStepping | None = None,
        *,
        on_step: Callable[[float], None] | None = None,
        stops: Sequence[float] = (),
        progress: bool = False,
    ) -> StaticResult:
        """Apply the loads from λ = 0 to 1 with adaptive steps.

        Args:
            stepping: Step-size control.
            on_step: Called with λ after each accepted (committed) step, e.g. to write output.
            stops: Load factors in (0, 1) that the stepping lands on exactly (e.g. the load
                levels of a benchmark table).
            progress: Show a progress bar on rank 0.

        Returns:
            The accepted load factors and iteration counts.

        Raises:
            ConvergenceError: On every rank, when a step fails at the minimum step size; the
                state is then the last converged one (λ in the message).
        """
        stepping = stepping or LoadStepping()
        comm = self._rod.mesh.comm
        raise_collectively(
            comm,
            None if all(0 < s < 1 for s in stops) else f"stops must lie in (0, 1), got {stops}.",
        )
        result = StaticResult()

        with Progress(comm, "load steps", total=1.0, enabled=progress) as bar:

            def accepted(load_factor: float, step: float, outcome: StepResult, _: float) -> bool:
                result.load_factors.append(load_factor)
                result.iterations.append(outcome.iterations)
                result.elastic_energy.append(self._rod.elastic_energy())
                bar.update(load_factor, f"λ={load_factor:.4f} its={outcome.iterations}")
                if on_step is not None:
                    on_step(load_factor)
                signum = stop_requested(comm)
                if signum:
                    raise Interrupted(
                        signum,
                        f"stopped by {signal.Signals(signum).name} at load factor "
                        f"{load_factor:.6g}; statics has no restart: run the case again.",
                    )
                return True

            def give_up(load_factor: float, step: float, outcome: StepResult) -> None:
                self._scheme.load_factor.value = load_factor
                failure = (outcome.failure or "").rstrip(".")
                raise ConvergenceError(
                    f"{outcome.cause} beyond load factor {load_factor:.6g} "
                    f"({failure}; step {step:.3g} < min_step {stepping.min_step:.3g}); "
                    "the rods hold the last converged state. Refine the mesh, lower min_step "
                    "or check the loads."
                )

            def rejected(step: float, outcome: StepResult) -> None:
                result.rejected_steps += 1

            self._stepper.advance(
                0.0,
                1.0,
                stepping.control(),
                stops=stops,
                accepted=accepted,
                rejected=rejected,
                give_up=give_up,
            )
        return result
