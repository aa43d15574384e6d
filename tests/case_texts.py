"""Case-file text shared by the tests of the command line: one rod and its section."""

from pathlib import Path

ONE_ROD = """
[[rods]]
name = "rod"
curve = "straight"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 4

[section]
EA = 1e3
GA1 = 1e3
GA2 = 1e3
EI1 = 1.0
EI2 = 1.0
GJ = 1.0
rhoA = 1.0
rhoI1 = 0.01
rhoI2 = 0.01
rhoJ = 0.02
"""
"""A straight rod of 1 m in 4 elements with a general section (SI units)."""


def write_case(path: Path, text: str, comm) -> Path:
    """Write ``text`` to ``path`` on rank 0; every rank returns once it is there."""
    if comm.rank == 0:
        path.write_text(text)
    comm.barrier()
    return path
