"""Rods in a user's DOLFINx solid model: the body, contact with its surface, the coupled solve."""

from fe_rodcontact.solid.body import SolidBody, SurfaceMesh
from fe_rodcontact.solid.contact import ContactState, SurfaceContact
from fe_rodcontact.solid.coupled import CoupledStaticProblem, CoupledStaticResult
from fe_rodcontact.solid.materials import neo_hookean_energy, neo_hookean_residual

__all__ = [
    "ContactState",
    "CoupledStaticProblem",
    "CoupledStaticResult",
    "SolidBody",
    "SurfaceContact",
    "SurfaceMesh",
    "neo_hookean_energy",
    "neo_hookean_residual",
]
