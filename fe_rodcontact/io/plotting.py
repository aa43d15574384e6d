"""Matplotlib drawings of rods in 3D (collective: data are gathered, rank 0 draws)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["plot_rods", "rod_polylines"]


def rod_polylines(rod: CosseratRod, deformed: bool = True) -> list[np.ndarray]:
    """Centreline points of each rod in chain order (deformed, or the reference ones)."""
    x = rod.gather_nodal_coordinates()
    if deformed:
        x = x + rod.gather_nodal(rod.displacement)
    cells, rods = rod.gather_cells()
    lines = []
    for i in range(rod.rods.num_rods):
        own = cells[rods == i]
        if rod.rods.degree == 2:  # draw through midpoints too
            order = np.column_stack([own[:, 0], own[:, 2]]).ravel()
            order = np.append(order, own[-1, 1])
        else:
            order = np.append(own[:, 0], own[-1, 1])
        lines.append(x[order])
    return lines


def plot_rods(
    rod: CosseratRod,
    filename: str | Path | None = None,
    *,
    title: str = "",
    directors_every: int = 0,
    figure: Figure | None = None,
    show_reference: bool = True,
    units: str = "case units",
) -> Figure | None:
    """Draw the deformed rods in 3D with equal axis scales.

    Args:
        rod: The rod model (its committed state is drawn).
        filename: Save the figure there (PNG, PDF, ...) when given.
        title: Figure title.
        directors_every: Draw d1 (red) and d2 (blue) at every k-th node; 0 for none.
        figure: Draw into this figure instead of a new one.
        show_reference: Draw the undeformed centrelines too (dashed grey).
        units: The length unit in the axis labels.

    Returns:
        The figure on rank 0, None elsewhere.
    """
    lines = rod_polylines(rod)
    reference = rod_polylines(rod, deformed=False) if show_reference else []
    rotation = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3) if directors_every else None
    x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
    if rod.mesh.comm.rank != 0:
        return None
    fig = figure or plt.figure(figsize=(6.5, 6))
    ax = fig.add_subplot(projection="3d")
    for i, points in enumerate(lines):
        ax.plot(*points.T, lw=2, label=f"rod {rod.rods.names[i]!r} (deformed)")
    for i, points in enumerate(reference):
        label = "reference centrelines" if i == 0 else None
        ax.plot(*points.T, lw=1, ls="--", color="0.6", label=label)
    if rotation is not None:
        scale = 0.05 * float(np.ptp(x, axis=0).max())
        picked = np.arange(0, len(x), directors_every)
        for k, colour in ((0, "tab:red"), (1, "tab:blue")):
            ax.quiver(
                *x[picked].T,
                *(scale * rotation[picked, :, k]).T,
                color=colour,
                lw=0.8,
                label=f"director d{k + 1}",
            )
    all_points = np.vstack([*lines, *reference])
    centre = 0.5 * (all_points.max(axis=0) + all_points.min(axis=0))
    half = 0.5 * float(np.ptp(all_points, axis=0).max()) or 1.0
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_xlabel(f"x [{units}]")
    ax.set_ylabel(f"y [{units}]")
    ax.set_zlabel(f"z [{units}]")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    if filename is not None:
        fig.savefig(filename, dpi=120, bbox_inches="tight")
    return fig
