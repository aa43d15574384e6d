"""Static equilibrium of rods: Newton (PETSc SNES) with adaptive load stepping.

The loop in :meth:`StaticProblem.solve` is the whole static flow:

    λ ← λ + Δλ → update prescribed values → SNES Newton on (u, θ) →
    converged?  commit (Λₙ ← exp(θ)Λₙ), grow Δλ on easy steps
    failed?     restore the last good state, halve Δλ; below the minimum step raise.

A step counts as converged only when SNES says so (residual or step-size test); SNES's
divergence test is disabled because stiff rods trip it on their first iteration.

**Point contributions** (e.g. :class:`~fe_rodcontact.contact.rolling.model.RollingContact`: rolling
contact as the quasi-static limit, no slip on the load increments). Each load step is then a
"time step" from λ to λ + Δλ: the contribution's rows are written on the increment from the
last converged state (``rod.displacement``, committed) to the unknown state (``rod.state``:
u and the rotation vector θ of the increment), exactly as in dynamics with Δt = Δλ. The step is
solved by :class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton` (the multipliers are the
contact forces) and solved again while the contributions move their points
(:meth:`~fe_rodcontact.stepping.contributions.PointContribution.move_points`); a failed step
restores
the rods *and* the contributions (``snapshot``/``restore``) before Δλ is halved. The rigid
motions are checked at the first step, with every active contact counted as three fixed
displacement components at its contact point (tying the two rods of a rod–rod contact).
"""

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from mpi4py import MPI
from petsc4py import PETSc

import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.geometry.search import KIND_OBSTACLE
from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.rods.loads import Load, Support
from fe_rodcontact.rods.rigid import check_supports, describe_motion, rigid_groups
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.supports import SupportConditions
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.solvers.newton import NewtonProblem
from fe_rodcontact.stepping.contributions import PointContribution
from fe_rodcontact.stepping.interrupt import Interrupted, stop_requested
from fe_rodcontact.stepping.progress import Progress

__all__ = [
    "LoadStepping",
    "StaticPointContribution",
    "StaticProblem",
    "StaticResult",
    "check_supports_and_contacts",
    "default_newton_options",
    "residual_floor",
    "scaled_absolute_tolerance",
    "stall_floor",
    "stiffness_scale",
]

MAX_POINT_UPDATES = 20
"""Solves of one load step at most while point contributions move their points."""


def default_newton_options(comm: MPI.Comm) -> dict[str, object]:
    """Newton (SNES), direct solves: PETSc LU in serial (banded matrices), MUMPS in parallel.

    Serially the LU uses reverse Cuthill–McKee ordering: a rod's matrix is a band, which RCM
    keeps without fill (measured on 10⁴ P1 elements: 1.08e6 factor entries, the matrix's own,
    against 1.74e6 with PETSc's default nested dissection).
    """
    serial = {"pc_factor_mat_ordering_type": "rcm"} if comm.size == 1 else {}
    return {
        "snes_type": "newtonls",
        "snes_linesearch_type": "basic",
        "snes_rtol": 1e-10,
        "snes_atol": 1e-12,
        "snes_stol": 1e-11,
        "snes_max_it": 25,
        "snes_divergence_tolerance": 1e300,  # -1 means "default" in PETSc >= 3.22
        "ksp_type": "preonly",
        "pc_type": "lu",
        "pc_factor_mat_solver_type": "petsc" if comm.size == 1 else "mumps",
        **serial,
    }


def stiffness_scale(rod: CosseratRod) -> float:
    """The largest axial or shear stiffness (EA, GA1, GA2) of the rods, in force units."""
    return max(max(s.EA, s.GA1, s.GA2) for s in rod.sections)


def residual_floor(rod: CosseratRod) -> float:
    """The round-off floor of the residual's norm: ε·max(EA, GA)·√(number of unknowns).

    The internal forces are stiffness times strains that are computed from rotated vectors of
    size 1, so each residual entry carries an error of about ε·EA. Measured on a clamped steel
    rod (EA = 2.6e8 N, 40 elements, 246 unknowns, estimate 9e-7): Newton stalls at 1e-10 near
    the reference state and at 2.2e-7 once it bends, far above the fixed ``snes_atol = 1e-12``.
    """
    unknowns = rod.function_space.dofmap.index_map.size_global * rod.function_space.dofmap.bs
    return float(np.finfo(float).eps * stiffness_scale(rod) * np.sqrt(unknowns))


