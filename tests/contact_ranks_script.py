"""Contact set of a fixed scene on any number of ranks (cells dealt round-robin), to an npz.

Run by ``tests/test_contact_search.py`` with ``mpiexec -n 3`` and serially.
"""

import sys

from mpi4py import MPI

import numpy as np
from test_contact_geometry import vector_function
from test_contact_search import contact_key, gathered

import fe_rodcontact as fr
from fe_rodcontact.contact import ContactSearch
from fe_rodcontact.rods.curves import figure_eight_vertices

comm = MPI.COMM_WORLD
curves = [
    fr.straight((-1, 0.1, 0), (1, 0.1, 0), name="a"),
    fr.straight((0.3 - 0.77, -0.64, 0.25), (0.3 + 0.77, 0.64, 0.25), name="b"),
    fr.polyline(figure_eight_vertices(48), closed=True, name="eight"),
    fr.straight((-1, 0.31, 0), (1, 0.31, 0), name="parallel"),
]
elements = [13, 17, None, 11]
total = 13 + 17 + 48 + 11
ranks = np.arange(total) % comm.size if comm.size > 1 else None
rods = fr.create_rod_mesh(comm, curves, elements=elements, degree=1, cell_ranks=ranks)
found = ContactSearch(rods, vector_function(rods), [0.1] * 4, margin=0.06).find()
if comm.rank == 0:
    np.savez(sys.argv[1], count=len(found), key=contact_key(found), values=gathered(found))
