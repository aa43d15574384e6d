"""Rod dynamics: the time-stepping driver with adaptive steps, recording and restart.

The loop in :meth:`DynamicProblem.solve` is the whole dynamic flow:

    for each step tₙ → tₙ + Δt:
        prescribed end motions at tₙ₊₁, load factors at the integrator's load time,
        predictor uₙ₊₁ = uₙ + Δt vₙ, τ = 0 → SNES Newton on (uₙ₊₁, τ)
        converged?  external work of the step, velocities, Λₙ₊₁ = cay(τ)Λₙ (commit),
                    record energies and momenta, fields every k steps, checkpoint every m;
                    grow Δt back towards the nominal step after easy steps
        failed?     restore the last good state and halve Δt; below ``min_dt`` write the
                    last good state as a checkpoint and raise ConvergenceError on every rank.

A checkpoint holds every array of the state in a rank-independent layout plus time, step size and
the series; :meth:`DynamicProblem.read_checkpoint` then continues bit for bit as if
uninterrupted on the same number of ranks (on another number, to the round-off of the solver).
"""

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mpi4py import MPI
from petsc4py import PETSc

import dolfinx.fem
import dolfinx.fem.petsc
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.rods.loads import Load, Support
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import exp_map
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.solvers.newton import NewtonProblem
from fe_rodcontact.stepping.checkpoint import (
    gather_cell_values,
    load_npz,
    save_npz,
    scatter_cell_values,
)
from fe_rodcontact.stepping.contributions import PointContribution, StepContribution
from fe_rodcontact.stepping.integrators import (
    EnergyMomentum,
    GeneralizedAlpha,
    Integrator,
    TimedLoad,
    cayley_vector,
)
from fe_rodcontact.stepping.interrupt import Interrupted, stop_requested
from fe_rodcontact.stepping.monitoring import StepMonitor
from fe_rodcontact.stepping.progress import Progress
from fe_rodcontact.stepping.recording import FieldWriter, TimeSeries
from fe_rodcontact.stepping.statics import default_newton_options, scaled_absolute_tolerance

__all__ = [
    "CHECKPOINT_FILE",
    "INTEGRATORS",
    "DynamicProblem",
    "TimeStepping",
    "default_dynamics_options",
]

INTEGRATORS = ("energy-momentum", "generalized-alpha")
MAX_POINT_UPDATES = 10
"""Solves of one step at most while point contributions move their points (they settle in 2–3)."""
CHECKPOINT_FILE = "state.npz"
"""The checkpoint's file in its folder (rank-independent layout)."""


def default_dynamics_options(comm: MPI.Comm) -> dict[str, object]:
    """Newton options of one time step: the statics defaults with a tighter relative tolerance.

    Conservation holds to the tolerance of each step's solve; snes_rtol = 1e-13 costs about one
    Newton iteration more than 1e-10 and brings the energy error from ~1e-8 to ~1e-14 over
    hundreds of steps. The absolute tolerance (1e-10, in the units of the residual: force)
    accepts steps whose residual reached round-off; scale it with the forces of very stiff or
    very soft problems.
    """
    options = default_newton_options(comm)
    options.update({"snes_rtol": 1e-13, "snes_atol": 1e-10, "snes_stol": 1e-14})
    return options


@dataclass(frozen=True)
class TimeStepping:
    """Time-step control.

    Attributes:
        dt: The nominal step (also the largest one).
        adaptive: Cut the step on Newton failure and grow it back; ``False`` fails at once.
        min_dt: The smallest step before giving up.
        grow: Factor applied after an easy step (until ``dt`` is reached again).
        easy_iterations: Newton iterations at or below which a step counts as easy.
    """

    dt: float
    adaptive: bool = True
    min_dt: float | None = None
    grow: float = 2.0
    easy_iterations: int = 5

    def __post_init__(self) -> None:
        if not (np.isfinite(self.dt) and self.dt > 0):
            raise InputError(f"time step dt must be positive, got {self.dt}.")
        if self.min_dt is not None and not 0 < self.min_dt <= self.dt:
            raise InputError(f"min_dt must lie in (0, dt], got {self.min_dt}.")
        if not self.grow >= 1:
            raise InputError(f"grow must be >= 1, got {self.grow}.")

    @property
    def smallest(self) -> float:
        """The smallest allowed step (dt/1024 unless given; dt when not adaptive)."""
        if not self.adaptive:
            return self.dt
        return self.min_dt if self.min_dt is not None else self.dt / 1024


