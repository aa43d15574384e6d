"""Rod dynamics: time steps of the stepper with adaptive sizes, recording and restart.

A time step is a step of the :class:`~fe_rodcontact.stepping.stepper.Stepper` with a time
integrator (:class:`~fe_rodcontact.stepping.energy_momentum.EnergyMomentum` by default, or
:class:`~fe_rodcontact.stepping.generalized_alpha.GeneralizedAlpha`). After each accepted step
:class:`DynamicProblem` records energies and momenta (and the contact scene's and monitors'
scalars), writes fields every k steps and a checkpoint every m; a failed step is cut in half,
and below ``min_dt`` the last good state is written as a checkpoint and ConvergenceError raised
on every rank.

A step that the contacts reject (a
:class:`~fe_rodcontact.contact.geometry.tracking.ContactError`: a contact that closes from beyond
the search margin, runs off a rod end, is lost within a step) is cut like one whose Newton solve
failed; at the smallest step the ConvergenceError carries the contact's message.

A checkpoint holds every array of the state in a rank-independent layout plus time, step size,
the series and the contact scene's state; :meth:`DynamicProblem.read_checkpoint` then continues
bit for bit as if uninterrupted on the same number of ranks (on another number, to the
round-off of the solver).
"""

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from petsc4py import PETSc

import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.rods.loads import Load, Support
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.stepping.consistent_start import StartProjection
from fe_rodcontact.stepping.energy_momentum import EnergyMomentum
from fe_rodcontact.stepping.generalized_alpha import GeneralizedAlpha
from fe_rodcontact.stepping.integrator import Integrator, TimedLoad
from fe_rodcontact.stepping.interrupt import Interrupted, stop_requested
from fe_rodcontact.stepping.monitoring import StepMonitor
from fe_rodcontact.stepping.progress import Progress
from fe_rodcontact.stepping.recording import TimeSeries
from fe_rodcontact.stepping.run_checkpoint import (
    CHECKPOINT_FILE,
    RunCheckpoint,
    read_run,
    write_run,
)
from fe_rodcontact.stepping.stepper import StepControl, Stepper, StepResult

__all__ = ["CHECKPOINT_FILE", "INTEGRATORS", "DynamicProblem", "FieldOutput", "TimeStepping"]

INTEGRATORS = ("energy-momentum", "generalized-alpha")


class FieldOutput(Protocol):
    """Field output after accepted steps (e.g. :class:`~fe_rodcontact.io.rods.FieldWriter`)."""

    def write(self, step: int, t: float) -> None:
        """Write the fields of ``step`` at ``t`` if it is due (collective)."""


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

    def control(self) -> StepControl:
        """The stepper's control of these steps."""
        return StepControl(self.dt, self.smallest, self.dt, self.grow, self.easy_iterations)


