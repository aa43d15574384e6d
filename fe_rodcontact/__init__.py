"""fe_rodcontact: geometrically exact Cosserat rods in rolling and potential contact, in DOLFINx."""

from fe_rodcontact import compat  # noqa: F401  (imports dolfinx_solver first, pins DOLFINx)
from fe_rodcontact.compat import VERSION as __version__  # noqa: F401  (the version)
from fe_rodcontact.contact import get_kernel
from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.expressions import parse_expression
from fe_rodcontact.io.rods import RodVTXWriter, write_vtu
from fe_rodcontact.rods.curves import Curve, arc, helix, polyline, ring, straight
from fe_rodcontact.rods.loads import (
    DistributedForce,
    EndForce,
    EndMoment,
    Gravity,
    Load,
    PointForce,
    PointMoment,
    Support,
)
from fe_rodcontact.rods.mesh import RodMesh, create_rod_mesh
from fe_rodcontact.rods.mesh_files import read_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem, StaticResult
from fe_rodcontact.strings import StringsConfig, StringsResult, TwoStrings, run_strings
from fe_rodcontact.strings.constraints import PointConstraints, PointTerm
from fe_rodcontact.strings.locators import GeometryLocator, IntervalLocator
from fe_rodcontact.strings.saddle_point import SaddlePointProblem

__all__ = [
    "ConvergenceError",
    "CosseratRod",
    "Curve",
    "DistributedForce",
    "DynamicProblem",
    "EndForce",
    "EndMoment",
    "GeometryLocator",
    "Gravity",
    "InputError",
    "IntervalLocator",
    "Load",
    "LoadStepping",
    "PointConstraints",
    "PointForce",
    "PointMoment",
    "PointTerm",
    "RodMesh",
    "RodVTXWriter",
    "SaddlePointProblem",
    "Section",
    "StaticProblem",
    "StaticResult",
    "StringsConfig",
    "StringsResult",
    "Support",
    "TimeStepping",
    "TimedLoad",
    "TwoStrings",
    "arc",
    "create_rod_mesh",
    "get_kernel",
    "helix",
    "parse_expression",
    "polyline",
    "read_rod_mesh",
    "ring",
    "run_strings",
    "straight",
    "write_vtu",
]
