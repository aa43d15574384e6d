"""The dynamic experiments (pendulum, twist), run with the energy–momentum scheme.

No damping is added in either: the pendulum's motion is its result (the benchmark forbids
added dissipation), and the twist experiment's growth-rate fit s² + c s = a (twist − critical)
holds for any mass-proportional damping c, including none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mpi4py import MPI

import numpy as np
from frames import Recorder, Trajectory
from metrics import (
    amplitude_change,
    growth_rates,
    max_strain,
    measured_period,
    threshold_from_growth,
)
from placement import RodShape, build_rods, circular_section
from references import greenhill_moment, hanging_cable_mode
from statics_runs import Outcome

from fe_rodcontact import (
    CosseratRod,
    DynamicProblem,
    EndForce,
    Gravity,
    Load,
    Support,
    TimeStepping,
)

__all__ = ["PENDULUM", "TWIST", "run_dynamic", "run_pendulum", "run_twist"]

PENDULUM = {  # the published definition (results-0.2/pendulum/default/experiment.json)
    "length": 1.0,
    "radius": 0.002,
    "density": 1000.0,
    "gravity": 9.81,
    "amplitude": 0.02,  # m, of the free end, in the first mode
    "duration": 5.0,
    "frames": 101,
}

TWIST = {  # the published definition (results-0.2/twist/default/experiment.json)
    "length": 1.0,
    "radius": 0.01,
    "youngs_modulus": 1e6,
    "shear_modulus": 1e6 / 3.0,
    "density": 1000.0,
    "imperfection": 1e-4,  # height of the starting bend (1 − cos 2πs/L)/2, in rod lengths
    "levels": (0.96, 0.98, 1.00, 1.02, 1.04, 1.06),  # held twist / Greenhill's
    "spacing": 0.25,  # m between the rods
    "ramp": 6.0,  # s to the held twist, (1 − cos πt/ramp)/2
    "settle": 2.0,  # s after the ramp before growth is fitted
    "duration": 16.0,
    "frames": 321,
    "growing": 0.05,  # 1/s: faster than this, a rod is past its critical twist
    "linear": 1e-2,  # m: beyond this sideways distance growth is no longer exponential
}


def run_dynamic(
    rod: CosseratRod,
    supports: Sequence[Support],
    loads: Sequence[Load],
    duration: float,
    frames: int,
    dt: float,
    prefix: str,
) -> tuple[Trajectory, int]:
    """Energy–momentum steps of at most ``dt`` landing on each frame; the frames and steps."""
    problem = DynamicProblem(rod, supports, loads, petsc_options_prefix=prefix)
    recorder = Recorder(rod)
    recorder.record(0.0)
    stepping = TimeStepping(dt=dt)
    for t in np.linspace(0.0, duration, frames)[1:]:
        problem.solve(float(t), stepping)
        recorder.record(float(t))
    return recorder.trajectory(), problem.steps


def pendulum_start(youngs: float) -> tuple[RodShape, float]:
    """The cable hanging stretched from the origin, displaced into its first mode; and ω.

    Unstretched arc length s from the pin; the static strain ε = ρ g (L − s)/E; sideways
    x = A u(s) from the mode, and each ds spans (1 + ε) ds of which dx is sideways.
    """
    c = PENDULUM
    area = np.pi * c["radius"] ** 2
    omega, shape, slope = hanging_cable_mode(
        c["length"],
        youngs * np.pi * c["radius"] ** 4 / 4.0,
        youngs * area,
        c["density"] * area,
        c["gravity"],
    )
    s = np.linspace(0.0, c["length"], len(shape))
    strain = c["density"] * c["gravity"] * (c["length"] - s) / youngs
    x = c["amplitude"] * shape[::-1]
    dx_ds = -c["amplitude"] * slope[::-1]  # the mode runs up from the free end
    drop = np.sqrt((1.0 + strain) ** 2 - dx_ds**2)
    z = -np.concatenate([[0.0], np.cumsum((drop[1:] + drop[:-1]) / 2.0 * np.diff(s))])
    points = np.column_stack([x, np.zeros_like(x), z])
    return RodShape(points, s, (0.0, 1.0, 0.0)), omega


def run_pendulum(
    elements: int, comm: MPI.Comm, *, dt: float | None = None, youngs_modulus: float = 1e7
) -> Outcome:
    """The cable swinging from a pin in its first mode, against linear vibration theory."""
    c = PENDULUM
    dt = 2.5e-3 if dt is None else dt
    section = circular_section(c["radius"], youngs_modulus, youngs_modulus / 3.0, c["density"])
    shape, omega = pendulum_start(youngs_modulus)
    rod = build_rods([shape], [section], elements, comm)
    trajectory, steps = run_dynamic(
        rod,
        [Support.pinned(0, "start")],
        [Gravity((0.0, 0.0, -c["gravity"]))],
        c["duration"],
        c["frames"],
        dt,
        "pendulum_",
    )
    reference = 2.0 * np.pi / omega
    t, x = trajectory.times, trajectory.positions[0][:, -1, 0]
    period = measured_period(t, x, reference)
    metrics = {
        "period_error": abs(period - reference) / reference,
        "amplitude_change": amplitude_change(t, x, period),
    }
    observations = {
        "period": period,
        "reference_period": reference,
        "max_strain": max_strain(trajectory, [np.linspace(0, c["length"], elements + 1)]),
    }
    options = {"method": "energy-momentum", "degree": 1, "dt": dt, "steps": steps}
    return Outcome(trajectory, metrics, observations, options)


def twist_critical(tension: float) -> float:
    """Greenhill's critical twist (rad) of the twist experiment's rod under τ = T L² / B."""
    c = TWIST
    inertia = np.pi * c["radius"] ** 4 / 4.0
    bending, torsion = c["youngs_modulus"] * inertia, c["shear_modulus"] * 2.0 * inertia
    return greenhill_moment(tension) * bending / torsion


def run_twist(
    elements: int,
    comm: MPI.Comm,
    *,
    dt: float | None = None,
    tension: float = 10.0,
    levels: Sequence[float] = TWIST["levels"],
    schedule: tuple[float, float, float, int] | None = None,
) -> Outcome:
    """Rods under tension twisted to fractions of Greenhill's critical twist and held.

    Each rod is clamped at its start; its end is clamped in rotation, turned about the rod's
    axis by ψ(t) (a prescribed rotation history), held sideways and free to slide along the
    axis, and pulled by the tension T = τ EI / L². ``levels`` (the held twists over
    Greenhill's) and ``schedule`` (ramp, settle, duration in s, and frames) are the published
    ones unless given, e.g. by a quick check.
    """
    c = dict(TWIST)
    if schedule is not None:
        c["ramp"], c["settle"], c["duration"], c["frames"] = schedule
    dt = 0.02 if dt is None else dt
    section = circular_section(c["radius"], c["youngs_modulus"], c["shear_modulus"], c["density"])
    s = np.linspace(0.0, c["length"], 201)
    bump = c["imperfection"] * c["length"] * (1.0 - np.cos(2.0 * np.pi * s / c["length"])) / 2.0
    shapes = [
        RodShape(np.column_stack([s, i * c["spacing"] + bump, np.zeros_like(s)]), s, (0, 0, 1.0))
        for i in range(len(levels))
    ]
    rod = build_rods(shapes, [section] * len(shapes), elements, comm)
    critical = twist_critical(tension)
    pull = tension * section.EI1 / c["length"] ** 2

    def turned(target: float) -> Callable[[float], tuple[float, float, float]]:
        def rotation(t: float) -> tuple[float, float, float]:
            fraction = 0.5 - 0.5 * np.cos(np.pi * min(t, c["ramp"]) / c["ramp"])
            return (target * fraction, 0.0, 0.0)

        return rotation

    supports, loads = [], []
    for i, level in enumerate(levels):
        supports.append(Support.clamped(i, "start"))
        supports.append(
            Support(
                i, "end", displacement_components=(1, 2), rotation_history=turned(level * critical)
            )
        )
        loads.append(EndForce(i, "end", (pull, 0.0, 0.0)))
    trajectory, steps = run_dynamic(rod, supports, loads, c["duration"], c["frames"], dt, "twist_")
    sideways = []
    for i, x in enumerate(trajectory.positions):
        offset = x - np.array([0.0, i * c["spacing"], 0.0])
        sideways.append(np.linalg.norm(offset[..., 1:], axis=2).max(axis=1))
    rates = growth_rates(trajectory.times, sideways, c["ramp"] + c["settle"], c["linear"])
    measured = threshold_from_growth(rates, np.array(levels), c["growing"])
    metrics = {"critical_twist_error": abs(measured - 1.0)}
    observations = {
        "measured_critical_twist": measured,
        "reference_critical_twist_rad": critical,
        "growth_rates": [float(r) for r in rates],
        "max_strain": max_strain(
            trajectory, [np.linspace(0, c["length"], elements + 1)] * len(levels)
        ),
    }
    options = {"method": "energy-momentum", "degree": 1, "dt": dt, "steps": steps}
    return Outcome(trajectory, metrics, observations, options)
