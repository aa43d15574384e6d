"""The global numbering of a blocked (rod, solid) system and gathering of nodal values.

DOLFINx's blocked PETSc objects (``kind="mpi"``) number the unknowns rank by rank: rank p owns
the rows [o_p, o_p + Σ_f n_f,p), the owned dofs of field 0, then those of field 1, ... (n_f,p
the owned size of field f on rank p, bs included). :class:`BlockLayout` maps a field's global
dof number to that row; :func:`gather_block_values` brings the values of given global dofs of
a Function to every rank.
"""

from collections.abc import Sequence

import dolfinx.fem
import numpy as np
import numpy.typing as npt

__all__ = ["BlockLayout", "gather_block_values"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class BlockLayout:
    """Rows of the blocked system for the fields' global dof numbers.

    Args:
        spaces: The fields' function spaces, in block order.
    """

    def __init__(self, spaces: Sequence[dolfinx.fem.FunctionSpace]):
        comm = spaces[0].mesh.comm
        self._bs = [V.dofmap.index_map_bs for V in spaces]
        owned = np.array(
            comm.allgather([V.dofmap.index_map.size_local * V.dofmap.index_map_bs for V in spaces])
        )  # (ranks, fields)
        starts = np.array(comm.allgather([V.dofmap.index_map.local_range[0] for V in spaces]))
        rank_offset = np.concatenate([[0], np.cumsum(owned.sum(axis=1))[:-1]])
        field_offset = np.cumsum(owned, axis=1) - owned  # within a rank
        self._starts = starts  # (ranks, fields), in blocks
        self._offset = rank_offset[:, None] + field_offset  # (ranks, fields)
        self._rank = comm.rank
        self.local_range = (
            int(self._offset[comm.rank, 0]),
            int(rank_offset[comm.rank] + owned[comm.rank].sum()),
        )
        """This rank's rows [start, end)."""

    def rows(self, field: int, blocks: IntArray) -> IntArray:
        """The rows of global block dofs ``blocks`` of ``field``, shape blocks.shape + (bs,)."""
        blocks = np.asarray(blocks, dtype=np.int64)
        starts = self._starts[:, field]
        owner = np.searchsorted(starts, blocks, side="right") - 1
        bs = self._bs[field]
        first = self._offset[owner, field] + (blocks - starts[owner]) * bs
        return first[..., None] + np.arange(bs)


def gather_block_values(function: dolfinx.fem.Function, blocks: IntArray) -> FloatArray:
    """Values of ``function`` at global block dofs ``blocks`` (sorted, unique), on every rank.

    Each rank sends the values of the dofs it owns; the ranks' ranges increase with the rank,
    so the gathered values come in the order of ``blocks``.

    Returns:
        (len(blocks), bs) values.
    """
    space = function.function_space
    index_map = space.dofmap.index_map
    bs = space.dofmap.index_map_bs
    start, end = index_map.local_range
    mine = blocks[(blocks >= start) & (blocks < end)] - start
    values = function.x.array.reshape(-1, bs)[mine]
    return np.concatenate(space.mesh.comm.allgather(values)).reshape(-1, bs)
