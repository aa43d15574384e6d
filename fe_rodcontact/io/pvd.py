"""ParaView collections (``.pvd``): the index of a time series of ``.vtu`` frames.

ParaView opens the ``.pvd`` file and reads each frame's file at its time. The times are
written with 17 significant digits (they read back exactly) and the file names are quoted as
XML attributes.
"""

from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import quoteattr

__all__ = ["write_collection"]


def write_collection(path: Path, frames: Iterable[tuple[float, str]]) -> None:
    """Write the collection ``path`` of the ``frames`` (time, file name relative to it).

    Raises:
        OSError: When the file cannot be written.
    """
    lines = [
        '<?xml version="1.0"?>',
        '<VTKFile type="Collection" version="0.1">',
        "  <Collection>",
        *(f'    <DataSet timestep="{t:.17g}" part="0" file={quoteattr(f)}/>' for t, f in frames),
        "  </Collection>",
        "</VTKFile>",
    ]
    path.write_text("\n".join(lines) + "\n")
