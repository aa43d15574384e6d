"""An order of elimination in which PETSc's LU, which does not pivot, factors a saddle point.

The constrained Newton system [[J + K, G], [C, D]] of :mod:`fe_rodcontact.solvers.constrained` has a
zero multiplier block, so an LU without pivoting must never eliminate a multiplier before the
rod dofs it couples. With the rod block positive definite (the mass term of a time step; a
stable statics state), every leading block of an order that puts each multiplier after all
the rod dofs its row and column couple is [[K_E, G_Eᵀ], [G_E, 0]] with the rows of G_E
independent on E: nonsingular, so every pivot is nonzero. The order also keeps the fill
small (docs/rolling.md, "An order of elimination for PETSc's LU"):

1. the rod dofs in reverse Cuthill–McKee order of the rod block (a band per rod, no fill);
2. the rods sorted by the number of multipliers they couple, the most coupled last, each
   eliminated from its ends towards its contacts (:func:`rods_by_contacts`);
3. each multiplier right after the last rod dof it couples (:func:`elimination_positions`).
"""

from petsc4py import PETSc

import numpy as np
import numpy.typing as npt

__all__ = ["EliminationOrder", "elimination_positions", "rod_blocks", "rods_by_contacts"]

IntArray = npt.NDArray[np.int64]


class EliminationOrder:
    """The order of elimination of a rod matrix with point terms (serial).

    Args:
        rod_matrix: The rod block (its pattern; reverse Cuthill–McKee order computed here).
        rows: Rows of its entries.
        cols: Their columns.
    """

    def __init__(self, rod_matrix: PETSc.Mat, rows: IntArray, cols: IntArray):
        order, same = rod_matrix.getOrdering(PETSc.Mat.OrderingType.RCM)  # rows, columns
        n = rod_matrix.getSize()[0]
        self._rank = np.empty(n, np.int64)
        self._rank[order.getIndices()] = np.arange(n)
        order.destroy()
        same.destroy()
        self._runs = rod_blocks(self._rank, rows, cols)

    def positions(self, rows: IntArray, cols: IntArray, num_multipliers: int) -> IntArray:
        """The place of every unknown (rod dofs, then multipliers) for these point terms.

        Args:
            rows: Rows of the point terms' entries (rod dofs 0 … n − 1, multipliers from n on).
            cols: Their columns.
            num_multipliers: m.
        """
        rank = rods_by_contacts(self._rank, self._runs, rows, cols)
        return elimination_positions(rank, rows, cols, num_multipliers)


def rod_blocks(rod_rank: IntArray, rows: IntArray, cols: IntArray) -> IntArray:
    """The separate rods in a fill-reducing order of the rod block, as runs of places.

    Reverse Cuthill–McKee (like nested dissection) orders each connected part of the graph (a
    rod) in one run of places, so the runs are the places between cuts that no entry spans.

    Args:
        rod_rank: Place of each rod dof in the order.
        rows: Rows of the rod block's entries.
        cols: Their columns.

    Returns:
        The run (0, 1, …) of each place.
    """
    n = len(rod_rank)
    low = np.minimum(rod_rank[rows], rod_rank[cols])
    high = np.maximum(rod_rank[rows], rod_rank[cols])
    # entries spanning the cut after place p: those with low ≤ p < high
    spanning = np.cumsum(np.bincount(low, minlength=n + 1) - np.bincount(high, minlength=n + 1))
    return np.concatenate([[0], np.cumsum(spanning[: n - 1] == 0)]).astype(np.int64)


def rods_by_contacts(
    rod_rank: IntArray, block: IntArray, rows: IntArray, cols: IntArray
) -> IntArray:
    """A rod order in which the contacts' dofs are eliminated last, and their rods last.

    Two things keep the multipliers from filling the factors in:

    - A rod eliminated before its contact partners leaves all the multipliers it couples
      joined to its last dofs: they fill in as one dense block. So the runs (rods) are sorted
      by the number of multipliers they couple, the most coupled last (the longer run last
      where the numbers are equal); a multiplier then goes right after the few dofs of its
      last rod (:func:`elimination_positions`). Rods tied to each other in loops (several
      contacts between the same two rods) still fill in along the loops, as in any order.
    - A banded elimination that passes a contact before the other rod is eliminated carries
      the coupling to that rod along its front. So each run is eliminated from both of its
      ends towards its contacts (its places before the first contact's dofs in their order,
      those after the last one in reverse), then from its first contact to its last.

    Args:
        rod_rank: Place of each rod dof in a banded order of the rod block.
        block: The run of each place (:func:`rod_blocks`).
        rows: Rows of the point terms' entries (stacked numbering, multipliers from n on).
        cols: Their columns.

    Returns:
        The new place of each rod dof.
    """
    n = len(rod_rank)
    if n == 0:
        return rod_rank
    num_blocks = int(block[-1]) + 1
    coupling = (rows < n) != (cols < n)
    places = rod_rank[np.where(rows < n, rows, cols)[coupling]]
    multipliers = np.where(rows < n, cols, rows)[coupling]
    pairs = np.unique(multipliers * num_blocks + block[places])
    load = np.bincount(pairs % num_blocks, minlength=num_blocks)
    lengths = np.bincount(block, minlength=num_blocks)
    position = np.empty(num_blocks, np.int64)
    position[np.lexsort((lengths, load))] = np.arange(num_blocks)
    first = np.full(num_blocks, n, np.int64)
    last = np.full(num_blocks, -1, np.int64)
    np.minimum.at(first, block[places], places)
    np.maximum.at(last, block[places], places)
    all_places = np.arange(n)
    head = all_places < first[block]
    tail = all_places > last[block]
    within = np.where(head, all_places, np.where(tail, 2 * n - all_places, 2 * n + 1 + all_places))
    key = position[block] * (3 * n + 2) + within
    new_place = np.empty(n, np.int64)
    new_place[np.argsort(key)] = all_places
    return new_place[rod_rank]


def elimination_positions(
    rod_rank: IntArray, rows: IntArray, cols: IntArray, num_multipliers: int
) -> IntArray:
    """Positions of the unknowns in an order of elimination for PETSc's LU (no pivoting).

    Args:
        rod_rank: Place of each rod dof in a fill-reducing order of the rod block (n entries).
        rows: Rows of the point terms' entries in the stacked numbering (rod dofs 0 … n − 1,
            multipliers n … n + m − 1).
        cols: Their columns.
        num_multipliers: m.

    Returns:
        For each unknown of the stacked numbering, its index in the order: the rod dofs keep
        their order, and each multiplier follows the last (in that order) of the rod dofs its
        row and column couple; multipliers with no rod dof (an empty row: singular) go last.
    """
    n = len(rod_rank)
    last = np.full(num_multipliers, -1, np.int64)
    in_row = (rows >= n) & (cols < n)
    np.maximum.at(last, rows[in_row] - n, rod_rank[cols[in_row]])
    in_column = (rows < n) & (cols >= n)
    np.maximum.at(last, cols[in_column] - n, rod_rank[rows[in_column]])
    last[last < 0] = n
    # Rod dof k sorts at 2k, a multiplier after its last dof k at 2k + 1; a stable sort keeps
    # the multipliers of one contact together, in their order.
    keys = np.concatenate([2 * rod_rank, 2 * last + 1])
    order = np.argsort(keys, kind="stable")
    positions = np.empty_like(order)
    positions[order] = np.arange(len(order))
    return positions