class _EndMotions:
    """Dirichlet conditions of supports in time: u(tₙ₊₁) and τ = cay⁻¹(Λ*(tₙ₊₁) Λₙᵀ) at rod ends."""

    def __init__(self, rod: CosseratRod, supports: Sequence[Support]):
        self._rod = rod
        V = rod.function_space
        self.bcs: list[dolfinx.fem.DirichletBC] = []
        self._entries = []
        for support in supports:
            vertices = rod.rods.end_vertices(support.rod, support.end)
            values = []
            for component in (*support.displacement_components,):
                dofs = dolfinx.fem.locate_dofs_topological(V.sub(component), 0, vertices)
                value = dolfinx.fem.Constant(rod.mesh, 0.0)
                self.bcs.append(dolfinx.fem.dirichletbc(value, dofs, V.sub(component)))
                values.append((component, value))
            for component in support.rotation_components:
                dofs = dolfinx.fem.locate_dofs_topological(V.sub(3 + component), 0, vertices)
                value = dolfinx.fem.Constant(rod.mesh, 0.0)
                self.bcs.append(dolfinx.fem.dirichletbc(value, dofs, V.sub(3 + component)))
                values.append((3 + component, value))
            node = dolfinx.fem.locate_dofs_topological(rod.rotation.function_space, 0, vertices)
            self._entries.append((support, values, node, self._end_rotation(node)))

    def _end_rotation(self, node: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        local = self._rod.rotation.x.array.reshape(-1, 3, 3)[node[:1]]
        return next(f[0] for f in self._rod.mesh.comm.allgather(local) if len(f))

    def hold(self) -> list[float]:
        """Set every prescribed value to zero (for accelerations); returns the old values."""
        values = [value for _, entries, _, _ in self._entries for _, value in entries]
        old = [float(v.value) for v in values]
        for v in values:
            v.value = 0.0
        return old

    def release(self, old: list[float]) -> None:
        """Undo :meth:`hold`."""
        values = [value for _, entries, _, _ in self._entries for _, value in entries]
        for v, x in zip(values, old):
            v.value = x

    def update(self, t: float) -> None:
        """Set the prescribed values at time t."""
        for support, values, node, rotation0 in self._entries:
            if support.displacement_history is not None:
                displacement = np.asarray(support.displacement_history(t), dtype=float)
            else:
                displacement = np.asarray(support.displacement)
            if support.rotation_components:
                psi = (
                    np.asarray(support.rotation_history(t), dtype=float)
                    if support.rotation_history is not None
                    else np.asarray(support.rotation)
                )
                target = exp_map(psi) @ rotation0
                tau = cayley_vector(target @ self._end_rotation(node).T)
            for component, value in values:
                value.value = displacement[component] if component < 3 else tau[component - 3]


class DynamicProblem:
    """Rods in motion under supports, end motions and time-dependent loads.

    Args:
        rod: The rod model (its reference configuration is the initial one).
        supports: Boundary conditions; ``displacement_history``/``rotation_history`` prescribe
            end motions u(t) and Λ(t) = exp(ψ(t)) Λ₀ (constant values otherwise).
        loads: Loads; a plain :class:`~fe_rodcontact.rods.loads.Load` acts with factor 1 at all
            times, a :class:`~fe_rodcontact.stepping.integrators.TimedLoad` with its history f(t).
        petsc_options_prefix: Mandatory prefix of the SNES options.
        integrator: ``"energy-momentum"`` (conserving, default) or ``"generalized-alpha"``.
        spectral_radius: ρ∞ of generalized-α.
        mass: ``"consistent"`` or ``"lumped"`` translational mass.
        petsc_options: SNES/KSP options overriding the defaults.
        monitors: Told about every accepted step (and t = 0); their scalars join the time
            series (e.g. :class:`~fe_rodcontact.contact.ContactMonitor`: contacts, min gap).
        contributions: Terms of the step equations beside the rod's own (e.g.
            :class:`~fe_rodcontact.contact.ObstaclePotential`); with generalized-α only those
            that write their rows on its end velocity (``use_end_velocity_rows``:
            :class:`~fe_rodcontact.contact.RollingContact`).
    """

    def __init__(
        self,
        rod: CosseratRod,
        supports: Sequence[Support] = (),
        loads: Sequence[Load | TimedLoad] = (),
        *,
        petsc_options_prefix: str,
        integrator: str = "energy-momentum",
        spectral_radius: float = 0.8,
        mass: str = "consistent",
        petsc_options: dict[str, object] | None = None,
        monitors: Sequence[StepMonitor] = (),
        contributions: Sequence[StepContribution | PointContribution] = (),
    ):
        comm = rod.mesh.comm
        self._monitors = tuple(monitors)
        self._contributions = tuple(contributions)
        self._point_contributions: tuple[PointContribution, ...] = tuple(
            c  # type: ignore[misc]
            for c in contributions
            if hasattr(c, "linearise")
        )
        form_contributions = tuple(c for c in contributions if hasattr(c, "virtual_work"))
        unsupported = [
            type(c).__name__
            for c in contributions
            if integrator != "energy-momentum" and not hasattr(c, "use_end_velocity_rows")
        ]
        raise_collectively(
            comm,
            None
            if not unsupported
            else (
                f"{', '.join(unsupported)} cannot run with integrator={integrator!r}: its forces "
                "are the energy-momentum step's discrete gradient, so these contact "
                "contributions need the energy-momentum integrator. Use "
                "integrator='energy-momentum' (or, for rolling contact, RollingContact, which "
                "supports both)."
            ),
        )
        raise_collectively(
            comm, None if petsc_options_prefix else "petsc_options_prefix must be non-empty."
        )
        raise_collectively(
            comm,
            None
            if integrator in INTEGRATORS
            else f"unknown integrator {integrator!r}; use one of {INTEGRATORS}.",
        )
        timed = [load if isinstance(load, TimedLoad) else TimedLoad(load) for load in loads]
        self._rod = rod
        if integrator == "energy-momentum":
            self._integrator: Integrator = EnergyMomentum(
                rod,
                timed,
                mass=mass,
                contributions=form_contributions,  # type: ignore[arg-type]
            )
        else:
            self._integrator = GeneralizedAlpha(
                rod, timed, spectral_radius=spectral_radius, mass=mass
            )
        self._motions = _EndMotions(rod, supports)
        options = default_dynamics_options(comm)
        options["snes_atol"] = scaled_absolute_tolerance(rod, float(options["snes_atol"]))  # type: ignore[arg-type]
        options["snes_force_iteration"] = True
        for contribution in contributions:  # e.g. a line search for regularised Coulomb friction
            options.update(getattr(contribution, "newton_options", {}))
        options.update(petsc_options or {})
        self._problem = NewtonProblem(
            self._integrator.residual,
            rod.state,
            self._motions.bcs,
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=options,
            optional_options=options.keys() - (petsc_options or {}).keys(),
        )
        self._constrained = (
            ConstrainedNewton(
                self._problem,
                self._point_contributions,
                petsc_options_prefix=f"{petsc_options_prefix}points_",
                petsc_options={
                    k: v for k, v in options.items() if k.startswith("snes_") or k == "snes_type"
                },
            )
            if self._point_contributions
            else None
        )
        rows = self._integrator.end_velocity_rows
        for contribution in self._contributions:  # e.g. impacts need the velocities
            if hasattr(contribution, "use_velocities"):
                contribution.use_velocities(
                    self._integrator.velocity, self._integrator.nodal_angular_velocity
                )
            if rows is not None:  # rows on the end velocity (checked above)
                contribution.use_end_velocity_rows(rows)  # type: ignore[union-attr]
        self.time = 0.0
        self.steps = 0
        self._started = False
        self.external_work = 0.0
        self._next_dt: float | None = None
        self.series = TimeSeries()
        self._record(dt=0.0, iterations=0)

    # -- access ------------------------------------------------------------------------------------
    @property
    def rod(self) -> CosseratRod:
        """The rod model."""
        return self._rod

    @property
    def integrator(self) -> Integrator:
        """The time integrator (velocities, forms, diagnostics)."""
        return self._integrator

    @property
    def solver(self) -> PETSc.SNES:
        """The PETSc SNES of one step."""
        return self._problem.solver

    @property
    def constrained_solver(self) -> ConstrainedNewton | None:
        """The Newton of the steps with point contributions (``None`` without them)."""
        return self._constrained

    @property
    def residual(self) -> ufl.Form:
        """The step residual."""
        return self._integrator.residual

    def set_initial_velocity(
        self,
        velocity: Callable[[npt.NDArray[np.float64]], npt.ArrayLike] | None = None,
        angular_velocity: Callable[[npt.NDArray[np.float64]], npt.ArrayLike] | None = None,
    ) -> None:
        """Initial v(x) and spatial ω(x) (callables of coordinates (3, n)); re-records t = 0."""
        self._integrator.set_initial_velocity(velocity, angular_velocity)
        self.series = TimeSeries()
        self._record(dt=0.0, iterations=0)

    def set_initial_displacement(
        self, displacement: Callable[[npt.NDArray[np.float64]], npt.ArrayLike]
    ) -> None:
        """Initial centreline displacement u(x) (frames unchanged, e.g. a pre-stretched rod)."""
        u0 = self._integrator.previous_displacement
        u0.interpolate(lambda x: np.asarray(displacement(x), dtype=float).reshape(3, -1) + 0 * x)
        u0.x.scatter_forward()
        self._rod.displacement.x.array[:] = u0.x.array
        self._rod.state.x.array.reshape(-1, 6)[:, :3] = u0.x.array.reshape(-1, 3)
        self.series = TimeSeries()
        self._record(dt=0.0, iterations=0)

    def diagnostics(self) -> dict[str, object]:
        """Energies and momenta now (see :meth:`Integrator.diagnostics`)."""
        return self._integrator.diagnostics()

    # -- stepping ------------------------------------------------------------------------------
    def _functions(self) -> tuple[dolfinx.fem.Function, ...]:
        return self._integrator.state_functions()

    def _save(self) -> tuple:
        return self._rod.snapshot(), tuple(f.x.array.copy() for f in self._functions())

    def _restore(self, saved: tuple) -> None:
        rod_state, own = saved
        self._rod.restore(rod_state)
        for f, values in zip(self._functions(), own):
            f.x.array[:] = values

    def try_step(self, dt: float) -> tuple[bool, int]:
        """One step of size dt from the current time; on failure the state is restored.

        Returns:
            (converged, Newton iterations).
        """
        if self.steps == 0 and not self._started:
            # The start is checked on the configuration the run starts from, after
            # set_initial_displacement (strings pressed from overlapping straight lines).
            for contribution in self._contributions:
                contribution.check_start()
            self._started = True
        if self.steps == 0 and isinstance(self._integrator, GeneralizedAlpha):
            self._start_accelerations(dt)
        saved = self._save()
        self._integrator.prepare(self.time, dt)
        for contribution in self._contributions:
            contribution.prepare(self.time, dt)
        self._motions.update(self.time + dt)
        converged, iterations = self._solve_step()
        if not converged:
            self._restore(saved)
            return False, iterations
        self.external_work += self._integrator.external_power()
        self.external_work += self._integrator.support_work(
            self._problem.residual_form, self._motions.bcs
        )
        for contribution in self._contributions:
            contribution.commit(self.time + dt)
        self._integrator.update()
        self.time += dt
        self.steps += 1
        self._record(dt=dt, iterations=iterations)
        return True, iterations

    def _solve_step(self) -> tuple[bool, int]:
        """Newton on the step; with point contributions, again until their points settle."""
        if self._constrained is None:
            return self._problem.solve()
        return self._constrained.solve_until_settled(MAX_POINT_UPDATES)

    def _step_failure(self) -> str | None:
        if self._constrained is not None:
            return self._constrained.failure
        return self._problem.failure

    def _start_accelerations(self, dt: float) -> None:
        """Generalized-α: a₀ from the equations of motion at t₀ (zero where ends are held).

        With point contributions (rolling contact) the accelerations also satisfy their rows:
        :meth:`_constrain_start`.
        """
        integrator = self._integrator
        assert isinstance(integrator, GeneralizedAlpha)
        integrator.prepare(self.time, 0.0)  # load factors at t₀ (GA loads at t + dt)
        state = self._rod.state.x.array.reshape(-1, 6)
        state[:, :3] = integrator.previous_displacement.x.array.reshape(-1, 3)
        held = self._motions.hold()
        mass, forces = integrator.initial_acceleration_forms()
        newton = default_newton_options(self._rod.mesh.comm)
        problem = dolfinx.fem.petsc.LinearProblem(
            mass,
            forces,
            bcs=self._motions.bcs,
            petsc_options_prefix=f"{self.solver.getOptionsPrefix()}start_",
            petsc_options={
                k: newton[k] for k in ("ksp_type", "pc_type", "pc_factor_mat_solver_type")
            },
        )
        solution = problem.solve()
        solved = problem.solver.getConvergedReason() > 0
        if self._point_contributions and self._rod.mesh.comm.allreduce(solved, op=MPI.LAND):
            self._constrain_start(problem, solution, dt)
        self._motions.release(held)
        finite = np.all(np.isfinite(solution.x.array))
        if self._rod.mesh.comm.allreduce(bool(solved and finite), op=MPI.LAND):
            integrator.set_initial_accelerations(solution)  # else (no rotary inertia): a₀ = 0
        problem.__del__()  # collective: now on every rank, not whenever the collector runs

    def _constrain_start(
        self, problem: dolfinx.fem.petsc.LinearProblem, solution: dolfinx.fem.Function, dt: float
    ) -> None:
        """Make a₀ consistent with the point contributions' rows: M a + G λ = F, Gᵀ a = 0.

        An a₀ that violates the constraints (free fall onto a slope) excites generalized-α's
        spurious root of the algebraic components, a double root at −ρ∞: the contact force
        would alternate step by step, decaying like n ρ∞ⁿ. G = Bᵀ is the coupling of the rows
        at the initial configuration (``linearise`` after ``prepare``); with Y = M⁻¹G (one
        solve per multiplier with the factorised M), λ = (GᵀY)⁻¹Gᵀa_free and a = a_free − Yλ.
        The rows' Ḃq̇ term is left out: the start is exactly consistent for rods starting from
        rest or in rigid translation, and otherwise off by Ḃq̇₀ (O(|ω||v|) at a contact).
        """
        comm = self._rod.mesh.comm
        parts = []
        for contribution in self._point_contributions:
            contribution.prepare(self.time, dt)
            linearised = contribution.linearise(np.zeros(contribution.num_multipliers))
            parts.append((linearised.coupling, contribution.num_multipliers))
        m = sum(size for _, size in parts)
        if m == 0:
            return
        V = self._rod.function_space
        owned = V.dofmap.index_map.size_local * 6
        first = V.dofmap.index_map.local_range[0] * 6
        coupling = np.zeros((owned, m))
        shift = 0
        for (rows, cols, values), size in parts:
            mine = (rows >= first) & (rows < first + owned)
            np.add.at(coupling, (rows[mine] - first, cols[mine] + shift), values[mine])
            shift += size
        for bc in self._motions.bcs:  # held dofs take no constraint force
            dofs, count = bc.dof_indices()
            coupling[dofs[:count][dofs[:count] < owned]] = 0.0
        matrix = problem.A
        rhs, y = matrix.createVecRight(), matrix.createVecRight()
        inverse = np.zeros((owned, m))
        for j in range(m):
            rhs.array[:] = coupling[:, j]
            problem.solver.solve(rhs, y)
            inverse[:, j] = y.array
        rhs.destroy()
        y.destroy()
        free = solution.x.array[:owned]
        schur = comm.allreduce(coupling.T @ inverse)
        # Least squares: redundant rows (a rod lying on a plane) make GᵀM⁻¹G singular, but
        # Gᵀa_free lies in its range, so the minimum-norm λ still gives Gᵀa = 0.
        multipliers = np.linalg.lstsq(schur, comm.allreduce(coupling.T @ free))[0]
        solution.x.array[:owned] = free - inverse @ multipliers
        solution.x.scatter_forward()

    def _record(self, dt: float, iterations: int) -> None:
        d = self._integrator.diagnostics()
        for contribution in self._contributions:  # energies of several obstacles add up
            for key, value in contribution.diagnostics().items():
                d[key] = float(d.get(key, 0.0)) + value  # type: ignore[arg-type]
        for monitor in self._monitors:
            monitor.observe(self.steps, self.time)
            d.update(monitor.record())
        self.series.append(
            t=self.time, dt=dt, iterations=iterations, external_work=self.external_work, **d
        )

    def solve(
        self,
        t_end: float,
        stepping: TimeStepping,
        *,
        progress: bool = False,
        fields: FieldWriter | None = None,
        checkpoint: str | Path | None = None,
        checkpoint_every: int = 0,
        on_step: Callable[["DynamicProblem"], None] | None = None,
        max_steps: int | None = None,
    ) -> TimeSeries:
        """Advance to ``t_end``.

        Args:
            t_end: The final time.
            stepping: Step-size control.
            progress: Progress bar on rank 0.
            fields: Field output, written after accepted steps (its own ``every``).
            checkpoint: Folder for checkpoints (every ``checkpoint_every`` steps, and the last
                good state when the run fails).
            checkpoint_every: Steps between checkpoints; 0 writes none (except on failure).
            on_step: Called after each accepted step.
            max_steps: Stop after this many accepted steps in this call (to emulate a cut-off).

        Returns:
            The time series so far.

        Raises:
            ConvergenceError: On every rank, when a step fails at the smallest step; the rods
                then hold the last good state (also written to ``checkpoint`` when given).
        """
        dt = self._next_dt if self._next_dt is not None else stepping.dt
        dt = min(dt, stepping.dt)
        taken = 0
        tolerance = 1e-12 * max(1.0, abs(t_end))
        with Progress(self._rod.mesh.comm, "time", total=t_end, enabled=progress) as bar:
            while self.time < t_end - tolerance:
                if max_steps is not None and taken >= max_steps:
                    break
                remaining = t_end - self.time
                step = remaining if remaining < dt * (1 + 1e-9) else dt
                converged, iterations = self.try_step(step)
                if not converged:
                    dt = step / 2
                    if dt < stepping.smallest * (1 - 1e-12):
                        if checkpoint is not None:
                            self.write_checkpoint(checkpoint)
                        raise ConvergenceError(
                            f"time step failed at t = {self.time:.6g}: Newton did not converge "
                            f"({self._step_failure()}) with dt = "
                            f"{step:.3g} (smallest allowed {stepping.smallest:.3g}); the rods "
                            "hold the last good state"
                            + (f", written to {checkpoint}" if checkpoint is not None else "")
                            + ". Reduce dt, refine the mesh, or check loads and end motions."
                        )
                    self._next_dt = dt
                    continue
                taken += 1
                if step == dt and iterations <= stepping.easy_iterations:
                    dt = min(dt * stepping.grow, stepping.dt)
                self._next_dt = dt
                bar.update(self.time, f"t={self.time:.4g} dt={step:.3g} its={iterations}")
                if fields is not None:
                    fields.write(self.steps, self.time)
                if (
                    checkpoint is not None
                    and checkpoint_every
                    and self.steps % checkpoint_every == 0
                ):
                    self.write_checkpoint(checkpoint)
                if on_step is not None:
                    on_step(self)
                signum = stop_requested(self._rod.mesh.comm)
                if signum:
                    self._stop(signum, checkpoint)
        return self.series

    def _stop(self, signum: int, checkpoint: str | Path | None) -> None:
        """Write the last completed step to ``checkpoint`` and raise :class:`Interrupted`."""
        where = f"t = {self.time:.6g} (step {self.steps})"
        if checkpoint is not None:
            self.write_checkpoint(checkpoint)
            where += f"; checkpoint written to {checkpoint}"
        raise Interrupted(signum, f"stopped by {signal.Signals(signum).name} at {where}.")

    # -- checkpoint and restart ------------------------------------------------------------------
    def write_checkpoint(self, folder: str | Path) -> None:
        """Write the state, time, step size and series to ``folder/state.npz`` (collective).

        The layout is rank-independent (:mod:`fe_rodcontact.stepping.checkpoint`): a checkpoint
        written
        on any number of ranks can be read on any other.
        """
        comm = self._rod.mesh.comm
        values = gather_cell_values(self._checkpoint_functions())
        arrays = None
        if comm.rank == 0:
            assert values is not None
            arrays = {f"field_{i}": a for i, a in enumerate(values)}
            arrays.update({f"series_{k}": v for k, v in self.series.arrays().items()})
            scalars = [self.time, self.external_work, self._next_dt or 0.0, self.steps, comm.size]
            arrays["scalars"] = np.array(scalars, dtype=float)
        for i, contribution in enumerate(self._contributions):
            if hasattr(contribution, "checkpoint_state"):
                state = contribution.checkpoint_state()
                if arrays is not None:
                    arrays.update({f"contribution{i}_{k}": v for k, v in state.items()})
        save_npz(Path(folder) / CHECKPOINT_FILE, comm, arrays)

    def read_checkpoint(self, folder: str | Path) -> None:
        """Continue from a checkpoint written by :meth:`write_checkpoint` (same mesh, any ranks)."""
        comm = self._rod.mesh.comm
        path = Path(folder) / CHECKPOINT_FILE
        message = None
        if not path.exists():
            message = (
                f"no checkpoint {path}: the run that used this output folder wrote none. Set "
                "[output].checkpoint_every > 0, or stop a run with Ctrl-C or SIGTERM (both write "
                "one), or run without --restart."
            )
            old = sorted(Path(folder).glob("rank*.npz"))
            if old:
                message = (
                    f"{folder} holds a per-rank checkpoint of an older version ({len(old)} "
                    f"files), which only `mpiexec -n {len(old)}` could read; run again."
                )
        raise_collectively(comm, message)
        data = load_npz(path, comm, "checkpoint")
        functions = self._checkpoint_functions()
        missing = [f"field_{i}" for i in range(len(functions)) if f"field_{i}" not in data]
        raise_collectively(
            comm,
            f"checkpoint {path} lacks {missing}: it was written by another integrator; restart "
            "with the case that wrote it."
            if missing or "scalars" not in data
            else None,
        )
        scatter_cell_values(
            functions, [data[f"field_{i}"] for i in range(len(functions))], f"checkpoint {path}"
        )
        for i, contribution in enumerate(self._contributions):
            if hasattr(contribution, "restore_state"):
                prefix = f"contribution{i}_"
                state = {k[len(prefix) :]: v for k, v in data.items() if k.startswith(prefix)}
                raise_collectively(
                    comm,
                    None
                    if state
                    else f"checkpoint {path} holds no state of contribution {i} "
                    f"({type(contribution).__name__}): it was written by another case; "
                    "restart with the case that wrote it.",
                )
                contribution.restore_state(state)
        t, work, next_dt, steps, _ranks = data["scalars"]
        self.time, self.external_work, self.steps = float(t), float(work), int(steps)
        self._next_dt = float(next_dt) if next_dt > 0 else None
        self.series.load({k[len("series_") :]: data[k] for k in data if k.startswith("series_")})

    def _checkpoint_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        return (*self._rod.state_functions(), *self._functions())
