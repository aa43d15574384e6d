"""Terms at points of the rods, as the bordered Newton solve sees them.

:class:`PointTerms` is the interface between whatever acts at moving material points (rolling
constraints with their Lagrange multipliers, point contact forces, a string's contact row) and
:class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton`: per Newton iterate, the residual
and tangent of the terms as entries in global numbering (:class:`PointLinearisation`). The solver
knows nothing of points, contacts or time: it asks each term for its multipliers' starting values
and its linearisation at the current state.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

__all__ = ["Entries", "PointLinearisation", "PointTerms", "combine"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Entries = tuple[IntArray, IntArray, FloatArray]
"""COO entries: (rows, columns, values); duplicates add up."""


def _no_entries() -> Entries:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)


@dataclass(frozen=True)
class PointLinearisation:
    """Residual and tangent of point terms at one state, in global numbering.

    Rod dofs are numbered ``6 × global node block + component`` (the state space: u then the
    rotation increment); multipliers ``0..m-1`` within the terms. Every rank holds the entries
    whose row it owns (rod rows: the owner of the node; multiplier rows: rank 0); duplicates add
    up. The bordered residual is [R(x) + f(x, μ); c(x, μ)], its Jacobian [[J + K, G], [C, D]]
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
    stiffness: Entries
    coupling: Entries
    constraint_jacobian: Entries
    multiplier_jacobian: Entries = field(default_factory=_no_entries)

    @staticmethod
    def forces(rows: IntArray, values: FloatArray, stiffness: Entries) -> "PointLinearisation":
        """Point forces with their tangent and no multipliers."""
        empty = _no_entries()
        return PointLinearisation(rows, values, np.zeros(0), stiffness, empty, empty)

    @staticmethod
    def empty() -> "PointLinearisation":
        """No terms."""
        return PointLinearisation.forces(np.zeros(0, np.int64), np.zeros(0), _no_entries())


class PointTerms:
    """Terms at points of the rods: forces and rows with Lagrange multipliers.

    The bordered Newton solve asks, once per solve, for :attr:`num_multipliers` and
    :meth:`initial_multipliers`, and per iterate for :meth:`linearise`. The number of
    multipliers and the pattern of the entries are fixed during one solve. The defaults are
    terms with nothing to add.
    """

    @property
    def num_multipliers(self) -> int:
        """Multipliers of the current solve (fixed during it)."""
        return 0

    def initial_multipliers(self) -> FloatArray:
        """The multipliers a solve starts from (e.g. the last step's)."""
        return np.zeros(self.num_multipliers)

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Residual and tangent at the rods' current state and the given multipliers."""
        return PointLinearisation.empty()


def combine(parts: Sequence[PointLinearisation], sizes: Sequence[int]) -> PointLinearisation:
    """One linearisation from several, multipliers numbered consecutively in ``sizes``."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def stack(entries: list[Entries]) -> Entries:
        if not entries:
            return _no_entries()
        return tuple(np.concatenate([e[i] for e in entries]) for i in range(3))  # type: ignore[return-value]

    return PointLinearisation(
        force_rows=np.concatenate([p.force_rows for p in parts] or [np.zeros(0, np.int64)]),
        force_values=np.concatenate([p.force_values for p in parts] or [np.zeros(0)]),
        constraint=np.concatenate([p.constraint for p in parts] or [np.zeros(0)]),
        stiffness=stack([p.stiffness for p in parts]),
        coupling=stack(
            [(p.coupling[0], p.coupling[1] + o, p.coupling[2]) for p, o in zip(parts, offsets)]
        ),
        constraint_jacobian=stack(
            [
                (p.constraint_jacobian[0] + o, p.constraint_jacobian[1], p.constraint_jacobian[2])
                for p, o in zip(parts, offsets)
            ]
        ),
        multiplier_jacobian=stack(
            [
                (
                    p.multiplier_jacobian[0] + o,
                    p.multiplier_jacobian[1] + o,
                    p.multiplier_jacobian[2],
                )
                for p, o in zip(parts, offsets)
            ]
        ),
    )
