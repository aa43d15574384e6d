"""The scheme of a step: how its unknowns turn into the rods' next state.

A :class:`Scheme` is what makes a step a load step of statics or a time step of dynamics: the
residual of the step in the rods' unknown (u, θ), its Dirichlet conditions, the predictor and the
step's load factors and prescribed motions (:meth:`Scheme.begin`), what a contact model is told
of the step (:meth:`Scheme.context`), and what happens once the step is accepted
(:meth:`Scheme.commit`: velocities, the rotations' update through the rod's own commit). The
stepper (:class:`~fe_rodcontact.stepping.stepper.Stepper`) runs the same step for every scheme.

Schemes: :class:`~fe_rodcontact.stepping.statics.StaticScheme` (load increments, rotation
vectors), :class:`~fe_rodcontact.stepping.energy_momentum.EnergyMomentum` and
:class:`~fe_rodcontact.stepping.generalized_alpha.GeneralizedAlpha` (time steps, Cayley vectors).
"""

from abc import ABC, abstractmethod
from typing import ClassVar

import dolfinx.fem
import ufl

from fe_rodcontact.contact.model import StepContext
from fe_rodcontact.contact.scene import ContactScene

__all__ = ["Scheme"]


class Scheme(ABC):
    """A step's equations and the update of the state after it.

    Class attributes:
        name: One of :data:`~fe_rodcontact.contact.model.SCHEMES`.
        increment: What the rotation unknown is: ``"rotation vector"`` or ``"cayley"``.
    """

    name: ClassVar[str]
    increment: ClassVar[str]

    @property
    @abstractmethod
    def residual(self) -> ufl.Form:
        """The step residual in the rods' unknown (u, θ)."""

    @property
    @abstractmethod
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """Its Dirichlet conditions (values set by :meth:`begin`)."""

    @abstractmethod
    def newton_options(self) -> dict[str, object]:
        """The default SNES options of the step (tolerances scaled to the rods)."""

    @abstractmethod
    def begin(self, t: float, dt: float) -> None:
        """Predict the state and set the loads and prescribed values of the step t → t + dt."""

    @abstractmethod
    def residual_floor(self) -> float:
        """The round-off floor of the step residual's norm at the predicted state (collective).

        Newton's absolute tolerance is never taken below it: a solve that stalls within 10×
        it is accepted, and chord steps stop at it
        (:class:`~fe_rodcontact.stepping.tolerances.RoundOffFloor`).
        """

    def context(self, t: float, dt: float, end: float, step: int) -> StepContext:
        """What the contact models are told of the step."""
        return StepContext(t=t, dt=dt, end=end, step=step, scheme=self.name)

    def start(self, context: StepContext, contact: ContactScene | None, prefix: str) -> None:
        """Before an attempt at the first step (e.g. accelerations consistent at t₀)."""

    def check_first_step(self, contact: ContactScene | None) -> None:
        """After the first step began (its contacts are known): refuse a singular problem."""

    @abstractmethod
    def commit(self, residual: dolfinx.fem.Form) -> None:
        """The step was accepted: work, velocities, and the rods' commit of (u, θ).

        Args:
            residual: The compiled step residual (for the work of the supports).
        """

    def state_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        """Functions beyond the rods' state that a failed step restores, a checkpoint keeps."""
        return ()
