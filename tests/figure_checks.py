"""What makes a saved figure read alone: a title, and axes labelled (the demos' pictures)."""

import matplotlib.axes
import matplotlib.figure


def _labelled(ax: matplotlib.axes.Axes, axis: str) -> bool:
    """Whether ``ax`` or an axes that shares this axis with it carries its label."""
    group = ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()
    return any(getattr(a, f"get_{axis}label")() for a in group.get_siblings(ax))


def figure_problems(figure: matplotlib.figure.Figure, name: str) -> list[str]:
    """What a figure lacks: per axes with data, a title (its own or the figure's), x and y
    labels (its own or a sharing axes'), a z label in 3D; a colour bar's label."""
    suptitle = figure.get_suptitle()
    problems = []
    for i, ax in enumerate(figure.axes):
        where = f"{name}, axes {i}"
        if ax.get_label() == "<colorbar>":
            if not (ax.get_xlabel() or ax.get_ylabel()):
                problems.append(f"{where}: colour bar without a label")
            continue
        if not (ax.lines or ax.images or ax.collections or ax.patches):
            continue
        if not (ax.get_title() or suptitle):
            problems.append(f"{where}: no title")
        for axis in ("x", "y"):
            if not _labelled(ax, axis):
                problems.append(f"{where}: no {axis} label")
        if ax.name == "3d" and not ax.get_zlabel():
            problems.append(f"{where}: no z label")
    return problems
