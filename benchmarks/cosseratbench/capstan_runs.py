"""The capstan: a rope over a fixed horizontal cylinder, heavier on one side, with friction.

Rolling contact (no slip, Lagrange multipliers) with the cylinder, letting a contact whose
force leaves the Coulomb cone slide (`RollingContact(slide_outside_cone=True)`): below the
friction limit the rope is held exactly, above it the contacts slide with regularised Coulomb
friction. Energy–momentum steps, no damping. The contacts are bilateral: with
``unilateral=True`` the contact points at the ends of the wrap did not settle within a step
(measured at 100 elements), so the rope cannot leave the cylinder where it touches at the start.
The rope's P1 centreline (``centreline="basis"``) has its nodes on the wrap radius and its
chords a sagitta h²/8R inside it (0.12 mm at 100 elements, 12 % of the rope's radius): the
contacts start, and roll, at that small overlap (``touch_tolerance=0.3``).

The reference is the heavy-rope capstan limit (the rope's weight on the cylinder adds
friction): with the light side hanging h₁ and the wrap radius R (to the rope's centre), the
rope holds while the heavy side hangs at most

    h₂* = e^(μπ) h₁ + R (2μ / (1 + μ²)) (e^(μπ) + 1),

from dT/dφ = μ T + w R (cos φ + μ sin φ) along the half-turn wrap. The published experiment
sets the heavy side's overhang as a fraction of h₂* and measures how far the rope slides.
"""

from __future__ import annotations

from mpi4py import MPI

import numpy as np
from frames import Recorder
from metrics import max_strain
from placement import RodShape, build_rods, circular_section
from statics_runs import Outcome

from fe_rodcontact import ConvergenceError, DynamicProblem, Gravity, TimeStepping
from fe_rodcontact.contact import ContactScene, Cylinder, RollingContact

__all__ = ["CAPSTAN", "draped_rope", "holding_overhang", "run_capstan"]

CAPSTAN = {  # the published definition of the capstan experiment
    "cylinder_radius": 0.05,
    "radius": 0.001,
    "youngs_modulus": 3e5,
    "shear_modulus": 1e5,
    "density": 1000.0,
    "gravity": 9.81,
    "short_side": 0.15,  # m of rope hanging on the light side
    "duration": 2.0,
    "frames": 101,
}


SLIP = 5e-2
"""m/s: the sliding contacts' regularisation ε_v. With the default 1e-6 m/s the first step's
Newton solve does not converge (24 line contacts along the wrap); with 1e-2 m/s the runs at
0.95 and 1.1 of the holding overhang stopped at 0.021 s and 0.20 s (a Newton failure, contact
points that did not settle) at Δt = 2 ms; see docs/rolling.md, Limits."""


def _wrap_radius() -> float:
    return CAPSTAN["cylinder_radius"] + CAPSTAN["radius"]


def holding_overhang(friction: float) -> float:
    """h₂*: the longest heavy-side overhang (m) that friction holds."""
    ratio = np.exp(friction * np.pi)
    bonus = _wrap_radius() * 2.0 * friction / (1.0 + friction**2) * (ratio + 1.0)
    return float(ratio * CAPSTAN["short_side"] + bonus)


def _wrap_tension(phi: np.ndarray, start: float, end: float, weight: float, limit: float):
    """A tension along the wrap from ``start`` (φ = 0, light side) to ``end`` (φ = π) that
    friction of at most ``limit`` holds: T' = m T + w R (cos φ + m sin φ) for the m in
    [−limit, limit] that reaches ``end`` (bisection; T(π) grows with m)."""
    wr = weight * _wrap_radius()

    def tension(m: float) -> np.ndarray:
        a, b = (1 - m * m) / (1 + m * m), 2 * m / (1 + m * m)
        particular = a * np.exp(-m * phi) * np.sin(phi) - b * np.exp(-m * phi) * np.cos(phi) + b
        return np.exp(m * phi) * (start + wr * particular)

    low, high = -limit, limit
    for _ in range(200):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if tension(middle)[-1] < end else (low, middle)
    return tension(0.5 * (low + high))


