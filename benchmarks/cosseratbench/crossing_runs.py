"""The crossing experiment: two pinned ropes, the upper one coming down onto the lower one.

Quasi-static: solved as a static equilibrium with frictionless rod–rod potential contact (a
linear penalty on the least distance between the ropes' P1 centrelines, `RodRodPotential`).
The ropes start as published, each in the elastica shape that holds them a centimetre further
apart than they end: the shape of each rope under its weight and a force P₀ at its middle
that pushes the ropes apart. The static path keeps the weight on and takes that force off,
(1 − λ) P₀, so the upper rope comes down onto the lower one as λ goes from 0 to 1 and the
contact engages within a load step (a single Newton step from the start would carry the upper
rope through the lower one before any contact force acts). P₀ acts at the node nearest each
middle (there is no node at the middle with an odd number of elements); at λ = 1 it is gone,
and the equilibrium does not depend on the path. The trajectory is the start and then that
equilibrium at every later frame: no motion is computed, so no settling residual is reported.
"""

from __future__ import annotations

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import ufl
from crossing_reference import CROSSING, crossing_shapes, mid_height
from frames import Recorder
from metrics import max_distance_to_curve, max_strain
from placement import RodShape, build_rods, circular_section
from statics_runs import NEWTON, Outcome

from fe_rodcontact import CosseratRod, Gravity, LoadStepping, PointForce, StaticProblem, Support
from fe_rodcontact.contact import ContactScene, LinearPenaltyLaw, RodRodPotential

__all__ = ["run_crossing"]

PENALTY = 1e6
"""N/m of overlap: the contact force (0.27 N) then overlaps the ropes by 2.7e-7 m, 3e-6 of the
lift the metric divides by."""


ATOL = 1e-9
"""N: Newton's absolute tolerance. The penalty's round-off, ε ε_mach |x| ≈ 1e6 · 1e-16 · 0.4, puts
a floor near 1e-10 N under the residual once the ropes touch (the default 1e-12 N stalls)."""


def _spin_stops(rod: CosseratRod, shapes: list[RodShape], stiffness: float) -> ufl.Form:
    """Torsion springs k (θ·t)(δθ·t) at each rope's first pin, on the step's rotation about
    the rope's end tangent t.

    A rope pinned at both ends with an isotropic section can turn all its sections about their
    own tangents at no cost (its strains and curvature norms do not change), so the static
    tangent is singular there. No load drives that mode, so the converged step leaves it at
    zero and the springs carry no moment: they only take the singular direction out of Newton.
    """
    theta = ufl.as_vector([rod.state[i] for i in range(3, 6)])
    test = ufl.as_vector([rod.test_function[i] for i in range(3, 6)])
    form = None
    for i, shape in enumerate(shapes):
        _, tangent = shape.at(np.array([0.0]))
        t = ufl.as_vector([float(v) for v in tangent[0]])
        term = stiffness * ufl.dot(theta, t) * ufl.dot(test, t) * rod.point_measure(i, 0.0)
        form = term if form is None else form + term
    return form


def run_crossing(
    elements: int, comm: MPI.Comm, *, drop: float = 0.1, youngs_modulus: float = 1e6
) -> Outcome:
    """The upper rope resting on the lower one, against the elastica with one contact force."""
    c = CROSSING
    section = circular_section(c["radius"], youngs_modulus, youngs_modulus / 3.0, c["density"])
    # The references are scipy solves; rank 0 computes them and the other ranks receive them.
    start, final = comm.bcast(
        (
            # the start only sets the path: shapes to 1e-6 (the reference's to 1e-8)
            crossing_shapes(youngs_modulus, drop, 2 * c["radius"] + c["clearance"], 1e-6),
            (
                *crossing_shapes(youngs_modulus, drop, 2 * c["radius"]),
                mid_height(youngs_modulus, 0.0),
            ),
        )
        if comm.rank == 0
        else None
    )
    apart, arc, lower, upper = start
    keep = np.linspace(0, len(arc) - 1, 401).round().astype(int)
    shapes = [
        RodShape(lower[keep], arc[keep], (0.0, 1.0, 0.0)),
        RodShape(upper[keep], arc[keep], (1.0, 0.0, 0.0)),
    ]
    rod = build_rods(shapes, [section, section], elements, comm)
    scene = ContactScene(rod, margin=0.02, centreline="basis")
    contact = RodRodPotential(LinearPenaltyLaw(penalty=PENALTY))
    scene.add(("rod0", "rod1"), contact)
    supports = [Support.pinned(i, end) for i in (0, 1) for end in ("start", "end")]
    if elements % 2 == 0:
        raise SystemExit(
            f"--elements {elements}: give an odd count, so that no node lies at the crossing"
        )
    # The separating force, half at each end of the middle element, keeps that element straight:
    # the ropes then meet inside it rather than at a kinked node.
    sides = [(elements // 2 + k) / elements * c["length"] for k in (0, 1)]
    held = [Gravity((0.0, 0.0, -c["gravity"]))]
    released = []
    for x in sides:
        held += [PointForce(0, x, (0, 0, -apart / 2)), PointForce(1, x, (0, 0, apart / 2))]
        released += [PointForce(0, x, (0, 0, apart / 2)), PointForce(1, x, (0, 0, -apart / 2))]
    one = dolfinx.fem.Constant(rod.mesh, 1.0)
    constant = -sum(
        (load.virtual_work(rod, one) for load in held[1:]), held[0].virtual_work(rod, one)
    )
    constant = constant + _spin_stops(rod, shapes, section.GJ * elements / c["length"])
    problem = StaticProblem(
        rod,
        supports,
        released,
        extra_residual=constant,
        petsc_options_prefix="crossing_",
        petsc_options={**NEWTON, "snes_atol": ATOL},
        check_rigid_motions=False,  # pinned ropes may swing about their pins' line
        contact=scene,
    )
    recorder = Recorder(rod)
    recorder.record(0.0)
    # The gap closes by λ ≈ 0.04 (the upper rope moving about 0.24 m per unit λ until then):
    # first steps of 0.02 keep a step's motion well below a diameter, so the contact engages
    # before the ropes could pass through each other; then the steps grow.
    problem.solve(LoadStepping(initial_step=0.02, max_step=0.25))
    for t in np.linspace(0.0, c["duration"], 101)[1:]:
        recorder.record(float(t))
    trajectory = recorder.trajectory()

    force, _, ref_lower, ref_upper, free = final
    final = [x[-1] for x in trajectory.positions]
    reference = float(ref_upper[len(ref_upper) // 2, 2]) + drop
    measured = float(final[1][len(final[1]) // 2, 2]) + drop
    forces = contact.contact_forces()["normal_force"]
    metrics = {
        "shape_error": max(
            max_distance_to_curve(x, curve) / c["length"]
            for x, curve in zip(final, (ref_lower, ref_upper), strict=True)
        ),
        "lift_error": abs(measured - reference) / abs(reference - free),
    }
    observations = {
        "contact_force": float(np.sum(forces)),
        "reference_contact_force": force,
        "contacts": len(forces),
        "max_strain": max_strain(trajectory, [np.linspace(0, c["length"], elements + 1)] * 2),
    }
    options = {"method": "statics", "degree": 1, "contact": "rod-rod potential, linear penalty",
               "penalty": PENALTY, **NEWTON, "snes_atol": ATOL}  # fmt: skip
    return Outcome(trajectory, metrics, observations, options)
