"""The parallel constrained Jacobian through PETSc's COO interface.

On several ranks the constrained Newton matrix [[J + K, G], [C, D]] of
:mod:`fe_rodcontact.solvers.constrained` is a PETSc AIJ matrix preallocated from coordinate
lists: the rod Jacobian's entries, read once per layout from the rod matrix that DOLFINx
assembles and moved to their places in the constrained numbering
(:class:`~fe_rodcontact.solvers.bordered_numbering.BorderedNumbering`), followed by the point
terms' entries. Every Newton iteration writes the rod values and the point values in that order
(``MatSetValuesCOO``); a new pattern of the point terms builds a new matrix (a factorisation
keeps data of the pattern it was built on). Serially
:class:`~fe_rodcontact.solvers.ordered_matrix.OrderedMatrix` does the same without sorting.
"""

from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import numpy.typing as npt

from fe_rodcontact.solvers.bordered_numbering import BorderedNumbering, PointPattern

__all__ = ["CooMatrix"]

FloatArray = npt.NDArray[np.float64]


class CooMatrix:
    """The constrained matrix from the rod matrix's entries and the point terms', on any ranks.

    Args:
        rod_matrix: The rod Jacobian as DOLFINx assembles it (its pattern is read here).
        numbering: The constrained system's numbering of this layout.
        owned_rows: The rod's owned rows on this rank.
    """

    def __init__(self, rod_matrix: PETSc.Mat, numbering: BorderedNumbering, owned_rows: int):
        indptr, columns, _ = rod_matrix.getValuesCSR()
        rows = np.repeat(
            np.arange(owned_rows, dtype=np.int64) + numbering.owned_start, np.diff(indptr)
        )
        self._rows = numbering.extended(rows)
        self._columns = numbering.extended(columns.astype(np.int64))
        self._values = np.zeros(0)

    def matrix(
        self, comm: MPI.Comm, sizes: tuple[tuple[int, int], tuple[int, int]], contact: PointPattern
    ) -> PETSc.Mat:
        """A new matrix of the rod entries and ``contact``'s, preallocated through COO.

        Args:
            comm: The communicator.
            sizes: The matrix's (local, global) sizes.
            contact: The point terms' pattern.
        """
        rows = np.concatenate([self._rows, contact.rows])
        cols = np.concatenate([self._columns, contact.cols])
        self._values = np.zeros(len(rows))
        A = PETSc.Mat().create(comm=comm)
        A.setSizes(sizes)
        A.setType("aij")
        A.setPreallocationCOO(rows.astype(PETSc.IntType), cols.astype(PETSc.IntType))
        return A

    def fill(self, A: PETSc.Mat, rod_matrix: PETSc.Mat, point_values: FloatArray) -> None:
        """Write the assembled rod matrix's values and the point terms' values into ``A``."""
        rod_entries = len(self._columns)
        _, columns, rod_values = rod_matrix.getValuesCSR()
        assert len(columns) == rod_entries
        self._values[:rod_entries] = rod_values
        self._values[rod_entries:] = point_values
        A.setValuesCOO(self._values, addv=PETSc.InsertMode.INSERT_VALUES)
        A.assemble()
