"""Rods coupled with bodies that move with their own dynamics (one Newton solve per step).

Modules: :mod:`~fe_rodcontact.coupling.surfaces` (the bodies' exact surfaces and the step's
rod–body force), :mod:`~fe_rodcontact.coupling.obstacle` (the interface of an obstacle with
dynamics, and rigid bodies as such), :mod:`~fe_rodcontact.coupling.model` (the contact model
that appends a body's step to the rods' solve). See ``docs/bodies.md``.
"""

from fe_rodcontact.coupling.model import RodBodyPotential
from fe_rodcontact.coupling.obstacle import DynamicObstacle, RigidBodyObstacle
from fe_rodcontact.coupling.surfaces import (
    BallSurface,
    BodySurface,
    CutLaw,
    CylinderSurface,
    PairForces,
)

__all__ = [
    "BallSurface",
    "BodySurface",
    "CutLaw",
    "CylinderSurface",
    "DynamicObstacle",
    "PairForces",
    "RigidBodyObstacle",
    "RodBodyPotential",
]
