"""Newton tolerances scaled to the rods: round-off floors of the residual, the steps' options."""

from mpi4py import MPI

import numpy as np

from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.options import default_newton_options

__all__ = [
    "default_dynamics_options",
    "residual_floor",
    "scaled_absolute_tolerance",
    "stall_floor",
    "stiffness_scale",
]


def default_dynamics_options(comm: MPI.Comm) -> dict[str, object]:
    """Newton options of one time step: the statics defaults with a tighter relative tolerance.

    Conservation holds to the tolerance of each step's solve; snes_rtol = 1e-13 costs about one
    Newton iteration more than 1e-10 and brings the energy error from ~1e-8 to ~1e-14 over
    hundreds of steps. The absolute tolerance (1e-10, in the units of the residual: force)
    accepts steps whose residual reached round-off; scale it with the forces of very stiff or
    very soft problems.
    """
    options = default_newton_options(comm)
    options.update({"snes_rtol": 1e-13, "snes_atol": 1e-10, "snes_stol": 1e-14})
    return options


def stiffness_scale(rod: CosseratRod) -> float:
    """The largest axial or shear stiffness (EA, GA1, GA2) of the rods, in force units."""
    return max(max(s.EA, s.GA1, s.GA2) for s in rod.sections)


def residual_floor(rod: CosseratRod) -> float:
    """The round-off floor of the residual's norm: ε·max(EA, GA)·√(number of unknowns).

    The internal forces are stiffness times strains that are computed from rotated vectors of
    size 1, so each residual entry carries an error of about ε·EA. Measured on a clamped steel
    rod (EA = 2.6e8 N, 40 elements, 246 unknowns, estimate 9e-7): Newton stalls at 1e-10 near
    the reference state and at 2.2e-7 once it bends, far above the fixed ``snes_atol = 1e-12``.
    """
    unknowns = rod.function_space.dofmap.index_map.size_global * rod.function_space.dofmap.bs
    return float(np.finfo(float).eps * stiffness_scale(rod) * np.sqrt(unknowns))


def stall_floor(rod: CosseratRod) -> float:
    """The residual norm at which Newton may stall on a fine mesh: the round-off floor times X/h.

    Strains come from differences of nodal positions over an element, r' ≈ (x₂ − x₁)/h, which
    lose about log10(X/h) digits (X the size of the coordinates, h the shortest element): a
    straight 10 m rod of 10⁴ elements under an end moment stalls at 1.4e-7 where
    :func:`residual_floor` is 5.4e-10 (X/h = 10⁴). A Newton solve that stops on a small step
    with its residual below 10 × this value is accepted.
    """
    mesh = rod.mesh
    x = mesh.geometry.x
    cells = mesh.geometry.dofmaps[0]
    comm = mesh.comm
    local_h = np.linalg.norm(x[cells[:, 1]] - x[cells[:, 0]], axis=1)
    h = comm.allreduce(float(local_h.min()) if len(local_h) else np.inf, op=MPI.MIN)
    size = comm.allreduce(float(np.abs(x).max()) if len(x) else 0.0, op=MPI.MAX)
    return residual_floor(rod) * max(1.0, size / h)


def scaled_absolute_tolerance(rod: CosseratRod, floor: float) -> float:
    """``snes_atol`` for this rod: ``floor``, raised to the residual's round-off floor."""
    return max(floor, residual_floor(rod))
