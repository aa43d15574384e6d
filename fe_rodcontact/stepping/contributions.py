"""Step contributions: terms of a time step's equations beside the rod's own.

Two kinds, one life cycle (prepare → solve → commit → diagnostics):

- :class:`StepContribution` writes its term in UFL (a potential against an obstacle);
- :class:`PointContribution` acts at moving material points (rolling constraints with their
  Lagrange multipliers, point contact forces) and hands Newton its residual and tangent as
  entries in global numbering (:class:`PointLinearisation`);
  :class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton` assembles them beside the rod's
  forms.

A contribution (potential contact with an obstacle, later rolling constraints) implements
:class:`StepContribution`. The energy–momentum integrator adds
:meth:`StepContribution.virtual_work` of the step (from uₙ to uₙ₊₁, with test functions δu,
δψ and the step's rotation increment τ) to its residual when it builds it; Newton differentiates
it with the rest. :class:`~fe_rodcontact.stepping.dynamics.DynamicProblem` calls :meth:`prepare`
before
each step's solve, :meth:`commit` after an accepted step, :meth:`check_start` once before
the first step (on the initial configuration as set, e.g. by ``set_initial_displacement``), and adds
:meth:`diagnostics` to the time series (an energy under the key ``contact_energy`` is part of
``total_energy``). A contribution may have a ``newton_options`` dict of SNES options that its
solves need (e.g. a backtracking line search for regularised Coulomb friction, whose force
turns within a slip speed ε_v); the problem's defaults yield to them and they to the user's.
"""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt
import ufl

if TYPE_CHECKING:
    import dolfinx.fem

__all__ = ["EndVelocityRows", "PointContribution", "PointLinearisation", "StepContribution"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass
class EndVelocityRows:
    """How an integrator's end velocities at the nodes follow from the step's unknowns.

    Integrators whose equations hold at tₙ₊₁ (generalized-α) give their point contributions
    this, so that velocity rows (rolling's no-slip) are written on the velocities the step
    ends with: at every node,

        vₙ₊₁ = (Δu + u_off)/h,   ωₙ₊₁ = (τ + cay(τ) θ_off)/h,

    with Δu = uₙ₊₁ − uₙ, τ the Cayley vector of the rotation increment and ω spatial. The
    integrator sets ``scale`` (h) and the offsets' values in its ``prepare``; rows multiplied
    by h are affine in Δu and depend on τ through cay(τ) only.

    Attributes:
        scale: h [time].
        translation_offset: u_off, a nodal vector Function (the rod's displacement space).
        rotation_offset: θ_off, a nodal vector Function (spatial, in the frames at tₙ).
    """

    scale: float
    translation_offset: "dolfinx.fem.Function"
    rotation_offset: "dolfinx.fem.Function"


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


@dataclass(frozen=True)
class PointLinearisation:
    """Residual and tangent of point terms at one state, in global numbering.

    Rod dofs are numbered ``6 × global node block + component`` (the state space: u then τ);
    multipliers ``0..m-1`` within the contribution. Every rank holds the entries whose row
    it owns (rod rows: the owner of the node; multiplier rows: rank 0); duplicates add up.
    The constrained residual is [R(x) + f(x, μ); c(x, μ)], its Jacobian [[J + K, G], [C, D]]
    (D = ∂c/∂μ is empty for pure constraints; rows that prescribe a multiplier, such as a
    sliding contact's friction force, have one).

    Attributes:
        force_rows: Rod dofs of the force terms f (the multipliers' virtual work Bᵀμ, or point
            contact forces).
        force_values: Their values.
        constraint: c(x), length m (rank 0; empty elsewhere).
        stiffness: (rows, cols, values) of K = ∂f/∂x.
        coupling: (rod rows, multiplier cols, values) of G = ∂f/∂μ.
        constraint_jacobian: (multiplier rows, rod cols, values) of C = ∂c/∂x.
        multiplier_jacobian: (multiplier rows, multiplier cols, values) of D = ∂c/∂μ; the
            same entries (possibly zero) in every Newton iteration of a solve.
    """

    force_rows: IntArray
    force_values: FloatArray
    constraint: FloatArray
    stiffness: tuple[IntArray, IntArray, FloatArray]
    coupling: tuple[IntArray, IntArray, FloatArray]
    constraint_jacobian: tuple[IntArray, IntArray, FloatArray]
    multiplier_jacobian: tuple[IntArray, IntArray, FloatArray] = field(
        default_factory=lambda: (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    )


class PointContribution(Protocol):
    """Terms at moving material points, with or without Lagrange multipliers."""

    @property
    def num_multipliers(self) -> int:
        """Multipliers of the current step (fixed during one solve)."""
        ...

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Residual and tangent at the rod's current state and the given multipliers."""
        ...

    def initial_multipliers(self) -> FloatArray:
        """The multipliers a solve starts from (e.g. the last step's)."""
        ...

    def move_points(self, multipliers: FloatArray) -> bool:
        """After a converged solve: move the points to where the scheme wants them.

        It changes the points and the contribution's own rows, never a coefficient of the
        rod's forms: the step's next solve reuses the forms as packed for its first.

        Returns:
            Whether they moved (then the step is solved again from the current state).
        """
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


class Checkpointable(Protocol):
    """A contribution whose state between steps goes into the run's checkpoint.

    The arrays are the same on every rank (rank 0 writes them); a restart on any number of
    ranks gives them back to :meth:`restore_state` before the next step.
    """

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The state after the last accepted step, as named arrays."""
        ...

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from arrays written by :meth:`checkpoint_state`."""
        ...
