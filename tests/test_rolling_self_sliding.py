"""Rolling self-contact that slides: a twisted two-strand loop with friction outside the cone.

The loop of tests/test_rolling_self_contact.py (67 node contacts along the strands) with a
standing wave of 0.03 m/s across the strands and ``slide_outside_cone`` (μ = 0.3): the strands
barely press on each other, so many contacts leave the cone and slide under regularised Coulomb
friction (42 % of the contact-steps), inside the cone. The balance kinetic + elastic + friction
losses is conserved to round-off (measured 8e-15 of the kinetic energy; tolerance 1e-12), the
friction losses never decrease beyond round-off (a step's loss is ≥ -1.2e-16 J; the strands
press so little that the losses are 7e-9 J in 10 ms), and every step keeps its first size.

The regularisation sets how far this runs: with ε_v = 1e-2 m/s (here) the loop runs 20 steps
of 1 ms without a cut (7.75 Newton iterations a step); with ε_v = 1e-3, 1e-4 and the default
1e-6 m/s a step at t = 0.0185, 0.0168 and 0.0123 s does not converge at any step size down to
1e-6 s (SNES at its iteration limit), with the energy balance still at round-off up to there
(docs/rolling.md, Limits).
"""

import numpy as np

from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.rods.curves import plectoneme_vertices, polyline
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping


def test_a_twisted_loop_slides_on_itself_with_friction(comm):
    radius, speed = 0.1, 0.03
    vertices, height = plectoneme_vertices(rho=0.101137)
    rods = create_rod_mesh(comm, [polyline(vertices, closed=True, name="loop")])
    rod = CosseratRod(rods, Section.circular(radius=radius, E=1e6, nu=0.3, density=1000.0))
    rolling = RollingContact(
        touch_tolerance=1e-3,
        friction_coefficient=0.3,
        slide_outside_cone=True,
        slip_regularization=1e-2,
    )
    scene = ContactScene(rod, margin=0.02)
    scene.add("self", rolling)
    problem = DynamicProblem(rod, petsc_options_prefix="sliding_loop_", contact=scene)
    problem.set_initial_velocity(
        lambda x: np.vstack([speed * np.sin(2 * np.pi * x[2] / height), 0 * x[0], 0 * x[0]])
    )
    problem.solve(0.01, TimeStepping(dt=1e-3))
    series = problem.series.arrays()
    assert problem.steps == 10  # no step cut
    assert set(series["rolling_contacts"][1:]) == {67}
    losses = series["friction_energy_loss"]
    assert losses[-1] > 0 and np.all(np.diff(losses) >= -1e-12 * series["kinetic_energy"][0])
    balance = series["total_energy"] + losses
    assert np.max(np.abs(balance - balance[0])) <= 1e-12 * series["kinetic_energy"][0]
    sliding = [r for r in rolling.records if r["sliding"]]
    assert len(sliding) > len(rolling.records) / 3  # measured 42 % of the contact-steps
    for record in sliding:  # regularised Coulomb: inside the cone
        assert record["tangential_force"] <= 0.3 * abs(record["normal_force"]) * (1 + 1e-9)
