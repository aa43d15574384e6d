"""Case-file text shared by the tests of the command line: one rod and its section."""

from pathlib import Path

import numpy as np

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


def consistent_kinetic_energy(rho_a, s, v):
    """½ ∫ ρA v_h² ds of the P1 interpolant of nodal values v at nodes s (exact: Simpson per
    element of a quadratic, h/3 (v_i² + v_i v_j + v_j²))."""
    h = np.diff(s)
    return 0.5 * rho_a * np.sum(h / 3 * (v[:-1] ** 2 + v[:-1] * v[1:] + v[1:] ** 2))