def draped_rope(long: float, friction: float, per_metre: int = 400) -> RodShape:
    """The rope hanging ``short_side`` at x = −R, over the top of the cylinder and ``long`` at
    x = +R, stretched as it hangs (tension: the weight below, and along the wrap a tension
    friction can hold); unstretched arc length from the light end."""
    c = CAPSTAN
    wrap = _wrap_radius()
    area = np.pi * c["radius"] ** 2
    weight = c["density"] * area * c["gravity"]
    axial = c["youngs_modulus"] * area
    short = c["short_side"]
    s_left = np.linspace(0.0, short, int(short * per_metre), endpoint=False)
    phi = np.linspace(0.0, np.pi, int(np.pi * wrap * per_metre), endpoint=False)
    s_right = np.linspace(0.0, long, int(long * per_metre) + 1)
    t_left, t_right = weight * s_left, weight * (long - s_right)
    t_wrap = _wrap_tension(phi, weight * short, weight * long, weight, friction)
    stretched = np.cumsum(np.diff(s_left, prepend=0.0) * (1 + t_left / axial))
    left = np.column_stack(
        [
            np.full_like(s_left, -wrap),
            0 * s_left,
            stretched - stretched[-1] - (s_left[1] - s_left[0]),
        ]
    )
    # A hair outside the wrap radius, so that the chords between points rest on the cylinder.
    bulge = wrap / np.cos((phi[1] - phi[0]) / 2.0)
    arc = np.column_stack([-bulge * np.cos(phi), 0 * phi, bulge * np.sin(phi)])
    drop = np.cumsum(np.diff(s_right, prepend=0.0) * (1 + t_right / axial))
    right = np.column_stack([np.full_like(s_right, wrap), 0 * s_right, -drop])
    points = np.concatenate([left, arc, right])
    tension = np.concatenate([t_left, t_wrap, t_right])
    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    rest = np.concatenate(
        [[0.0], np.cumsum(gaps / (1 + 0.5 * (tension[1:] + tension[:-1]) / axial))]
    )
    return RodShape(points, rest, (0.0, 1.0, 0.0), reference=(1.0, 0.0, 0.0))


def run_capstan(
    elements: int,
    comm: MPI.Comm,
    *,
    dt: float | None = None,
    overhang: float = 0.8,
    friction: float = 0.3,
) -> Outcome:
    """The rope over the cylinder; ``overhang`` is the heavy side's length over h₂*."""
    c = CAPSTAN
    dt = 1e-3 if dt is None else dt
    section = circular_section(c["radius"], c["youngs_modulus"], c["shear_modulus"], c["density"])
    shape = draped_rope(overhang * holding_overhang(friction), friction)
    rod = build_rods([shape], [section], elements, comm)
    cylinder = Cylinder(point=(0.0, 0.0, 0.0), axis=(0.0, 1.0, 0.0), radius=c["cylinder_radius"])
    scene = ContactScene(rod, margin=2e-3, centreline="basis")
    rolling = RollingContact(
        friction_coefficient=friction, slide_outside_cone=True, slip_regularization=SLIP,
        touch_tolerance=0.3,
    )  # fmt: skip
    scene.add(cylinder, rolling)
    problem = DynamicProblem(
        rod, [], [Gravity((0.0, 0.0, -c["gravity"]))], petsc_options_prefix="capstan_",
        contact=scene,
    )  # fmt: skip
    recorder = Recorder(rod)
    recorder.record(0.0)
    stepping = TimeStepping(dt=dt)
    failure = None
    for t in np.linspace(0.0, c["duration"], c["frames"])[1:]:
        try:
            problem.solve(float(t), stepping)
        except ConvergenceError as error:
            failure = str(error)
            break
        recorder.record(float(t))
    trajectory = recorder.trajectory()
    light_end = trajectory.positions[0][:, 0, 2]
    series = problem.series.arrays()
    metrics = {"slide": float(light_end.max() - light_end[0])}
    observations = {
        "holding_overhang": holding_overhang(friction),
        "overhang_m": overhang * holding_overhang(friction),
        "max_contacts": float(np.max(series["contacts"])),
        "max_strain": max_strain(trajectory, [np.linspace(0, shape.length, elements + 1)]),
    }
    options = {"method": "energy-momentum, rolling contact sliding outside the cone", "dt": dt}
    stopped = None if failure is None else float(trajectory.times[-1])
    return Outcome(trajectory, metrics, observations, options, failure, stopped)
