"""Contact: where rods touch, the contact laws, and the kernels G that smear a point constraint."""

from fe_rodcontact.contact.centreline import REPRESENTATIONS, Centreline, SegmentArrays
from fe_rodcontact.contact.contact_set import ContactError, ContactSet, ContactTracker
from fe_rodcontact.contact.detection import (
    KIND_OBSTACLE,
    KIND_ROD,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    ContactSearch,
    RawContacts,
    SearchStatistics,
)
from fe_rodcontact.contact.kernels import (
    KERNELS,
    CubicBSplineKernel,
    HatKernel,
    Kernel,
    get_kernel,
)
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
from fe_rodcontact.contact.obstacles import Cylinder, Obstacle, Plane
from fe_rodcontact.contact.output import ContactPointWriter
from fe_rodcontact.contact.potential import ObstaclePotential
from fe_rodcontact.contact.rod_potential import RodRodPotential
from fe_rodcontact.contact.rolling import RollingContact
from fe_rodcontact.contact.stencils import CentrelineStencils, Stencils

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
