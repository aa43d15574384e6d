"""The step, the same for statics and dynamics, and the adaptive loop over steps.

:meth:`Stepper.try_step` is the whole step, top to bottom:

1. the scheme predicts the state and sets the loads and prescribed motions of the step;
2. each contact model begins the step with the contacts of the start configuration (found when
   the last step was accepted: the scene's search, not a new one);
3. the bordered Newton system is solved; the contact models move their points on the end
   configuration's contacts; it is solved again until they settle;
4. each contact model checks the end configuration (a singular law refuses a gap ≤ 0);
5. commit: the contact models, then the scheme (work, velocities, the rods' rotations);
6. the accepted configuration's contacts are tracked (the search of steps 3 and 4).

A step that fails restores the rods, the scheme's state and the contact models, and reports
why: Newton did not converge, or the contacts rejected it (a
:class:`~fe_rodcontact.contact.geometry.tracking.ContactError` while it was set up, its points
moved or its end was checked, or points that did not settle). :meth:`Stepper.advance` cuts such
a step and grows the step again after easy ones, landing exactly on the stops it is given; the
problem classes (:class:`~fe_rodcontact.stepping.statics.StaticProblem`,
:class:`~fe_rodcontact.stepping.dynamics.DynamicProblem`) say what happens after each accepted
step and when a step fails at the smallest size.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from petsc4py import PETSc

import numpy as np

from fe_rodcontact.contact.geometry.tracking import ContactError
from fe_rodcontact.contact.model import StepContext
from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.solvers.newton import NewtonProblem
from fe_rodcontact.stepping.scheme import Scheme

__all__ = ["MAX_SOLVES", "StepControl", "StepResult", "Stepper"]

MAX_SOLVES = 20
"""Solves of one step at most while contact models move their points (they settle in 2–4)."""


@dataclass(frozen=True)
class StepResult:
    """How a step went.

    Attributes:
        converged: It was accepted.
        iterations: Newton iterations of all its solves.
        failure: Why it failed (``None`` when accepted).
        rejected: It failed on its contacts, not in Newton: a
            :class:`~fe_rodcontact.contact.geometry.tracking.ContactError` while it was set up
            or its points moved, or points that did not settle.
    """

    converged: bool
    iterations: int
    failure: str | None = None
    rejected: bool = False

    @property
    def cause(self) -> str:
        """What failed, for messages: ``"Newton did not converge"`` or the contacts."""
        return "the contacts rejected the step" if self.rejected else "Newton did not converge"


@dataclass(frozen=True)
class StepControl:
    """Adaptive steps: cut in half on failure, grown after easy steps.

    Attributes:
        initial: The first step.
        smallest: The smallest step before giving up.
        largest: The largest step.
        grow: Factor applied after an easy full step (up to ``largest``).
        easy_iterations: Newton iterations at or below which a step counts as easy.
    """

    initial: float
    smallest: float
    largest: float
    grow: float
    easy_iterations: int


class Stepper:
    """Steps of one problem: the scheme, the contact scene, the Newton solves.

    Args:
        rod: The rods.
        scheme: The step's scheme (statics or a time integrator).
        contact: The contact scene (taken by this problem), or ``None``.
        petsc_options_prefix: Prefix of the SNES options (non-empty).
        petsc_options: Options overriding the scheme's and the contact models' defaults.
    """

    def __init__(
        self,
        rod: CosseratRod,
        scheme: Scheme,
        contact: ContactScene | None,
        *,
        petsc_options_prefix: str,
        petsc_options: dict[str, object] | None = None,
    ):
        self._rod = rod
        self._scheme = scheme
        self._contact = contact
        options = scheme.newton_options()
        for model in contact.models if contact is not None else ():
            options.update(model.newton_options)  # e.g. a line search for Coulomb friction
        options.update(petsc_options or {})
        self._newton = NewtonProblem(
            scheme.residual,
            rod.state,
            scheme.bcs,
            petsc_options_prefix=petsc_options_prefix,
            petsc_options=options,
            optional_options=options.keys() - (petsc_options or {}).keys(),
            stall_floor=scheme.residual_floor(),
        )
        point_models = contact.point_models if contact is not None else ()
        self._bordered = (
            ConstrainedNewton(
                self._newton,
                point_models,
                petsc_options_prefix=f"{petsc_options_prefix}points_",
                petsc_options={k: v for k, v in options.items() if k.startswith("snes_")},
            )
            if point_models
            else None
        )
        self._prefix = petsc_options_prefix
        self.steps = 0
        """Steps accepted so far."""
        self._started = False
        self._iterations = 0  # Newton iterations of the step being tried

    # -- access ----------------------------------------------------------------------------------
    @property
    def newton(self) -> NewtonProblem:
        """The Newton problem of the rods' residual."""
        return self._newton

    @property
    def bordered(self) -> ConstrainedNewton | None:
        """The bordered Newton solve of steps with point terms (``None`` without them)."""
        return self._bordered

    @property
    def solver(self) -> PETSc.SNES:
        """The SNES of the rods' residual."""
        return self._newton.solver

    @property
    def multipliers(self) -> np.ndarray:
        """The point terms' multipliers of the last solve (e.g. rolling contact forces)."""
        return np.zeros(0) if self._bordered is None else self._bordered.multipliers

    # -- the step --------------------------------------------------------------------------------
    def try_step(self, t: float, dt: float, end: float) -> StepResult:
        """The step from t to ``end`` = t + dt; a failed one leaves the state as it was.

        A :class:`~fe_rodcontact.contact.geometry.tracking.ContactError` (raised on every rank
        together) while the step is set up or solved is a rejected step: everything saved
        before the step is restored, so that the step can be cut.
        """
        scheme, contact = self._scheme, self._contact
        context = scheme.context(t, dt, end, self.steps)
        self._iterations = 0
        saved = None
        try:
            if self.steps == 0:
                self.start(context)  # before the save: a cut first step keeps the start
            saved = self._save()
            result = self._attempt(context)
        except ContactError as error:
            result = StepResult(False, self._iterations, str(error), rejected=True)
        if not result.converged:
            if saved is not None:
                self._restore(saved)
            return result
        if contact is not None:
            contact.commit(end)
        scheme.commit(self._newton.residual_form)
        self.steps += 1
        if contact is not None:
            contact.observe(self.steps, end)
        return result

    def _attempt(self, context: StepContext) -> StepResult:
        """Set the step up and solve it (raises ContactError)."""
        scheme, contact = self._scheme, self._contact
        scheme.begin(context.t, context.dt)
        self._newton.stall_floor = scheme.residual_floor()
        if contact is not None:
            contact.begin_step(context)
        if self.steps == 0:
            scheme.check_first_step(contact)
        result = self._solve()
        if result.converged and contact is not None:
            contact.check_end()
        return result

    def start(self, context: StepContext) -> None:
        """Before an attempt at the first step: check the contacts, then the scheme's start.

        The scheme's start makes the initial state consistent with the contact models' rows
        (:meth:`Scheme.start`).

        Args:
            context: The first step.
        """
        if not self._started and self._contact is not None:
            self._contact.check_start()  # (a restart continues from a configuration checked)
        self._started = True
        self._scheme.start(context, self._contact, self._prefix)

    def _solve(self) -> StepResult:
        """Solve; move the contact points; solve again until they settle."""
        if self._bordered is None:
            converged, iterations = self._newton.solve()
            self._iterations += iterations
            return StepResult(converged, iterations, self._newton.failure)
        assert self._contact is not None
        for solve in range(MAX_SOLVES):
            converged, iterations = self._bordered.solve(same_step=solve > 0)
            self._iterations += iterations
            if not converged:
                return StepResult(False, self._iterations, self._bordered.failure)
            if not self._contact.move_points(self._bordered.split_multipliers()):
                return StepResult(True, self._iterations)
        return StepResult(
            False,
            self._iterations,
            f"the contact points did not settle in {MAX_SOLVES} solves",
            rejected=True,
        )

    def _save(self) -> tuple:
        own = tuple(f.x.array.copy() for f in self._scheme.state_functions())
        contact = None if self._contact is None else self._contact.snapshot()
        return self._rod.snapshot(), own, contact

    def _restore(self, saved: tuple) -> None:
        rod_state, own, contact = saved
        self._rod.restore(rod_state)
        for f, values in zip(self._scheme.state_functions(), own, strict=True):
            f.x.array[:] = values
        if self._contact is not None:
            self._contact.restore(contact)

    # -- the loop --------------------------------------------------------------------------------
    def advance(
        self,
        start: float,
        end: float,
        control: StepControl,
        *,
        size: float | None = None,
        stops: Sequence[float] = (),
        accepted: Callable[[float, float, StepResult, float], bool],
        rejected: Callable[[float, StepResult], None] | None = None,
        give_up: Callable[[float, float, StepResult], None],
    ) -> float:
        """Steps from ``start`` to ``end``, adaptive, landing exactly on ``stops`` and ``end``.

        Args:
            start: Where the rods are (a time, or a load factor).
            end: Where to go.
            control: Step sizes.
            size: The first step (default: ``control.initial``).
            stops: Points in (start, end) that a step ends on exactly.
            accepted: Called after each accepted step with (its end, its size, its result, the
                size of the next step); returns whether to go on.
            rejected: Called after each failed step with (its size, its result).
            give_up: Called when a step fails at the smallest size, with (where the rods are,
                the step tried, its result); it raises.

        Returns:
            The step size to go on with.
        """
        tolerance = 1e-12 * max(1.0, abs(end))
        landmarks = sorted({*(s for s in stops if start + tolerance < s < end), end})
        x, h = start, min(size or control.initial, control.largest)
        while x < end - tolerance:
            target = next(s for s in landmarks if s > x + tolerance)
            full = h
            if target - x <= h * (1 + 1e-9):  # land on it exactly
                step, x_new = target - x, target
            else:
                step, x_new = h, x + h
            result = self.try_step(x, step, x_new)
            if not result.converged:
                h = step / 2
                if h < control.smallest * (1 - 1e-12):
                    give_up(x, step, result)
                if rejected is not None:
                    rejected(step, result)
                continue
            x = x_new
            if step == full and result.iterations <= control.easy_iterations:
                h = min(h * control.grow, control.largest)
            if not accepted(x, step, result, h):
                break
        return h
