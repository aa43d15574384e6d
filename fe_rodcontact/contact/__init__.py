"""Contact: where rods touch (geometry, obstacles, persistent contact sets) and the kernels G."""

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
from fe_rodcontact.contact.obstacles import Cylinder, Obstacle, Plane

__all__ = [
    "KERNELS",
    "KIND_OBSTACLE",
    "KIND_ROD",
    "KIND_SELF",
    "MODE_LINE",
    "MODE_POINT",
    "REPRESENTATIONS",
    "Centreline",
    "ContactError",
    "ContactSearch",
    "ContactSet",
    "ContactTracker",
    "CubicBSplineKernel",
    "Cylinder",
    "HatKernel",
    "Kernel",
    "Obstacle",
    "Plane",
    "RawContacts",
    "SearchStatistics",
    "SegmentArrays",
    "get_kernel",
]