def stall_floor(rod: CosseratRod) -> float:
    """The residual norm at which Newton may stall on a fine mesh: the round-off floor times X/h.

    Strains come from differences of nodal positions over an element, r' ≈ (x₂ − x₁)/h, which
    lose about log10(X/h) digits (X the size of the coordinates, h the shortest element): a
    straight 10 m rod of 10⁴ elements under an end moment stalls at 1.4e-7 where
    :func:`residual_floor` is 5.4e-10 (X/h = 10⁴). A Newton solve that stops on a small step
    with its residual below 10 × this value is accepted.
    """
    mesh = rod.mesh
    x = mesh.geometry.x
    cells = mesh.geometry.dofmaps[0]
    comm = mesh.comm
    local_h = np.linalg.norm(x[cells[:, 1]] - x[cells[:, 0]], axis=1)
    h = comm.allreduce(float(local_h.min()) if len(local_h) else np.inf, op=MPI.MIN)
    size = comm.allreduce(float(np.abs(x).max()) if len(x) else 0.0, op=MPI.MAX)
    return residual_floor(rod) * max(1.0, size / h)


def scaled_absolute_tolerance(rod: CosseratRod, floor: float) -> float:
    """``snes_atol`` for this rod: ``floor``, raised to the residual's round-off floor."""
    return max(floor, residual_floor(rod))


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


