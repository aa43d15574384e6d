"""fe_rodcontact: geometrically exact Cosserat rods in rolling and potential contact, in DOLFINx."""

from fe_rodcontact import compat  # noqa: F401  (imports dolfinx_solver first, pins DOLFINx)
from fe_rodcontact.curves import Curve, arc, helix, polyline, ring, straight
from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.io import RodVTXWriter, write_vtu
from fe_rodcontact.loads import DistributedForce, EndForce, EndMoment, Gravity, Load, Support
from fe_rodcontact.mesh import RodMesh, create_rod_mesh, read_rod_mesh
from fe_rodcontact.rod import CosseratRod
from fe_rodcontact.section import Section
from fe_rodcontact.statics import LoadStepping, StaticProblem, StaticResult

__all__ = [
    "ConvergenceError",
    "CosseratRod",
    "Curve",
    "DistributedForce",
    "EndForce",
    "EndMoment",
    "Gravity",
    "InputError",
    "Load",
    "LoadStepping",
    "RodMesh",
    "RodVTXWriter",
    "Section",
    "StaticProblem",
    "StaticResult",
    "Support",
    "arc",
    "create_rod_mesh",
    "helix",
    "polyline",
    "read_rod_mesh",
    "ring",
    "straight",
    "write_vtu",
]
