"""Step contributions: terms of a time step's equations beside the rod's own.

A contribution (potential contact with an obstacle, later rolling constraints) implements
:class:`StepContribution`. The energy–momentum integrator adds
:meth:`StepContribution.virtual_work` of the step (from uₙ to uₙ₊₁, with test functions δu,
δψ and the step's rotation increment τ) to its residual when it builds it; Newton differentiates
it with the rest. :class:`~fe_rodcontact.dynamics.DynamicProblem` calls :meth:`prepare` before
each step's solve, :meth:`commit` after an accepted step, :meth:`check_start` once, and adds
:meth:`diagnostics` to the time series (an energy under the key ``contact_energy`` is part of
``total_energy``).
"""

from typing import Protocol

import ufl

__all__ = ["StepContribution"]


class StepContribution(Protocol):
    """A term of the step equations."""

    def virtual_work(
        self,
        u_n: ufl.core.expr.Expr,
        u_new: ufl.core.expr.Expr,
        du: ufl.core.expr.Expr,
        rotation_increment: ufl.core.expr.Expr,
        dpsi: ufl.core.expr.Expr,
    ) -> ufl.Form:
        """The term's virtual work over the step (added to the residual)."""
        ...

    def prepare(self, t: float, dt: float) -> None:
        """Before the solve of the step from t to t + dt."""

    def commit(self, t: float) -> None:
        """The step was accepted (the state still holds uₙ and uₙ₊₁); t is the new time."""

    def check_start(self) -> None:
        """Check the starting configuration (raise on every rank when it is not admissible)."""

    def diagnostics(self) -> dict[str, float]:
        """Scalars of the committed state for the time series."""
        ...
