"""Newton tolerances scaled to the rods: round-off floors of the residual, the steps' options."""

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.options import default_newton_options

__all__ = [
    "RoundOffFloor",
    "default_dynamics_options",
    "residual_floor",
    "scaled_absolute_tolerance",
    "stall_floor",
    "stiffness_scale",
]

EPSILON = float(np.finfo(float).eps)


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


def _unknowns(rod: CosseratRod) -> int:
    return int(rod.function_space.dofmap.index_map.size_global * rod.function_space.dofmap.bs)


def residual_floor(rod: CosseratRod) -> float:
    """The round-off floor of the residual's norm: ε·max(EA, GA)·√(number of unknowns).

    The internal forces are stiffness times strains that are computed from rotated vectors of
    size 1, so each residual entry carries an error of about ε·EA. Measured on a clamped steel
    rod (EA = 2.6e8 N, 40 elements, 246 unknowns, estimate 9e-7): Newton stalls at 1e-10 near
    the reference state and at 2.2e-7 once it bends, far above the fixed ``snes_atol = 1e-12``.
    """
    return EPSILON * stiffness_scale(rod) * float(np.sqrt(_unknowns(rod)))


class RoundOffFloor:
    """The residual's round-off floor at the rods' current state, in statics and dynamics.

    Two sources, each of ε times the size of the numbers a residual entry is computed from,
    summed over the √n unknowns (n of them):

    - **strains** (statics and dynamics): r' ≈ (x₂ − x₁)/h from nodal positions x = X + u of
      size |x|, so a strain loses log10(|x|/h) digits and a force entry carries
      ε·max(EA, GA)·max(1, |x|/h) (h the shortest element). |x| is that of the current state:
      a rod that travels far from the origin (a ring rolling along a plane) raises its floor
      as it goes;
    - **inertia** (dynamics): the step's acceleration 2(uₙ₊₁ − uₙ − Δt vₙ)/Δt² subtracts
      displacements of size |u| and velocities of size |v|, so a node of mass m carries
      ε·m·(2|u|/Δt² + 2|v|/Δt), m ≤ ρA h_max. For a rigidly translating rod (ρA = 1.26 kg/m,
      h = 0.125 m, 4.4 m/s) at Δt = 1e-5 this passes the dynamics ``snes_atol`` of 1e-10 after
      about 2 mm of travel (measured: Newton stalled at 1.9e-9, estimate 5e-9). The rotary
      inertia's share, ε·ρJ·h·2|ω|/Δt, is smaller by (R/h)²-like factors and left out.

    Collective: every call reduces the largest |x|, |u| and |v| over the ranks.

    Args:
        rod: The rods (their reference coordinates, sections and elements are read once).
    """

    def __init__(self, rod: CosseratRod):
        mesh = rod.mesh
        self._rod = rod
        self._comm: MPI.Comm = mesh.comm
        self._coordinates = rod.function_space.tabulate_dof_coordinates()
        x = mesh.geometry.x
        cells = mesh.geometry.dofmaps[0]
        lengths = np.linalg.norm(x[cells[:, 1]] - x[cells[:, 0]], axis=1)  # the vertices
        self._shortest = float(self._comm.allreduce(float(lengths.min(initial=np.inf)), op=MPI.MIN))
        longest = float(self._comm.allreduce(float(lengths.max(initial=0.0)), op=MPI.MAX))
        self._node_mass = max(s.rhoA for s in rod.sections) * longest
        self._scale = EPSILON * float(np.sqrt(_unknowns(rod)))
        self._stiffness = residual_floor(rod)

    def _largest(self, values: npt.NDArray[np.float64]) -> float:
        local = float(np.max(np.abs(values), initial=0.0))
        return float(self._comm.allreduce(local, op=MPI.MAX))

    def statics(self) -> float:
        """The floor of the strains at the current positions X + u (u of the rods' state)."""
        displacement = self._rod.state.x.array.reshape(-1, 6)[:, :3]
        size = self._largest(self._coordinates + displacement)
        return self._stiffness * max(1.0, size / self._shortest)

    def dynamics(self, dt: float, velocity: npt.NDArray[np.float64]) -> float:
        """The floor of a time step of size ``dt``: strains plus inertia.

        Args:
            dt: The step.
            velocity: The nodal velocities at its start, shape (nodes, 3).
        """
        displacement = self._rod.state.x.array.reshape(-1, 6)[:, :3]
        size = self._largest(self._coordinates + displacement)
        travel = self._largest(displacement)
        speed = self._largest(velocity)
        strains = self._stiffness * max(1.0, size / self._shortest)
        if not dt > 0:
            return strains
        return strains + self._scale * self._node_mass * (2 * travel / dt**2 + 2 * speed / dt)


def stall_floor(rod: CosseratRod) -> float:
    """The residual norm at which Newton may stall in statics, at the rods' current state.

    The strains' floor of :class:`RoundOffFloor`: strains come from differences of nodal
    positions over an element and lose about log10(|x|/h) digits; a straight 10 m rod of 10⁴
    elements under an end moment stalls at 1.4e-7 where :func:`residual_floor` is 5.4e-10
    (|x|/h = 10⁴). A Newton solve that stops on a small step with its residual below 10 × this
    value is accepted.
    """
    return RoundOffFloor(rod).statics()


def scaled_absolute_tolerance(rod: CosseratRod, floor: float) -> float:
    """``snes_atol`` for this rod: ``floor``, raised to the residual's round-off floor."""
    return max(floor, residual_floor(rod))
