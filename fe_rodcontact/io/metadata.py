"""What the tables of a run hold: JSON sidecars with units, names and categories.

``series.npz`` and ``contacts.csv`` are plain arrays and rows; beside each the command line
writes a JSON file of the same stem (``series.json``, ``contacts.json``) that says, per key or
column, its unit and meaning, and names the rods and obstacles::

    {"file": "series.npz", "rods": ["rod"], "obstacles": ["slope"],
     "columns": {"t": {"unit": "s", "meaning": "time"}, ...}}

:data:`SERIES_COLUMNS` and :data:`CONTACT_COLUMNS` are the descriptions; :data:`INTEGER_SERIES`
(from :mod:`fe_rodcontact.stepping.recording`) the keys of ``series.npz`` that count something
and are stored as integers. Rank 0 writes;
errors are raised on every rank.
"""

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from mpi4py import MPI

from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.stepping.recording import INTEGER_SERIES

__all__ = [
    "BODY_COLUMNS",
    "CONTACT_COLUMNS",
    "INTEGER_SERIES",
    "SERIES_COLUMNS",
    "write_sidecar",
]

SERIES_COLUMNS: dict[str, tuple[str, str]] = {
    "t": ("s", "time of the step's end (0: the start)"),
    "dt": ("s", "the step's size (0 at the start)"),
    "iterations": ("count", "Newton iterations of the step (0 at the start)"),
    "kinetic_energy": ("J", "kinetic energy"),
    "elastic_energy": ("J", "elastic (strain) energy"),
    "external_work": ("J", "work of loads, supports and moving obstacles since the start"),
    "total_energy": ("J", "kinetic + elastic [+ contact] - external work"),
    "linear_momentum": ("kg m/s", "linear momentum (x, y, z)"),
    "angular_momentum": ("kg m^2/s", "angular momentum about the origin (x, y, z)"),
    "contacts": ("count", "contact points found"),
    "min_gap": ("m", "smallest gap (inf without contacts)"),
    "contacts_new": ("count", "contacts found for the first time"),
    "contacts_released": ("count", "contacts of the previous step not found any more"),
    "contact_energy": ("J", "energy of the contact potentials"),
    "dissipated_energy": ("J", "energy taken by contact damping and friction since the start"),
    "obstacle_work": ("J", "work of moving obstacles since the start"),
    "rod_contacts": ("count", "contact points between rods (potential model)"),
    "rod_min_gap": ("m", "smallest gap between rods (the margin without contacts)"),
    "rolling_contacts": ("count", "rolling contacts (rolling model)"),
    "max_slip": ("m/s", "largest slip velocity of a rolling contact (0 at the start)"),
    "max_gap": ("m", "largest |gap| of a rolling contact"),
    "max_cone_ratio": ("1", "largest |tangential|/(k |normal|) force (NaN without k)"),
    "impact_energy_loss": ("J", "energy taken by impacts and the consistent start"),
    "friction_energy_loss": ("J", "work of sliding friction at rolling contacts"),
    "viscous_dissipation": ("J", "energy taken by Kelvin-Voigt damping since the start"),
}
"""Unit and meaning of each key of ``series.npz``."""


CONTACT_COLUMNS: dict[str, tuple[str, str]] = {
    "step": ("count", "step number (from 1)"),
    "t": ("s", "time of the step's end"),
    "id": ("1", "the contact's identity (kept while it persists)"),
    "kind": ("category", "rod (between rods), self, or obstacle"),
    "rod_a": ("name", "rod a"),
    "rod_b": ("name", "rod b, or the obstacle"),
    "s_a": ("m", "arc length of the contact on rod a"),
    "s_b": ("m", "arc length on rod b (obstacles: 0)"),
    **{f"point_{c}": ("m", f"contact point, {c}") for c in "xyz"},
    **{f"normal_{c}": ("1", f"unit normal (b pushes a along it), {c}") for c in "xyz"},
    **{f"force_{c}": ("N", f"contact force on rod a, {c}") for c in "xyz"},
    "normal_force": ("N", "normal force, positive when pressing"),
    "tangential_force": ("N", "magnitude of the tangential force"),
    "slip": ("m/s", "magnitude of the slip velocity over the step"),
    "gap": ("m", "gap at the step's end"),
    "tangency": ("1", "how far the closest points are from tangency"),
    "cone_ratio": ("1", "|tangential|/(k |normal|) (NaN without friction_coefficient)"),
    "impact_loss": ("J", "energy an impact took in the step"),
    "sliding": ("0/1", "1 when the contact slid in the step"),
    "friction_loss": ("J", "work of friction against the slip in the step"),
}
"""Unit and meaning of each column of ``contacts.csv``."""


BODY_COLUMNS: dict[str, tuple[str, str]] = {
    "t": ("s", "time of the step's end (0: the start)"),
    "position": ("m", "placement of the centroid p_o (x, y, z)"),
    "velocity": ("m/s", "velocity of the centroid (x, y, z)"),
    "rotation": ("1", "rotation R (rigid body; 3x3, row-major)"),
    "angular_velocity": ("rad/s", "spatial angular velocity (rigid body; x, y, z)"),
    "deformation": ("1", "deformation gradient F (affine body; 3x3)"),
    "deformation_rate": ("1/s", "its rate dF/dt (affine body; 3x3)"),
    "kinetic": ("J", "kinetic energy"),
    "elastic": ("J", "stored (Mooney-Rivlin) energy (affine body)"),
    "gravity": ("J", "potential energy of gravity, -m g.p_o"),
    "contact": ("J", "energy of the conservative contact laws"),
    "dissipated": ("J", "energy taken by damping, friction and viscosity since the start"),
    "contact_work": ("J", "work of the conservative contact forces since the start"),
    "supplied": ("J", "work of turning drums on the body since the start"),
    "balance": ("J", "kinetic + elastic + gravity - contact work + dissipated - supplied"),
    "iterations": ("count", "Newton iterations of the step (0 at the start)"),
}
"""Unit and meaning of each series of a body (``series.npz`` holds ``<body>.<key>``)."""


def write_sidecar(
    path: str | Path,
    comm: MPI.Comm,
    *,
    described: str,
    columns: Iterable[str],
    table: dict[str, tuple[str, str]],
    rods: Sequence[str],
    obstacles: Sequence[str],
    bodies: Sequence[str] | None = None,
) -> None:
    """Write the JSON description of ``described`` (a file name) to ``path`` (collective).

    Args:
        path: The JSON file.
        comm: Rank 0 writes; errors are raised on every rank.
        described: The file it describes.
        columns: Its keys or columns, in order.
        table: Unit and meaning per key (a key not in it is listed with unit ``"?"``).
        rods: The rods' names.
        obstacles: The obstacles' names.
        bodies: The bodies' names (a bodies case; not listed when None).
    """
    path = Path(path)
    message = None
    if comm.rank == 0:
        entries = {}
        for key in columns:
            unit, meaning = table.get(key, ("?", "see the manual's outputs page"))
            entries[key] = {"unit": unit, "meaning": meaning}
        document = {
            "file": described,
            "rods": list(rods),
            "obstacles": list(obstacles),
            **({} if bodies is None else {"bodies": list(bodies)}),
            "columns": entries,
        }
        partial = path.with_name(f".{path.name}.partial")
        try:
            partial.write_text(json.dumps(document, indent=1) + "\n")
            os.replace(partial, path)
        except OSError as error:
            message = f"could not write {path} ({error.strerror or error})."
    raise_collectively(comm, message)
