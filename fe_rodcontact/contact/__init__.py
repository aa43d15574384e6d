"""Contact: where rods touch, the contact laws, and the kernels G that smear a point constraint."""

from fe_rodcontact.contact.geometry.centreline import REPRESENTATIONS, Centreline, SegmentArrays
from fe_rodcontact.contact.geometry.kernels import (
    KERNELS,
    CubicBSplineKernel,
    HatKernel,
    Kernel,
    get_kernel,
)
from fe_rodcontact.contact.geometry.obstacles import Cylinder, Obstacle, Plane
from fe_rodcontact.contact.geometry.search import (
    KIND_OBSTACLE,
    KIND_ROD,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    ContactSearch,
    RawContacts,
    SearchStatistics,
)
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils, Stencils
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactSet, ContactTracker
from fe_rodcontact.contact.laws import (
    LAWS,
    AdhesiveLaw,
    ContactWrenches,
    CoulombFrictionLaw,
    DampingLaw,
    DissipativeLaw,
    FrictionLaw,
    GapError,
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
    check_gap,
    contact_wrenches,
    get_law,
    material_point_velocity,
    relative_velocity,
)
from fe_rodcontact.contact.monitor import ContactMonitor
from fe_rodcontact.contact.potential.obstacle import ObstaclePotential
from fe_rodcontact.contact.potential.rod_rod import RodRodPotential
from fe_rodcontact.contact.rolling.model import RollingContact
from fe_rodcontact.io.contact_points import ContactPointWriter

__all__ = [
    "KERNELS",
    "KIND_OBSTACLE",
    "KIND_ROD",
    "KIND_SELF",
    "LAWS",
    "MODE_LINE",
    "MODE_POINT",
    "REPRESENTATIONS",
    "AdhesiveLaw",
    "Centreline",
    "CentrelineStencils",
    "ContactError",
    "ContactMonitor",
    "ContactPointWriter",
    "ContactSearch",
    "ContactSet",
    "ContactTracker",
    "ContactWrenches",
    "CoulombFrictionLaw",
    "CubicBSplineKernel",
    "Cylinder",
    "DampingLaw",
    "DissipativeLaw",
    "FrictionLaw",
    "GapError",
    "HatKernel",
    "Kernel",
    "LinearPenaltyLaw",
    "NormalLaw",
    "Obstacle",
    "ObstaclePotential",
    "Plane",
    "RawContacts",
    "RepulsiveLaw",
    "RodRodPotential",
    "RollingContact",
    "SearchStatistics",
    "SegmentArrays",
    "SmoothPenaltyLaw",
    "Stencils",
    "check_gap",
    "contact_wrenches",
    "get_kernel",
    "get_law",
    "material_point_velocity",
    "relative_velocity",
]
