"""Tatone's bodies: rigid and affine bodies, their shapes, and their contact with planes.

Small ODE systems in numpy (no DOLFINx, no PETSc), computed redundantly on every MPI rank.
Modules: :mod:`~fe_rodcontact.bodies.shapes` (paragon shapes: volume, Euler tensor, boundary
quadrature), :mod:`~fe_rodcontact.bodies.materials` (compressible Mooney–Rivlin),
:mod:`~fe_rodcontact.bodies.plane_contact` (the contact laws over the boundary, planes),
:mod:`~fe_rodcontact.bodies.drum` (a drum turning at a prescribed rate, touched inside),
:mod:`~fe_rodcontact.bodies.rolling` (no-slip rolling on a plane, a multiplier),
:mod:`~fe_rodcontact.bodies.body` (the base class and the energy account),
:mod:`~fe_rodcontact.bodies.rigid` and :mod:`~fe_rodcontact.bodies.affine` (the bodies and
their energy–momentum steps), :mod:`~fe_rodcontact.bodies.newton` (the step's Newton solve),
:mod:`~fe_rodcontact.bodies.simulation` (stepping to an end time, the time series).
See ``docs/bodies.md``.
"""

from fe_rodcontact.bodies.affine import AffineBody
from fe_rodcontact.bodies.body import Body, Energies, StepReport
from fe_rodcontact.bodies.drum import Drum, DrumContact
from fe_rodcontact.bodies.materials import MooneyRivlin
from fe_rodcontact.bodies.plane_contact import PlaneContact, StepForces, SurfaceContact
from fe_rodcontact.bodies.rigid import RigidBody
from fe_rodcontact.bodies.rolling import RollingOnPlane
from fe_rodcontact.bodies.shapes import (
    Box,
    Disc,
    RoundedCube,
    Shape,
    Sphere,
    SurfaceQuadrature,
    Top,
    boundary_moments,
)
from fe_rodcontact.bodies.simulation import History, advance

__all__ = [
    "AffineBody",
    "Body",
    "Box",
    "Disc",
    "Drum",
    "DrumContact",
    "Energies",
    "History",
    "MooneyRivlin",
    "PlaneContact",
    "RigidBody",
    "RollingOnPlane",
    "RoundedCube",
    "Shape",
    "Sphere",
    "StepForces",
    "StepReport",
    "SurfaceContact",
    "SurfaceQuadrature",
    "Top",
    "advance",
    "boundary_moments",
]
