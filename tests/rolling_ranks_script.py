"""Crossing rods in rolling contact on any number of ranks (cells dealt round-robin, so the
two sides of the contact and the stencils of each point are split over ranks), to an npz.

Run by ``tests/test_rolling.py`` serially and with ``mpiexec -n 2`` and ``-n 3``.
"""

import sys

from mpi4py import MPI

import numpy as np

import fe_rodcontact as fr
from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

comm = MPI.COMM_WORLD
R = 0.05
section = Section(
    EA=1e3,
    GA1=1e3,
    GA2=1e3,
    EI1=1,
    EI2=1,
    GJ=1,
    rhoA=1,
    rhoI1=1e-3,
    rhoI2=1e-3,
    rhoJ=2e-3,
    radius=R,
)
curves = [fr.straight((-1, 0, 0), (1, 0, 0)), fr.straight((0.1, -1, 2 * R), (0.1, 1, 2 * R))]
ranks = np.arange(16) % comm.size if comm.size > 1 else None
rods = fr.create_rod_mesh(comm, curves, elements=8, cell_ranks=ranks)
rod = fr.CosseratRod(rods, section)
rolling = RollingContact()
scene = ContactScene(rod)
scene.add("rods", rolling)
problem = DynamicProblem(rod, petsc_options_prefix="ranks_", contact=scene)


def velocity(x):
    top = x[2] > R
    return np.vstack([np.where(top, 0.6, -0.2), np.where(top, 0.05, 0.0), 0 * x[0]])


def spin(x):
    top = x[2] > R
    return np.vstack([np.where(top, 0.5, 0.0), np.where(top, 0.0, 1.0), 0 * x[0]])


problem.set_initial_velocity(velocity, spin)
problem.solve(0.1, TimeStepping(dt=0.01))
displacement = rod.gather_nodal(rod.displacement)
paths = np.array(
    [[r["s_a"], r["s_b"], r["force_x"], r["force_y"], r["force_z"]] for r in rolling.records]
)
if comm.rank == 0:
    np.savez(sys.argv[1], displacement=displacement, paths=paths)
