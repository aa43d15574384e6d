"""Numbering of the bordered system [[J + K, G], [C, D]] and the place of the point terms in it.

The constrained system of :class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton` has the
rod dofs and, after rank 0's rod dofs, the m multipliers (owned by rank 0): the stacked layout of
a MatNest converted to AIJ. :class:`BorderedNumbering` maps rod dofs and multiplier indices to
that numbering; :class:`PointPattern` is where the point terms' COO entries go in it, fixed
during a solve (the contact stencils do not change within a Newton solve).
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["BorderedNumbering", "PointPattern"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Entries = tuple[IntArray, IntArray, FloatArray]


def _blocks(linearised: PointLinearisation) -> tuple[Entries, Entries, Entries, Entries]:
    """The COO blocks K, G, C, D of ``linearised``."""
    return (
        linearised.stiffness,
        linearised.coupling,
        linearised.constraint_jacobian,
        linearised.multiplier_jacobian,
    )


@dataclass(frozen=True)
class PointPattern:
    """Where the point terms' entries go in the COO pattern of a solve (fixed during it).

    Attributes:
        indices: (rows, cols) of K, G, C and D as the linearisation gives them.
        keep: Per block, the entries this rank writes.
        rows: Rows of the kept entries in the constrained system, then the multiplier diagonal.
        cols: Their columns.
    """

    indices: tuple[tuple[IntArray, IntArray], ...]
    keep: tuple[BoolArray, ...]
    rows: IntArray
    cols: IntArray

    def matches(self, linearised: PointLinearisation) -> bool:
        """Whether ``linearised`` has the entries of this pattern."""
        return all(
            np.array_equal(rows, block[0]) and np.array_equal(cols, block[1])
            for (rows, cols), block in zip(self.indices, _blocks(linearised), strict=True)
        )

    def same_places(self, other: "PointPattern | None") -> bool:
        """Whether ``other`` puts its entries in the same places of the system."""
        return (
            other is not None
            and np.array_equal(self.rows, other.rows)
            and np.array_equal(self.cols, other.cols)
        )

    def values(self, linearised: PointLinearisation) -> FloatArray:
        """The values of ``linearised`` in the order of :attr:`rows` (zeros on the diagonal)."""
        kept = [block[2][keep] for block, keep in zip(_blocks(linearised), self.keep, strict=True)]
        diagonal = len(self.rows) - sum(len(v) for v in kept)
        return np.concatenate([*kept, np.zeros(diagonal)])


@dataclass(frozen=True)
class BorderedNumbering:
    """This rank's view of the constrained system's numbering for m multipliers.

    Attributes:
        owned_start: Global index of this rank's first rod dof (rod numbering).
        owned_size: Number of rod dofs this rank owns.
        rank0_dofs: Number of rod dofs rank 0 owns (the multipliers follow them).
        multipliers: m, the number of multipliers.
        dirichlet: Global rod dofs with Dirichlet conditions (all ranks'), sorted.
        on_rank0: Whether this rank is rank 0 (it owns the multipliers and writes C and D).
    """

    owned_start: int
    owned_size: int
    rank0_dofs: int
    multipliers: int
    dirichlet: IntArray
    on_rank0: bool

    def extended(self, rod_dofs: IntArray) -> IntArray:
        """Global index in the constrained system of rod dofs (global rod numbering)."""
        return rod_dofs + self.multipliers * (rod_dofs >= self.rank0_dofs)

    def multiplier(self, index: IntArray) -> IntArray:
        """Global index in the constrained system of multipliers."""
        return index + self.rank0_dofs

    def owned(self, rod_dofs: IntArray) -> BoolArray:
        """Which of the rod dofs (global rod numbering) this rank owns."""
        return (rod_dofs >= self.owned_start) & (rod_dofs < self.owned_start + self.owned_size)

    def free_owned(self, rod_dofs: IntArray) -> BoolArray:
        """Which of the rod dofs this rank owns and are free of Dirichlet conditions."""
        return self.owned(rod_dofs) & ~np.isin(rod_dofs, self.dirichlet)

    def pattern(self, linearised: PointLinearisation) -> PointPattern:
        """The place of the point terms' entries in the constrained Jacobian (this rank's rows).

        K is kept on free rows and columns (Dirichlet rows are the rod's), G on free rows;
        rank 0 writes C and D, and explicit zeros on the multiplier block's diagonal, so every
        row has a pivot candidate in the pattern (MUMPS pivots off the diagonal where it must).
        """
        stiffness, coupling, jacobian, multiplier = _blocks(linearised)
        keep = (
            self.free_owned(stiffness[0]) & ~np.isin(stiffness[1], self.dirichlet),
            self.free_owned(coupling[0]),
            np.full(len(jacobian[0]), self.on_rank0),
            np.full(len(multiplier[0]), self.on_rank0),
        )
        diagonal = self.multiplier(np.arange(self.multipliers if self.on_rank0 else 0))
        rows = np.concatenate(
            [
                self.extended(stiffness[0][keep[0]]),
                self.extended(coupling[0][keep[1]]),
                self.multiplier(jacobian[0][keep[2]]),
                self.multiplier(multiplier[0][keep[3]]),
                diagonal,
            ]
        )
        cols = np.concatenate(
            [
                self.extended(stiffness[1][keep[0]]),
                self.multiplier(coupling[1][keep[1]]),
                self.extended(jacobian[1][keep[2]]),
                self.multiplier(multiplier[1][keep[3]]),
                diagonal,
            ]
        )
        indices = tuple((block[0].copy(), block[1].copy()) for block in _blocks(linearised))
        return PointPattern(indices, keep, rows, cols)
