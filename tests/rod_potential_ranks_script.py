"""Run the damped, frictional rod–rod bounce on the ranks it is started with; save the series.

Used by ``tests/test_rod_potential.py::test_one_and_two_ranks_agree`` (1 and 2 ranks; on 2 the
cells alternate between the ranks so that every contact stencil spans both).
"""

import sys

from mpi4py import MPI

import numpy as np
from test_rod_potential import REPULSIVE, bounce

from fe_rodcontact.contact import CoulombFrictionLaw, DampingLaw

comm = MPI.COMM_WORLD
elements = 8
cell_ranks = np.arange(2 * elements) % comm.size if comm.size > 1 else None
problem, contact = bounce(
    comm,
    REPULSIVE,
    damping=DampingLaw(coefficient=1e-17, exponent=8.0),
    friction=CoulombFrictionLaw(friction_coefficient=0.3, regularization_velocity=0.05),
    elements=elements,
    cell_ranks=cell_ranks,
)
series = problem.series.arrays()
keys = (
    "kinetic_energy",
    "elastic_energy",
    "contact_energy",
    "dissipated_energy",
    "rod_min_gap",
    "linear_momentum",
    "angular_momentum",
)
if comm.rank == 0:
    np.savez(sys.argv[1], **{k: np.asarray(series[k]) for k in keys})
