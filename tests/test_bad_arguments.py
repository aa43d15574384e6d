"""Bad arguments of the contact API fail where the object is built, with one InputError line.

The Python half of the bad-input suite (tests/test_bad_inputs.py runs the command line): every
argument of ContactScene, RollingContact, ObstaclePotential, RodRodPotential, Plane, Cylinder,
ContactSearch and the contact laws, with a wrong type or value, and the wrong combinations
(a model on two scenes, a scene on another problem's rods). Each must raise
:class:`~fe_rodcontact.errors.InputError` on every rank, naming the argument, when the object
is built or at the latest when the problem takes the scene: never an AttributeError, a
TypeError or a PETSc error in a step. Everything is built, nothing is solved, so the table
runs in seconds, serially and under ``mpiexec -n 2``.
"""

from mpi4py import MPI

import pytest

from fe_rodcontact.contact import (
    AdhesiveLaw,
    ContactScene,
    ContactSearch,
    ContactTracker,
    CoulombFrictionLaw,
    Cylinder,
    DampingLaw,
    FrictionLaw,
    LinearPenaltyLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
    RodRodPotential,
    RollingContact,
    SmoothPenaltyLaw,
    get_law,
)
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem
from fe_rodcontact.stepping.statics import StaticProblem

SECTION = Section.circular(0.02, 1e7, nu=0.3, density=1000.0)
LAW = RepulsiveLaw(coefficient=1e-12, exponent=8)


def crossing_rods() -> CosseratRod:
    """Rods 'a' and 'b' crossing 0.1 apart (no contact at the margins used here)."""
    curves = [straight((0, 0, 0.1), (1, 0, 0.1), name="a"), straight((0.5, -0.5, 0.3), (0.5, 0.5, 0.3), name="b")]  # fmt: skip
    return CosseratRod(create_rod_mesh(MPI.COMM_WORLD, curves, elements=4), SECTION)


def scene(rod, target=None, model=None, **options) -> ContactScene:
    built = ContactScene(rod, **options)
    if target is not None:
        built.add(target, model)
    return built


def problem(rod, contact) -> DynamicProblem:
    return DynamicProblem(rod, petsc_options_prefix="bad_arguments_", contact=contact)


def add_twice(rod, first, second, model=None):
    built = scene(rod, first, model)
    built.add(second, model)


def two_scenes(rod):
    model = RollingContact()
    scene(rod, "rods", model)
    scene(rod, "self", model)


def two_problems(rod):
    built = scene(rod, "rods")
    problem(rod, built)
    problem(rod, built)


def add_after_attach(rod):
    built = scene(rod, "rods")
    problem(rod, built)
    built.add("self")


def statics_with_scene(rod):
    supports = [Support.clamped("a", "start"), Support.clamped("b", "start")]
    StaticProblem(
        rod,
        supports,
        [],
        petsc_options_prefix="bad_statics_",
        contact=scene(crossing_rods(), "rods"),
    )