class DynamicProblem:
    """Rods in motion under supports, end motions and time-dependent loads.

    Args:
        rod: The rod model (its reference configuration is the initial one).
        supports: Boundary conditions; ``displacement_history``/``rotation_history`` prescribe
            end motions u(t) and Λ(t) = exp(ψ(t)) Λ₀ (constant values otherwise).
        loads: Loads; a plain :class:`~fe_rodcontact.rods.loads.Load` acts with factor 1 at all
            times, a :class:`~fe_rodcontact.stepping.integrator.TimedLoad` with its history f(t).
        petsc_options_prefix: Mandatory prefix of the SNES options.
        integrator: ``"energy-momentum"`` (conserving, default) or ``"generalized-alpha"``.
        spectral_radius: ρ∞ of generalized-α.
        mass: ``"consistent"`` or ``"lumped"`` translational mass.
        petsc_options: SNES/KSP options overriding the defaults.
        monitors: Told about every accepted step (and t = 0); their scalars join the time
            series.
        damping: Retardation time η ≥ 0 [time] of Kelvin–Voigt damping: viscous stresses
            η C (Γₙ₊₁ − Γₙ)/Δt and η C (Ωₙ₊₁ − Ωₙ)/Δt on the strain rates, which damp every
            deformation (mode k at the rate η ω_k²/2) and no rigid motion; the energy taken is
            the series' ``viscous_dissipation``. Energy–momentum only; 0: none.
        contact: The contact scene: its models act in every step, its contacts (``contacts``,
            ``min_gap``, ...) and the models' scalars join the time series.
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
        contact: ContactScene | None = None,
        damping: float = 0.0,
    ):
        comm = rod.mesh.comm
        message = None
        if not petsc_options_prefix:
            message = "petsc_options_prefix must be non-empty."
        elif integrator not in INTEGRATORS:
            message = f"unknown integrator {integrator!r}; use one of {INTEGRATORS}."
        elif not (isinstance(damping, int | float) and np.isfinite(damping) and damping >= 0):
            message = f"damping must be a retardation time >= 0 (0: none), got {damping!r}."
        elif damping > 0 and integrator != "energy-momentum":
            message = (
                "damping (Kelvin–Voigt) is built into the energy–momentum scheme only; use "
                "integrator='energy-momentum' or set damping to 0."
            )
        elif contact is not None and not isinstance(contact, ContactScene):
            message = f"contact must be a ContactScene, got {type(contact).__name__}."
        raise_collectively(comm, message)
        if contact is not None:
            contact.attach(integrator, rod, supports)
        timed = [load if isinstance(load, TimedLoad) else TimedLoad(load) for load in loads]
        models = contact.models if contact is not None else ()
        self._rod = rod
        self._contact = contact
        self._monitors = tuple(monitors)
        if integrator == "energy-momentum":
            self._integrator: Integrator = EnergyMomentum(
                rod, supports, timed, mass=mass, models=models, damping=float(damping)
            )
        else:
            self._integrator = GeneralizedAlpha(
                rod, supports, timed, spectral_radius=spectral_radius, mass=mass, models=models
            )
        self._stepper = Stepper(
            rod,
            self._integrator,
            contact,
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=petsc_options,
        )
        self.time = 0.0
        self._next_dt: float | None = None
        self.series = TimeSeries()
        self._record_start()

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
    def contact(self) -> ContactScene | None:
        """The contact scene."""
        return self._contact

    @property
    def solver(self) -> PETSc.SNES:
        """The PETSc SNES of one step."""
        return self._stepper.solver

    @property
    def constrained_solver(self) -> ConstrainedNewton | None:
        """The bordered Newton solve of steps with point terms (``None`` without them)."""
        return self._stepper.bordered

    @property
    def residual(self) -> ufl.Form:
        """The step residual."""
        return self._integrator.residual

    @property
    def steps(self) -> int:
        """Steps accepted so far."""
        return self._stepper.steps

    @property
    def external_work(self) -> float:
        """The work of loads, supports and moving obstacles so far."""
        obstacles = 0.0 if self._contact is None else self._contact.obstacle_work()
        return self._integrator.external_work + obstacles

    @property
    def start_projection(self) -> StartProjection | None:
        """What the consistent start did to the initial velocities.

        The rows held, the initial slip, the energy taken
        (:mod:`~fe_rodcontact.stepping.consistent_start`); ``None`` before the first step and
        without contact rows.
        """
        return self._integrator.start_projection

    def set_initial_velocity(
        self,
        velocity: Callable[[npt.NDArray[np.float64]], npt.ArrayLike] | None = None,
        angular_velocity: Callable[[npt.NDArray[np.float64]], npt.ArrayLike] | None = None,
    ) -> None:
        """Initial v(x) and spatial ω(x) (callables of coordinates (3, n)); re-records t = 0."""
        self._integrator.set_initial_velocity(velocity, angular_velocity)
        self._record_start()

    def set_initial_displacement(
        self, displacement: Callable[[npt.NDArray[np.float64]], npt.ArrayLike]
    ) -> None:
        """Initial centreline displacement u(x) (frames unchanged, e.g. a pre-stretched rod)."""
        u0 = self._integrator.previous_displacement
        u0.interpolate(lambda x: np.asarray(displacement(x), dtype=float).reshape(3, -1) + 0 * x)
        u0.x.scatter_forward()
        self._rod.displacement.x.array[:] = u0.x.array
        self._rod.state.x.array.reshape(-1, 6)[:, :3] = u0.x.array.reshape(-1, 3)
        self._record_start()

    def diagnostics(self) -> dict[str, object]:
        """Energies and momenta now (see :meth:`Integrator.diagnostics`)."""
        return self._integrator.diagnostics()

    # -- stepping ------------------------------------------------------------------------------
    def start(self, dt: float) -> StartProjection | None:
        """Make the initial state consistent with the contact rows now, and report it.

        The first step does it otherwise. The report is what the velocities' projection did.

        Args:
            dt: The first step (the rows are the first step's, at its start).

        Returns:
            :attr:`start_projection`.
        """
        raise_collectively(
            self._rod.mesh.comm,
            f"start() comes before the first step; this run has taken {self.steps}."
            if self.steps
            else None
            if dt > 0
            else f"start(dt): dt must be positive, got {dt}.",
        )
        self._stepper.start(self._integrator.context(self.time, dt, self.time + dt, 0))
        return self.start_projection

    def try_step(self, dt: float) -> tuple[bool, int]:
        """One step of size dt from the current time; on failure the state is restored.

        Returns:
            (converged, Newton iterations).
        """
        end = self.time + dt
        result = self._stepper.try_step(self.time, dt, end)
        if result.converged:
            self.time = end
            self._record(dt=dt, iterations=result.iterations)
        return result.converged, result.iterations

    def _record_start(self) -> None:
        """The series from the initial state (its contacts searched again)."""
        if self._contact is not None:
            self._contact.observe(self.steps, self.time)
        self.series = TimeSeries()
        self._record(dt=0.0, iterations=0)

    def _record(self, dt: float, iterations: int) -> None:
        d = self._integrator.diagnostics()
        if self._contact is not None:
            d.update(self._contact.diagnostics())
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
        fields: FieldOutput | None = None,
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
        comm = self._rod.mesh.comm
        message = None
        if not np.isfinite(t_end):
            message = f"t_end must be a finite time, got {t_end!r}."
        elif not (isinstance(checkpoint_every, int) and checkpoint_every >= 0):
            message = (
                f"checkpoint_every must be an integer >= 0 (0: none), got {checkpoint_every!r}."
            )
        raise_collectively(comm, message)
        size = min(self._next_dt if self._next_dt is not None else stepping.dt, stepping.dt)
        taken = 0
        with Progress(comm, "time", total=t_end, enabled=progress) as bar:

            def accepted(t: float, step: float, outcome: StepResult, next_size: float) -> bool:
                nonlocal taken
                taken += 1
                self.time = t
                self._record(dt=step, iterations=outcome.iterations)
                self._next_dt = next_size
                bar.update(self.time, f"t={self.time:.4g} dt={step:.3g} its={outcome.iterations}")
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
                signum = stop_requested(comm)
                if signum:
                    self._stop(signum, checkpoint)
                return max_steps is None or taken < max_steps

            def rejected(step: float, outcome: StepResult) -> None:
                self._next_dt = step / 2

            def give_up(t: float, step: float, outcome: StepResult) -> None:
                if checkpoint is not None:
                    self.write_checkpoint(checkpoint)
                failure = (outcome.failure or "").rstrip(".")
                raise ConvergenceError(
                    f"time step failed at t = {self.time:.6g}: {outcome.cause} "
                    f"({failure}) with dt = {step:.3g} (smallest allowed "
                    f"{stepping.smallest:.3g}); the rods hold the last good state"
                    + (f", written to {checkpoint}" if checkpoint is not None else "")
                    + ". Reduce dt, refine the mesh, or check loads and end motions."
                )

            if max_steps is None or max_steps > 0:
                self._stepper.advance(
                    self.time,
                    t_end,
                    stepping.control(),
                    size=size,
                    accepted=accepted,
                    rejected=rejected,
                    give_up=give_up,
                )
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
        """Write the state, time, step size, series and contact to ``folder/state.npz``.

        Collective. The layout is rank-independent (:mod:`fe_rodcontact.stepping.run_checkpoint`):
        a checkpoint written on any number of ranks can be read on any other.
        """
        run = RunCheckpoint(
            self.time,
            self._integrator.external_work,  # (the obstacles' is in the contact state)
            self._next_dt,
            self.steps,
            self.series,
        )
        contact = {} if self._contact is None else self._contact.checkpoint_state()
        write_run(folder, self._rod.mesh.comm, self._checkpoint_functions(), run, contact)

    def read_checkpoint(self, folder: str | Path) -> None:
        """Continue from a checkpoint written by :meth:`write_checkpoint` (same mesh, any ranks)."""
        run = read_run(
            folder,
            self._rod.mesh.comm,
            self._checkpoint_functions(),
            None if self._contact is None else self._contact.restore_state,
        )
        self.time, self._integrator.external_work = run.time, run.external_work
        arrays = run.series.arrays()
        if "viscous_dissipation" in arrays:
            self._integrator.viscous_dissipation = float(arrays["viscous_dissipation"][-1])
        self._stepper.steps = run.steps
        self._next_dt = run.next_dt
        self.series = run.series

    def _checkpoint_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        return (*self._rod.state_functions(), *self._integrator.state_functions())
