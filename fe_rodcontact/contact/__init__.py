"""Contact: a scene of targets and models, the models, their laws, and where rods touch.

The user's entry point is :class:`ContactScene` (declare targets, each with a model:
:class:`RollingContact`, :class:`ObstaclePotential`, :class:`RodRodPotential`), given to a
problem as ``contact=``. Models derive from :class:`ContactModel`.
"""

from fe_rodcontact.contact.geometry.centreline import REPRESENTATIONS, Centreline, SegmentArrays
from fe_rodcontact.contact.geometry.contacts import (
    KIND_OBSTACLE,
    KIND_ROD,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    RawContacts,
)
from fe_rodcontact.contact.geometry.kernels import (
    KERNELS,
    CubicBSplineKernel,
    HatKernel,
    Kernel,
    get_kernel,
)
from fe_rodcontact.contact.geometry.obstacles import Cylinder, Obstacle, Plane
from fe_rodcontact.contact.geometry.search import ContactSearch, SearchStatistics
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
from fe_rodcontact.contact.model import (
    SCHEMES,
    Binding,
    ContactModel,
    EndVelocityRows,
    StepContext,
    StepKinematics,
)
from fe_rodcontact.contact.output import ContactOutput
from fe_rodcontact.contact.potential.obstacle import ObstaclePotential
from fe_rodcontact.contact.potential.rod_rod import RodRodPotential
from fe_rodcontact.contact.rolling.model import RollingContact
from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.contact.scene_options import CENTRELINES

__all__ = [
    "CENTRELINES",
    "KERNELS",
    "KIND_OBSTACLE",
    "KIND_ROD",
    "KIND_SELF",
    "LAWS",
    "MODE_LINE",
    "MODE_POINT",
    "REPRESENTATIONS",
    "SCHEMES",
    "AdhesiveLaw",
    "Binding",
    "Centreline",
    "CentrelineStencils",
    "ContactError",
    "ContactModel",
    "ContactOutput",
    "ContactScene",
    "ContactSearch",
    "ContactSet",
    "ContactTracker",
    "ContactWrenches",
    "CoulombFrictionLaw",
    "CubicBSplineKernel",
    "Cylinder",
    "DampingLaw",
    "DissipativeLaw",
    "EndVelocityRows",
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
    "StepContext",
    "StepKinematics",
    "check_gap",
    "contact_wrenches",
    "get_kernel",
    "get_law",
    "material_point_velocity",
    "relative_velocity",
]