BAD = [
    # ContactScene
    ("scene-rod", lambda rod: ContactScene(3), r"ContactScene takes the rods \(a CosseratRod\), got int"),
    ("scene-margin-text", lambda rod: ContactScene(rod, margin="a"), r"margin must be a number, got 'a'"),
    ("scene-margin-negative", lambda rod: ContactScene(rod, margin=-1.0), r"margin must be positive, got -1\.0; take a fraction"),
    ("scene-radii-count", lambda rod: ContactScene(rod, radii=[0.02]), r"radii must be 2 numbers, one per rod"),
    ("scene-radii-text", lambda rod: ContactScene(rod, radii="ab"), r"radii must be 2 numbers, one per rod, got 'ab'"),
    ("scene-radius-zero", lambda rod: ContactScene(rod, radii=[0.02, 0.0]), r"rod 'b' has contact radius 0\.0"),
    ("scene-centreline", lambda rod: ContactScene(rod, centreline=3), r"unknown centreline 3"),
    ("scene-line-points", lambda rod: ContactScene(rod, line_points=0), r"line_points must be a positive integer"),
    ("scene-output-every", lambda rod: ContactScene(rod, output_every=-1), r"output_every must be an integer >= 0"),
    ("scene-output", lambda rod: ContactScene(rod, output=3), r"output must be a ContactOutput \(e\.g\. ContactSeriesWriter\), got int"),
    ("scene-exclusion", lambda rod: problem(rod, scene(rod, "self", exclusion="x")), r"self-contact exclusion must be a number, got 'x'"),
    ("scene-line-angle", lambda rod: problem(rod, scene(rod, "rods", line_angle=float("nan"))), r"line_angle must be finite"),
    ("scene-flat-tolerance", lambda rod: problem(rod, scene(rod, "rods", flat_tolerance=-1.0)), r"flat_tolerance must be non-negative"),
    ("scene-skin", lambda rod: problem(rod, scene(rod, "rods", skin=-1.0)), r"contact search skin must be non-negative"),
    ("scene-no-target", lambda rod: problem(rod, scene(rod)), r"the contact scene has no target"),
    # targets and models given to ContactScene.add
    ("target-string", lambda rod: scene(rod, "floor", RollingContact()), r"'floor' is not a target: a target is an obstacle \(a Plane or Cylinder object\)"),
    ("target-one-rod", lambda rod: scene(rod, ("a",)), r"a pair of rods is a tuple of two rod names or indices, got \('a',\)"),
    ("target-three-rods", lambda rod: scene(rod, ("a", "b", "a")), r"a pair of rods is a tuple of two rod names"),
    ("target-unknown-rod", lambda rod: scene(rod, ("a", "c")), r"contact target \('a', 'c'\): unknown rod 'c'"),
    ("target-class", lambda rod: scene(rod, Plane, ObstaclePotential(LAW)), r"got the class Plane; give an instance, e\.g\. Plane\(\.\.\.\)"),
    ("target-number", lambda rod: scene(rod, 3.0), r"a target is an obstacle, a pair of rods .* got float"),
    ("model-class", lambda rod: scene(rod, Plane(), Plane), r"ContactScene\.add takes a contact model .* got the class Plane"),
    ("model-tracker", lambda rod: scene(rod, "rods", ContactTracker), r"ContactScene\.add takes a contact model .* got the class ContactTracker"),
    ("model-law", lambda rod: scene(rod, Plane(), LAW), r"ContactScene\.add takes a contact model .* got RepulsiveLaw"),
    ("model-kind", lambda rod: scene(rod, "rods", ObstaclePotential(LAW)), r"ObstaclePotential acts on obstacles; rods need another model"),
    ("target-twice", lambda rod: add_twice(rod, ("a", "b"), "rods"), r"rods 'a' and 'b' declared twice"),
    ("obstacle-twice", lambda rod: add_twice(rod, Plane(name="f"), Plane(name="f")), r"obstacle 'f' is the surface of obstacle 'f': its forces would count twice"),
    ("obstacle-same-surface", lambda rod: add_twice(rod, Plane(normal=(0, 0, 1)), Plane(point=(3, 1, 0), normal=(0, 0, 2), name="g")), r"obstacle 'g' is the surface of obstacle 'plane'"),
    ("cylinder-same-surface", lambda rod: add_twice(rod, Cylinder(radius=2), Cylinder(point=(0, 0, 5), axis=(0, 0, -1), radius=2, name="c")), r"obstacle 'c' is the surface of obstacle 'cylinder'"),
    ("obstacle-name-twice", lambda rod: add_twice(rod, Plane(name="f"), Plane(point=(0, 0, -1), name="f")), r"two obstacles are named 'f'"),
    ("model-two-scenes", two_scenes, r"this RollingContact is already in a contact scene"),
    # problems
    ("scene-two-problems", two_problems, r"this contact scene is already in a problem"),
    ("scene-add-after-problem", add_after_attach, r"contact targets must be added before the scene is given to a problem"),
    ("scene-other-rods", lambda rod: problem(crossing_rods(), scene(rod, "rods")), r"the contact scene was built on other rods than the problem's"),
    ("scene-other-rods-statics", statics_with_scene, r"the contact scene was built on other rods than the problem's"),
    ("contact-model", lambda rod: problem(rod, RollingContact()), r"contact must be a ContactScene, got RollingContact"),
    ("contact-list", lambda rod: problem(rod, [ObstaclePotential(LAW)]), r"contact must be a ContactScene, got list"),
    # RollingContact
    ("rolling-unilateral", lambda rod: RollingContact(unilateral="no"), r"unilateral must be True or False, got 'no'"),
    ("rolling-friction-coefficient", lambda rod: RollingContact(friction_coefficient=float("inf")), r"friction_coefficient must be finite"),
    ("rolling-friction-coefficient-text", lambda rod: RollingContact(friction_coefficient="a"), r"friction_coefficient must be a number"),
    ("rolling-slide-outside-cone", lambda rod: RollingContact(slide_outside_cone="yes"), r"slide_outside_cone must be True or False"),
    ("rolling-slide-without-cone", lambda rod: RollingContact(slide_outside_cone=True), r"slide_outside_cone needs a friction_coefficient"),
    ("rolling-impacts", lambda rod: RollingContact(impacts=3), r"unknown impacts treatment 3"),
    ("rolling-touch-tolerance", lambda rod: RollingContact(touch_tolerance=-1e-5), r"touch_tolerance must be non-negative, got -1e-05"),
    ("rolling-touch-tolerance-nan", lambda rod: RollingContact(touch_tolerance=float("nan")), r"touch_tolerance must be finite"),
    ("rolling-settle-tolerance", lambda rod: RollingContact(settle_tolerance=0.0), r"settle_tolerance must be positive"),
    ("rolling-slip-regularization", lambda rod: RollingContact(slip_regularization=-1.0), r"slip_regularization must be positive"),
    # ObstaclePotential
    ("obstacle-potential-law", lambda rod: ObstaclePotential("floor"), r"ObstaclePotential's law must be a conservative law .* got str"),
    ("obstacle-potential-damping", lambda rod: ObstaclePotential(LAW, damping=CoulombFrictionLaw(0.3, 1e-3)), r"ObstaclePotential's damping must be a DampingLaw, got CoulombFrictionLaw"),
    ("obstacle-potential-friction", lambda rod: ObstaclePotential(LAW, friction=DampingLaw(coefficient=1.0)), r"ObstaclePotential's friction must be a CoulombFrictionLaw, got DampingLaw"),
    ("obstacle-potential-quadrature", lambda rod: ObstaclePotential(LAW, quadrature_degree=1.5), r"quadrature_degree must be an integer >= 1"),
    ("obstacle-potential-overflow", lambda rod: problem(rod, scene(rod, Plane(), ObstaclePotential(RepulsiveLaw(coefficient=1.0, exponent=400)), margin=0.001)), r"ObstaclePotential's law: RepulsiveLaw overflows at gap 0\.001 \(the search margin\)"),
    ("obstacle-potential-statics", lambda rod: StaticProblem(rod, [], [], petsc_options_prefix="s_", contact=scene(rod, Plane(), ObstaclePotential(LAW))), r"ObstaclePotential cannot run in statics"),
    # RodRodPotential
    ("rod-potential-law", lambda rod: RodRodPotential(CoulombFrictionLaw(0.3, 1e-3)), r"RodRodPotential's law and line_law must be conservative laws .* got CoulombFrictionLaw"),
    ("rod-potential-line-law", lambda rod: RodRodPotential(LAW, line_law=DampingLaw(coefficient=1.0)), r"got DampingLaw"),
    ("rod-potential-damping", lambda rod: RodRodPotential(LAW, damping="x"), r"RodRodPotential's damping must be a DampingLaw, got str"),
    ("rod-potential-friction", lambda rod: RodRodPotential(LAW, friction=DampingLaw(coefficient=1.0)), r"RodRodPotential's friction must be a CoulombFrictionLaw, got DampingLaw"),
    ("rod-potential-settle", lambda rod: RodRodPotential(LAW, settle="yes"), r"settle must be True or False"),
    ("rod-potential-settle-tolerance", lambda rod: RodRodPotential(LAW, settle_tolerance="x"), r"settle_tolerance must be a number"),
    ("rod-potential-overflow", lambda rod: problem(rod, scene(rod, "rods", RodRodPotential(LAW, damping=DampingLaw(coefficient=1.0, exponent=900)))), r"RodRodPotential's damping: DampingLaw overflows at gap 0\.01 \(the search margin\)"),
    ("rod-potential-generalized-alpha", lambda rod: DynamicProblem(rod, petsc_options_prefix="g_", integrator="generalized-alpha", contact=scene(rod, "rods", RodRodPotential(LAW))), r"RodRodPotential cannot run with integrator='generalized-alpha'"),
    # Plane and Cylinder
    ("plane-point", lambda rod: Plane(point=(float("nan"), 0, 0)), r"plane 'plane': point must be 3 finite numbers"),
    ("plane-normal-text", lambda rod: Plane(normal="z"), r"plane 'plane': normal must be 3 finite numbers, got 'z'"),
    ("plane-normal-short", lambda rod: Plane(normal=(1, 2)), r"plane 'plane': normal must be 3 finite numbers"),
    ("plane-normal-zero", lambda rod: Plane(normal=(0, 0, 0)), r"plane 'plane': normal must be a non-zero vector"),
    ("plane-velocity", lambda rod: Plane(velocity=(0, float("inf"), 0)), r"plane 'plane': velocity must be 3 finite numbers"),
    ("plane-half-extents-one", lambda rod: Plane(half_extents=(1.0,)), r"plane 'plane': half_extents must be two positive numbers, got \(1\.0,\)"),
    ("plane-half-extents-negative", lambda rod: Plane(half_extents=(1.0, -1.0)), r"plane 'plane': half_extents must be positive, got -1\.0"),
    ("plane-in-plane", lambda rod: Plane(in_plane=(0, 0, 3)), r"plane 'plane': in_plane \(0, 0, 3\) is parallel to the normal"),
    ("plane-name", lambda rod: Plane(name=3), r"plane name must be a non-empty string, got 3"),
    ("cylinder-axis", lambda rod: Cylinder(axis=(0, 0, 0)), r"cylinder 'cylinder': axis must be a non-zero vector"),
    ("cylinder-point", lambda rod: Cylinder(point=(0, 0)), r"cylinder 'cylinder': point must be 3 finite numbers"),
    ("cylinder-radius-text", lambda rod: Cylinder(radius="1"), r"cylinder 'cylinder': radius must be a number, got '1'"),
    ("cylinder-radius", lambda rod: Cylinder(radius=-1.0), r"cylinder 'cylinder': radius must be positive"),
    ("cylinder-inside", lambda rod: Cylinder(inside="yes"), r"cylinder 'cylinder': inside must be True or False"),
    ("cylinder-half-length", lambda rod: Cylinder(half_length=0.0), r"cylinder 'cylinder': half_length must be positive, got 0\.0; omit it"),
    ("cylinder-name", lambda rod: Cylinder(name=""), r"cylinder name must be a non-empty string"),
    # the laws
    ("repulsive-coefficient", lambda rod: RepulsiveLaw(coefficient="a", exponent=8), r"RepulsiveLaw: coefficient must be a number, got 'a'"),
    ("repulsive-exponent", lambda rod: RepulsiveLaw(coefficient=1.0, exponent=1.0), r"RepulsiveLaw: exponent must be > 1"),
    ("adhesive-gap-scale", lambda rod: AdhesiveLaw(coefficient=1, attractive_exponent=4, repulsive_exponent=8, gap_scale=-1), r"AdhesiveLaw: gap_scale must be positive"),
    ("adhesive-exponents", lambda rod: AdhesiveLaw(coefficient=1, attractive_exponent=8, repulsive_exponent=4, gap_scale=1), r"AdhesiveLaw: .*exponent"),
    ("penalty-penalty", lambda rod: LinearPenaltyLaw(penalty=-1), r"LinearPenaltyLaw: penalty must be positive"),
    ("penalty-activation-gap", lambda rod: LinearPenaltyLaw(penalty=1, activation_gap=float("nan")), r"LinearPenaltyLaw: activation_gap must be finite"),
    ("smooth-penalty-smoothness", lambda rod: SmoothPenaltyLaw(penalty=1, cutoff_gap=1e-3, smoothness=3), r"SmoothPenaltyLaw: smoothness must be 1 .* or 2"),
    ("smooth-penalty-cutoff", lambda rod: SmoothPenaltyLaw(penalty=1, cutoff_gap=-1e-3), r"SmoothPenaltyLaw: cutoff_gap must be positive"),
    ("damping-coefficient", lambda rod: DampingLaw(coefficient=0.0), r"DampingLaw: coefficient must be positive, got 0\.0; omit the law"),
    ("damping-exponent", lambda rod: DampingLaw(coefficient=1.0, exponent=-1), r"DampingLaw: exponent must be non-negative"),
    ("friction-coefficient", lambda rod: FrictionLaw(coefficient=-1.0), r"FrictionLaw: coefficient must be positive"),
    ("coulomb-coefficient", lambda rod: CoulombFrictionLaw(float("nan"), 1e-3), r"CoulombFrictionLaw: friction_coefficient must be finite"),
    ("coulomb-regularization", lambda rod: CoulombFrictionLaw(0.3, 0.0), r"CoulombFrictionLaw: regularization_velocity must be positive"),
    ("law-name", lambda rod: get_law("sticky"), r"unknown contact law 'sticky'"),
    # ContactSearch
    ("search-displacement-of-other-rods", lambda rod: ContactSearch(rod.rods, crossing_rods().displacement, [0.02, 0.02], margin=0.01), r"the contact search got a Function on another mesh; give it the displacement of these rods"),
    ("search-displacement-none", lambda rod: ContactSearch(rod.rods, None, [0.02, 0.02], margin=0.01), r"the contact search needs the displacement of these rods .* got NoneType"),
    ("search-displacement-space", lambda rod: ContactSearch(rod.rods, rod.rotation, [0.02, 0.02], margin=0.01), r"the contact search got a Function of another space"),
    ("search-margin", lambda rod: ContactSearch(rod.rods, rod.displacement, [0.02, 0.02], margin="a"), r"contact search margin must be a number, got 'a'"),
    ("search-line-points", lambda rod: ContactSearch(rod.rods, rod.displacement, [0.02, 0.02], margin=0.01, line_points=2.5), r"line_points must be an integer >= 1"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "pattern"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_contact_argument(build, pattern):
    rod = crossing_rods()
    with pytest.raises(InputError, match=pattern):
        build(rod)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_normal_of_any_size_is_a_direction(scale):
    """A normal whose squared norm overflows (or underflows) is still the same direction: the
    plane through (0, 0, 0) with normal scale·(−0.42262, 0, 0.90631) is the 25° slope."""
    slope = Plane(normal=(-0.42262, 0.0, 0.90631))
    plane = Plane(normal=(-0.42262 * scale, 0.0, 0.90631 * scale))
    assert plane.coincides(slope)
    assert abs(sum(plane.normal**2) - 1.0) < 1e-15  # a unit vector to round-off
    cylinder = Cylinder(axis=(0.0, scale, scale))
    assert cylinder.axis == pytest.approx([0.0, 2**-0.5, 2**-0.5], abs=1e-15)
