"""The contact search in the dynamics time loop: contacts and the smallest gap per step.

A free rod translates towards a rigid plane and a second, fixed-in-space crossing rod; the
contact forces are not modelled here (detection only), so the motion is a rigid translation,
which the energy–momentum scheme integrates exactly: the recorded gaps must be g₀ − v t to
round-off (1e-12), contacts appear at the step where g ≤ margin, and the contact points are
written as a ParaView series with one frame per step.
"""

import meshio
import numpy as np

from fe_rodcontact.contact import ContactScene, Plane
from fe_rodcontact.io.contact_points import ContactPointWriter
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

SECTION = Section(
    EA=1e4, GA1=1e4, GA2=1e4, EI1=50, EI2=50, GJ=50, rhoA=1, rhoI1=1, rhoI2=1, rhoJ=2, radius=0.1
)


def test_contact_series_in_dynamics(comm, shared_tmp):
    speed, lift, margin, dt = 0.5, 0.35, 0.1, 0.1
    rods = create_rod_mesh(comm, [straight((0, 0, lift + 0.1), (2, 0, lift + 0.1))], elements=6)
    rod = CosseratRod(rods, SECTION)
    scene = ContactScene(
        rod, margin=margin, output=ContactPointWriter(shared_tmp / "contacts", comm)
    )
    scene.add(Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor"))  # searched, no forces
    problem = DynamicProblem(rod, petsc_options_prefix="contact_dyn_", contact=scene)
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], -speed + 0 * x[0]]))
    problem.solve(0.8, TimeStepping(dt=dt))
    series = problem.series.arrays()
    t = series["t"]
    gap = lift - speed * t
    in_contact = gap <= margin + 1e-12
    assert np.array_equal(series["contacts"] > 0, in_contact)
    assert np.allclose(series["min_gap"][in_contact], gap[in_contact], atol=1e-12, rtol=0)
    assert np.all(np.isinf(series["min_gap"][~in_contact]))
    # A flat rod on a plane is a line contact: 2 Gauss points per element, all new at once.
    first = int(np.argmax(in_contact))
    assert series["contacts"][first] == 12 and series["contacts_new"][first] == 12
    assert np.all(series["contacts_new"][first + 1 :] == 0)
    comm.barrier()
    index = (shared_tmp / "contacts" / "contacts.pvd").read_text()
    assert index.count("<DataSet") == len(t)
    last = meshio.read(shared_tmp / "contacts" / f"contacts_{len(t) - 1:06d}.vtu")
    assert np.allclose(last.point_data["gap"], gap[-1], atol=1e-12)
    assert np.allclose(last.points[:, 2], 0.0, atol=1e-12)  # contact points on the floor
