"""The checks of a contact scene's options: one clear message for each bad one.

:class:`~fe_rodcontact.contact.scene.ContactScene` raises the message on every rank
(:func:`~fe_rodcontact.errors.raise_collectively`); the functions here only say what is wrong
and how to fix it, so that each can be read and tested alone.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.output import ContactOutput
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["CENTRELINES", "attach_problem", "contact_radii", "scene_problem"]

FloatArray = npt.NDArray[np.float64]

CENTRELINES = ("smooth", "basis")
"""Centrelines of the search and the contact points: the cubic B-spline through the nodes (P1
rods), or the finite-element interpolation (the P1 polyline, the P2 curve)."""


def contact_radii(rod: CosseratRod, radii: npt.ArrayLike | None) -> tuple[FloatArray, str | None]:
    """The contact radius of each rod (``radii``, or the sections'), and what is wrong with them.

    Args:
        rod: The rods.
        radii: One radius per rod, or ``None`` for the sections' radii.

    Returns:
        The radii (empty when they are not numbers) and a message, or ``None`` when they are
        one positive number per rod.
    """
    rods = rod.rods
    values = [s.radius for s in rod.sections] if radii is None else radii
    try:
        radius_values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        radius_values = np.zeros(0)  # not numbers: reported as such below
    if len(radius_values) != rods.num_rods:
        return radius_values, f"radii must be {rods.num_rods} numbers, one per rod, got {radii!r}."
    bad = ~(np.isfinite(radius_values) & (radius_values > 0))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        return radius_values, (
            f"rod {rods.names[i]!r} has contact radius {float(radius_values[i])!r}; give its "
            "section a radius (Section.circular(radius=...) or Section(..., radius=...)), "
            "or give radii."
        )
    return radius_values, None


def scene_problem(
    rod: CosseratRod,
    *,
    margin: object,
    centreline: object,
    line_points: object,
    output_every: object,
    output: object,
) -> str | None:
    """What is wrong with a scene's options (see :class:`ContactScene`'s arguments), or None."""
    degree = rod.rods.degree
    if margin is not None:
        try:
            arguments.positive("margin", margin)
        except InputError as error:
            return (
                f"{error}; take a fraction of the rod radius (e.g. 0.1 R) plus the distance "
                "the rods move in one step."
            )
    if centreline is not None and centreline not in CENTRELINES:
        return f"unknown centreline {centreline!r}; use one of {list(CENTRELINES)}."
    if centreline == "smooth" and degree != 1:
        return "the smooth centreline needs P1 rods; use centreline='basis' for P2 rods."
    if line_points is not None and not (isinstance(line_points, int) and line_points >= 1):
        return f"line_points must be a positive integer, got {line_points!r}."
    if not (isinstance(output_every, int) and output_every >= 0):
        return f"output_every must be an integer >= 0, got {output_every!r}."
    if output is not None and not isinstance(output, ContactOutput):
        return (
            f"output must be a ContactOutput (e.g. ContactSeriesWriter), got "
            f"{type(output).__name__}."
        )
    return None


def attach_problem(
    *,
    same_rods: bool,
    attached: bool,
    no_targets: bool,
    one_point: bool,
    line_points: int,
    refused: list[str],
) -> str | None:
    """Why a scene cannot join a problem, or None.

    Args:
        same_rods: Whether the problem's rods are the scene's.
        attached: Whether the scene is already in a problem.
        no_targets: Whether the scene has no target.
        one_point: Whether a model needs one contact point per element (rolling contact).
        line_points: The contact points per element of a line contact.
        refused: The models' reasons for refusing the problem's scheme.
    """
    if not same_rods:
        return (
            "the contact scene was built on other rods than the problem's; build it on the "
            "CosseratRod you give the problem: ContactScene(rod, ...)."
        )
    if attached:
        return (
            "this contact scene is already in a problem; make one scene per problem "
            "(its models hold the state of that problem's run)."
        )
    if no_targets:
        return "the contact scene has no target: add an obstacle, a pair of rods, 'rods' or 'self'."
    if one_point and line_points != 1:
        return (
            f"line_points = {line_points}, but rolling contact needs one contact point per "
            "element of a line contact: leave line_points unset (or 1)."
        )
    return " ".join(refused) or None
