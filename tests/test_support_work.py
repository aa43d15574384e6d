"""The work of prescribed end motions is part of the external work.

A rod clamped at a start that is shaken sideways gains energy from the support; the series'
total energy K + V − W (W = load and support work) stays constant for the energy-momentum
scheme to the Newton tolerance, and the support work is not zero.
"""

import numpy as np

from fe_rodcontact import CosseratRod, Section, Support, create_rod_mesh, straight
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping


def test_shaken_clamp_work_closes_the_energy_balance(comm):
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=8)
    section = Section(EA=1e3, GA1=1e3, GA2=1e3, EI1=1.0, EI2=1.0, GJ=1.0,
                      rhoA=1.0, rhoI1=0.01, rhoI2=0.01, rhoJ=0.02)  # fmt: skip
    rod = CosseratRod(rods, section)
    shake = Support.clamped(
        0, "start", displacement_history=lambda t: (0.0, 0.05 * np.sin(8.0 * t), 0.0)
    )
    problem = DynamicProblem(rod, [shake], petsc_options_prefix="shake_")
    problem.solve(0.5, TimeStepping(dt=0.01))
    series = problem.series.arrays()
    energy = series["kinetic_energy"] + series["elastic_energy"]
    assert energy[-1] > 1e-4  # the shaking put energy in
    assert np.max(np.abs(series["external_work"] - energy)) < 1e-8 * np.max(energy)
