"""The quasi-static experiments (cantilever, catenary), solved as static equilibria.

The benchmark marks them quasi-static: only the final equilibrium counts, and a solver may
reach it however it likes. We solve the equilibrium itself (Newton with load stepping) instead
of damping a motion to rest. The frames are the benchmark's times (101 over the duration): the
loads grow linearly with time over the first half, λ = 2t/duration, and are held over the
second half, where each frame is a fresh Newton solve at λ = 1 from the last one. So the
settling residual (the last frames' node speed) measures what a further solve still moves,
which for a converged equilibrium is round-off, not the dynamics of settling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mpi4py import MPI

import numpy as np
from frames import Recorder, Trajectory
from metrics import max_distance_to_curve, max_strain, settling_residual
from placement import RodShape, build_rods, circular_section
from references import cantilever_curve, cantilever_tip_deflection, elastic_catenary
from scipy.optimize import brentq

from fe_rodcontact import CosseratRod, EndForce, Gravity, Load, LoadStepping, StaticProblem, Support

__all__ = ["CANTILEVER", "CATENARY", "Outcome", "run_cantilever", "run_catenary", "solve_static"]

FRAMES = 101
NEWTON = {"snes_linesearch_type": "l2", "snes_max_it": 50}
"""Newton with PETSc's l2 line search: a cable pinned at both ends and started far from its
equilibrium (the catenary's arc at 20 elements) is not reached by full Newton steps."""


@dataclass(frozen=True)
class Outcome:
    """A run's trajectory, metrics, observations and the settings that made it.

    ``failure`` says why a run stopped before its duration (then ``stopped_at`` is the last
    frame's time, and the metrics are of the trajectory so far).
    """

    trajectory: Trajectory
    metrics: dict[str, float]
    observations: dict[str, object]
    options: dict[str, object]
    failure: str | None = None
    stopped_at: float | None = None


CANTILEVER = {  # the published definition (results-0.2/cantilever/default/experiment.json)
    "length": 1.0,
    "radius": 0.02,
    "youngs_modulus": 1e6,
    "shear_modulus": 1e6 / 3.0,
    "density": 1000.0,
    "tip_force": 7.5e-3,  # N, downward (−z) at the free end; clamped at the start
    "duration": 10.0,
}

CATENARY = {  # the published definition (results-0.2/catenary/default/experiment.json)
    "length": 1.0,
    "span": 0.8,
    "radius": 0.005,
    "youngs_modulus": 1e6,
    "shear_modulus": 1e6 / 3.0,
    "density": 1000.0,
    "gravity": 9.81,
    "duration": 5.0,
}


def solve_static(
    rod: CosseratRod,
    supports: Sequence[Support],
    loads: Sequence[Load],
    duration: float,
    prefix: str,
    *,
    check_rigid_motions: bool = True,
    frames: int = FRAMES,
) -> Trajectory:
    """Ramp the loads over the first half of the frames and hold them over the second.

    ``check_rigid_motions=False`` for cables pinned at both ends: they may swing about the line
    through their pins, a motion that only their weight holds. ``frames`` (odd, so that the
    middle one ends the ramp) is the benchmark's 101 unless a quick check asks for fewer.
    """
    problem = StaticProblem(
        rod,
        supports,
        loads,
        petsc_options_prefix=prefix,
        petsc_options=NEWTON,
        check_rigid_motions=check_rigid_motions,
    )
    times = np.linspace(0.0, duration, frames)
    ramp = times[times <= duration / 2][1:]
    levels = 2.0 * ramp / duration
    recorder = Recorder(rod)
    recorder.record(0.0)
    stops = {round(float(level), 12): float(t) for level, t in zip(levels, ramp, strict=True)}

    def on_step(load_factor: float) -> None:
        t = stops.get(round(load_factor, 12))
        if t is not None:
            recorder.record(t)

    problem.solve(
        LoadStepping(initial_step=levels[0], max_step=levels[0]),
        on_step=on_step,
        stops=[float(level) for level in levels[:-1]],
    )
    for t in times[times > duration / 2]:
        converged, _ = problem.solve_at(1.0)
        if not converged:
            raise RuntimeError(f"the held equilibrium did not re-solve at t = {t}")
        rod.commit("rotation vector")
        recorder.record(float(t))
    return recorder.trajectory()


def run_cantilever(elements: int, comm: MPI.Comm, *, frames: int = FRAMES) -> Outcome:
    """The clamped beam under a small tip load, against Euler–Bernoulli."""
    c = CANTILEVER
    section = circular_section(c["radius"], c["youngs_modulus"], c["shear_modulus"], c["density"])
    shape = RodShape.polyline(np.array([[0.0, 0, 0], [c["length"], 0, 0]]), (0.0, 0.0, 1.0))
    rod = build_rods([shape], [section], elements, comm)
    trajectory = solve_static(
        rod,
        [Support.clamped(0, "start")],
        [EndForce(0, "end", (0.0, 0.0, -c["tip_force"]))],
        c["duration"],
        "cantilever_",
        frames=frames,
    )
    bending = section.EI1
    reference = cantilever_tip_deflection(c["tip_force"], c["length"], bending)
    deflection = -trajectory.positions[0][-1, -1, 2]
    curve = cantilever_curve(c["tip_force"], c["length"], bending, 2001)
    metrics = {
        "tip_deflection_error": abs(deflection - reference) / reference,
        "settling_residual": settling_residual(trajectory, [c["length"]]),
    }
    observations = {
        "tip_deflection": deflection,
        "reference_tip_deflection": reference,
        "shape_error": max_distance_to_curve(trajectory.positions[0][-1], curve) / c["length"],
        "max_strain": max_strain(trajectory, [np.linspace(0, c["length"], elements + 1)]),
    }
    options = {"method": "statics", "degree": 1, **NEWTON}
    return Outcome(trajectory, metrics, observations, options)


def catenary_start(length: float, span: float, n: int = 401) -> np.ndarray:
    """The published start: a circular arc of the cable's length hanging below its chord."""
    half = float(brentq(lambda phi: np.sin(phi) / phi - span / length, 1e-9, np.pi - 1e-9))
    radius = length / (2.0 * half)
    alpha = np.linspace(-half, half, n)
    x = span / 2.0 + radius * np.sin(alpha)
    z = radius * (np.cos(half) - np.cos(alpha))
    return np.column_stack([x, np.zeros_like(x), z])


def run_catenary(
    elements: int, comm: MPI.Comm, *, bending_scale: float = 1.0, frames: int = FRAMES
) -> Outcome:
    """The cable pinned at both ends, against the elastic catenary.

    Args:
        elements: Elements of the cable.
        comm: Communicator.
        bending_scale: Multiplies EI and GJ (a check of the reference, which neglects bending:
            1 is the benchmark's cable).
        frames: Frames over the duration (odd; the benchmark's 101 by default).
    """
    c = CATENARY
    section = circular_section(c["radius"], c["youngs_modulus"], c["shear_modulus"], c["density"])
    if bending_scale != 1.0:
        section = replace(
            section,
            EI1=section.EI1 * bending_scale,
            EI2=section.EI2 * bending_scale,
            GJ=section.GJ * bending_scale,
        )
    shape = RodShape.polyline(catenary_start(c["length"], c["span"]), (0.0, 1.0, 0.0))
    rod = build_rods([shape], [section], elements, comm)
    trajectory = solve_static(
        rod,
        [Support.pinned(0, "start"), Support.pinned(0, "end")],
        [Gravity((0.0, 0.0, -c["gravity"]))],
        c["duration"],
        "catenary_",
        check_rigid_motions=False,
        frames=frames,
    )
    curve = elastic_catenary(c["length"], c["span"], section.rhoA * c["gravity"], section.EA)
    final = trajectory.positions[0][-1]
    sag = float(curve[:, 2].min())
    metrics = {
        "shape_error": max_distance_to_curve(final, curve) / c["length"],
        "sag_error": abs(float(final[:, 2].min()) - sag) / abs(sag),
        "settling_residual": settling_residual(trajectory, [c["length"]]),
    }
    observations = {
        "sag": float(final[:, 2].min()),
        "reference_sag": sag,
        "max_strain": max_strain(trajectory, [np.linspace(0, c["length"], elements + 1)]),
    }
    options = {"method": "statics", "degree": 1, "bending_scale": bending_scale, **NEWTON}
    return Outcome(trajectory, metrics, observations, options)