class StaticPointContribution(PointContribution, Protocol):
    """A point contribution that statics can cut a load step for: it saves and restores its state.

    The contact search of :class:`~fe_rodcontact.contact.rolling.model.RollingContact` gives its
    ``active_contacts`` (optional) to the rigid-motion check.
    """

    def snapshot(self) -> object:
        """The contribution's state before a step."""
        ...

    def restore(self, saved: object) -> None:
        """Go back to a state from :meth:`snapshot` after a failed step."""


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
    rod: CosseratRod,
    supports: Sequence[Support],
    contributions: Sequence[object],
) -> None:
    """Raise :class:`InputError` on every rank when supports and contacts leave a rigid motion.

    A contact at point p stops the relative rigid motion of its rods there: the rows
    [e_c, p × e_c] on rod a's group and their negatives on rod b's (none for an obstacle), the
    same rows as a fixed displacement component at p (:mod:`fe_rodcontact.rods.rigid`). Rolling
    contact keeps rolling itself free (a rotation about the line of contact points) unless a
    support stops it.
    """
    rods = rod.rods
    groups = rigid_groups(rod)
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    size = 6 * len(groups)
    x = rod.gather_nodal_coordinates()
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
    contacts = 0
    for contribution in contributions:
        active = getattr(contribution, "active_contacts", None)
        if active is None:
            continue
        for k in range(len(active)):
            contacts += 1
            point = np.asarray(active.point[k], dtype=float)
            a = group_of[int(active.rod_a[k])]
            tied = int(active.kind[k]) != KIND_OBSTACLE
            for c in range(3):
                fixed(point, c, a, 1.0)
                if tied:
                    rows[-1][6 * group_of[int(active.rod_b[k])] :][:6] -= np.concatenate(
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
            f"the supports and the {contacts} rolling contact(s) at the first load step leave "
            f"{len(free)} rigid motion(s) free, e.g. " + "; ".join(parts) + ": the constrained "
            "Newton matrix would be singular. Fix a displacement or rotation that stops it "
            "(rolling itself, a rotation about the line of the contact points, needs a "
            "prescribed rotation or a support)."
        )
    raise_collectively(rod.mesh.comm, message, InputError)


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
        petsc_options: SNES/KSP options overriding :func:`default_newton_options`.
        check_rigid_motions: Raise an InputError naming the rods that the supports leave
            free to move rigidly (a singular problem); turn off only when ``extra_residual``
            holds them (e.g. an elastic foundation). With ``contributions`` the check runs at
            the first load step and counts the active contacts as supports.
        contributions: Point contributions solved with the rods at every load step (e.g.
            :class:`~fe_rodcontact.contact.rolling.model.RollingContact`: no slip on the load
            increments); the load factor plays the part of time (λ, Δλ in ``prepare``), so a
            moving obstacle's velocity is per unit load factor. Their ``check_start`` runs at
            the first :meth:`solve`; the iterations of a step are summed over its re-solves.
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
        contributions: Sequence[StaticPointContribution] = (),
    ):
        raise_collectively(
            rod.mesh.comm,
            None if petsc_options_prefix else "petsc_options_prefix must be a non-empty string.",
        )
        self._rod = rod
        self._load_factor = dolfinx.fem.Constant(rod.mesh, 0.0)
        self._supports = SupportConditions(rod, supports)
        self._support_list = tuple(supports)
        self._contributions = tuple(contributions)
        missing = [
            type(c).__name__
            for c in self._contributions
            if not all(hasattr(c, m) for m in ("snapshot", "restore", "move_points"))
        ]
        raise_collectively(
            rod.mesh.comm,
            f"statics needs point contributions with snapshot/restore/move_points: {missing}."
            if missing
            else None,
        )
        self._check_pending = check_rigid_motions and bool(self._contributions)
        self._started = False
        if check_rigid_motions and not self._contributions:
            check_supports(rod, supports)
        residual = rod.internal_residual()
        for load in loads:
            residual = residual - load.virtual_work(rod, self._load_factor)
        if extra_residual is not None:
            residual = residual + extra_residual
        self._residual = residual
        options = default_newton_options(rod.mesh.comm)
        options["snes_atol"] = scaled_absolute_tolerance(rod, float(options["snes_atol"]))  # type: ignore[arg-type]
        options["snes_force_iteration"] = True  # a tiny load's residual may start below atol
        options.update(petsc_options or {})
        self._problem = NewtonProblem(
            residual,
            rod.state,
            self._supports.bcs,
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=options,
            optional_options=options.keys() - (petsc_options or {}).keys(),
            stall_floor=stall_floor(rod),
        )
        self._constrained = (
            ConstrainedNewton(
                self._problem,
                self._contributions,
                petsc_options_prefix=f"{petsc_options_prefix}points_",
                petsc_options={k: v for k, v in options.items() if k.startswith("snes_")},
            )
            if self._contributions
            else None
        )

    @property
    def contributions(self) -> tuple[StaticPointContribution, ...]:
        """The point contributions."""
        return self._contributions

    @property
    def multipliers(self) -> npt.NDArray[np.float64]:
        """The contributions' multipliers of the last solve (e.g. rolling contact forces)."""
        return np.zeros(0) if self._constrained is None else self._constrained.multipliers

    @property
    def rod(self) -> CosseratRod:
        """The rod model."""
        return self._rod

    @property
    def residual(self) -> ufl.Form:
        """The full residual form (internal − external virtual work + user terms)."""
        return self._residual

    @property
    def solver(self) -> PETSc.SNES:
        """The PETSc SNES."""
        return self._problem.solver

    def solve_at(self, load_factor: float) -> tuple[bool, int]:
        """One Newton solve at ``load_factor`` from the current state; returns (converged, its).

        Without point contributions only: theirs is a step from the committed load factor
        (:meth:`solve`).
        """
        raise_collectively(
            self._rod.mesh.comm,
            "solve_at has no load step for point contributions; use solve()."
            if self._contributions
            else None,
        )
        self._load_factor.value = load_factor
        self._supports.update(load_factor)
        return self._problem.solve()

    def _solve_step(self, current: float, step: float) -> tuple[bool, int]:
        """The load step from ``current`` to ``current + step`` (the rods hold ``current``)."""
        if self._constrained is None:
            return self.solve_at(current + step)
        self._load_factor.value = current + step
        self._supports.update(current + step)
        for contribution in self._contributions:
            contribution.prepare(current, step)
        if self._check_pending:
            check_supports_and_contacts(self._rod, self._support_list, self._contributions)
            self._check_pending = False
        return self._constrained.solve_until_settled(MAX_POINT_UPDATES)

    def _step_failure(self) -> str | None:
        if self._constrained is not None:
            return self._constrained.failure
        return self._problem.failure

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
        result = StaticResult()
        current, step = 0.0, stepping.initial_step
        raise_collectively(
            self._rod.mesh.comm,
            None if all(0 < s < 1 for s in stops) else f"stops must lie in (0, 1), got {stops}.",
        )
        landmarks = sorted({*stops, 1.0})
        if not self._started:
            for contribution in self._contributions:
                contribution.check_start()
            self._started = True
        with Progress(self._rod.mesh.comm, "load steps", total=1.0, enabled=progress) as bar:
            while current < 1.0 - 1e-14:
                next_stop = next(s for s in landmarks if s > current + 1e-14)
                step = min(step, next_stop - current)
                saved = self._rod.snapshot()
                saved_points = [c.snapshot() for c in self._contributions]
                converged, iterations = self._solve_step(current, step)
                if not converged:
                    self._rod.restore(saved)
                    for contribution, state in zip(self._contributions, saved_points):
                        contribution.restore(state)
                    result.rejected_steps += 1
                    step *= 0.5
                    if step < stepping.min_step:
                        self._load_factor.value = current
                        raise ConvergenceError(
                            f"Newton did not converge beyond load factor {current:.6g} "
                            f"({self._step_failure()}; step {2 * step:.3g} "
                            f"< min_step {stepping.min_step:.3g}); the rods hold the last "
                            "converged state. Refine the mesh, lower min_step or check the loads."
                        )
                    continue
                new = next_stop if abs(current + step - next_stop) < 1e-14 else current + step
                for contribution in self._contributions:
                    contribution.commit(new)
                self._rod.commit()
                current = new
                result.load_factors.append(current)
                result.iterations.append(iterations)
                result.elastic_energy.append(self._rod.elastic_energy())
                bar.update(current, f"λ={current:.4f} its={iterations}")
                if on_step is not None:
                    on_step(current)
                signum = stop_requested(self._rod.mesh.comm)
                if signum:
                    raise Interrupted(
                        signum,
                        f"stopped by {signal.Signals(signum).name} at load factor {current:.6g}; "
                        "statics has no restart: run the case again.",
                    )
                if iterations <= stepping.easy_iterations:
                    step = min(step * stepping.grow, stepping.max_step)
        return result
