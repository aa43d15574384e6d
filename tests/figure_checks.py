"""What makes a saved figure read alone: a title, axes labelled, legends off the data.

The legends are checked on the drawn figure, in display coordinates: no legend's box (its
frame, less a pixel) may contain a data point of any axes, or be crossed by a segment of a data
line, where the point or segment is drawn (inside its axes). Data are the lines (their vertices
and, unless drawn without a line style, the segments between them) and the points of scatter
collections; images, meshes and filled areas are backgrounds a legend may sit on.
"""

import matplotlib.axes
import matplotlib.collections
import matplotlib.figure
import matplotlib.legend
import matplotlib.lines
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.transforms import Bbox


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


def _inside(points: np.ndarray, box: Bbox) -> np.ndarray:
    """Which display points lie in ``box`` (closed)."""
    return (
        (points[:, 0] >= box.x0)
        & (points[:, 0] <= box.x1)
        & (points[:, 1] >= box.y0)
        & (points[:, 1] <= box.y1)
    )


def _clipped(a: np.ndarray, b: np.ndarray, box: Bbox) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts of the segments a→b inside ``box`` (Liang–Barsky), and which segments have one."""
    start, end = np.zeros(len(a)), np.ones(len(a))
    d = b - a
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, (low, high) in enumerate(((box.x0, box.x1), (box.y0, box.y1))):
            t1, t2 = (low - a[:, k]) / d[:, k], (high - a[:, k]) / d[:, k]
            flat = d[:, k] == 0
            outside = flat & ((a[:, k] < low) | (a[:, k] > high))
            start = np.where(
                flat, np.where(outside, 2.0, start), np.maximum(start, np.minimum(t1, t2))
            )
            end = np.where(flat, end, np.minimum(end, np.maximum(t1, t2)))
    hit = start <= end
    return a + start[:, None] * d, a + end[:, None] * d, hit


def _data(ax: matplotlib.axes.Axes) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Display coordinates of the axes' data points, and its line segments (start, end)."""
    points = [np.empty((0, 2))]
    segments = []
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        finite = np.isfinite(xy).all(axis=1)
        if line.get_marker() not in ("None", "", " ", None):
            points.append(xy[finite])
        if line.get_linestyle() not in ("None", "", " ") and len(xy) > 1:
            both = finite[:-1] & finite[1:]
            segments.append((xy[:-1][both], xy[1:][both]))
    for collection in ax.collections:
        if (
            isinstance(collection, matplotlib.collections.PathCollection)
            and collection.get_visible()
        ):
            offsets = np.asarray(collection.get_offsets(), dtype=float)
            if len(offsets):
                xy = collection.get_offset_transform().transform(offsets)
                points.append(xy[np.isfinite(xy).all(axis=1)])
    return np.vstack(points), segments


def legend_problems(figure: matplotlib.figure.Figure, name: str) -> list[str]:
    """Legends that cover data: per legend of an axes or of the figure, the first axes (and
    how many of its points or segments) whose drawn data lie under the legend's box."""
    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):  # a Figure made without pyplot
        canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    legends: list[tuple[str, matplotlib.legend.Legend]] = [
        (f"figure legend {i}", legend) for i, legend in enumerate(figure.legends)
    ]
    data_axes = [ax for ax in figure.axes if ax.get_label() != "<colorbar>"]
    for i, ax in enumerate(figure.axes):
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            legends.append((f"legend of axes {i}", legend))
    problems = []
    for where, legend in legends:
        box = legend.get_window_extent(renderer).padded(-1.0)
        for i, ax in enumerate(figure.axes):
            if ax not in data_axes:
                continue
            frame = ax.get_window_extent(renderer)
            under = Bbox.intersection(box, frame)
            if under is None or under.width <= 0 or under.height <= 0:
                continue
            points, segments = _data(ax)
            covered = int(_inside(points, under).sum())
            for a, b in segments:
                covered += int(_clipped(a, b, under)[2].sum())
            if covered:
                problems.append(f"{name}, {where}: covers {covered} data of axes {i}")
                break
    return problems


def tick_label_problems(figure: matplotlib.figure.Figure, name: str) -> list[str]:
    """Tick labels printed over each other: per axis, neighbouring labels (major and minor,
    those drawn) whose boxes overlap, on the drawn figure."""
    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    problems = []
    for i, ax in enumerate(figure.axes):
        if ax.name == "3d":
            continue
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            low, high = sorted(axis.get_view_interval())
            boxes = []
            for which in ("major", "minor"):
                ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
                for tick in ticks:
                    if not (low - 1e-12 * abs(high - low) <= tick.get_loc() <= high * (1 + 1e-12)):
                        continue
                    for label in (tick.label1, tick.label2):
                        if label.get_visible() and label.get_text():
                            boxes.append(label.get_window_extent(renderer).padded(-0.5))
            for k, a in enumerate(boxes):
                clash = [b for b in boxes[k + 1 :] if a.overlaps(b)]
                if clash:
                    problems.append(f"{name}, axes {i}: {axis_name} tick labels overlap")
                    break
    return problems
