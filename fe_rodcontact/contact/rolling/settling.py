"""Where a step's rolling contact points go after a solve, and when they have settled.

After a solve, the search of the end configuration gives each active contact's closest points
σₙ₊₁ and its least distance there (the contacts the active ones became,
:func:`~fe_rodcontact.contact.rolling.changes.follow_contacts`). :func:`place_points` then puts
the step's points σ

- on the energy–momentum step's increment rows: on the segment between σₙ and σₙ₊₁, where the
  distance exceeds its least value by as much at tₙ as at tₙ₊₁
  (:meth:`~fe_rodcontact.contact.geometry.placement.PointPlacement.equal_excess_points`), so
  that the step's exact |Dₙ₊₁(σ)| = |Dₙ(σ)| carries over to the true gap, gₙ₊₁ = gₙ;
- on rows at tₙ₊₁ (generalized-α): at the end configuration's closest points.

Line-contact points and those at a rod's end are material points and stay. The points the
solve used have settled when the gaps they left are within the tolerance
(:func:`~fe_rodcontact.contact.rolling.changes.points_settled`); otherwise the step is solved
again with the new ones.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import MODE_LINE, RawContacts
from fe_rodcontact.contact.geometry.matching import Matches
from fe_rodcontact.contact.geometry.placement import PointPlacement
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.contact.rolling.active import ActiveContacts
from fe_rodcontact.contact.rolling.changes import points_settled, reach
from fe_rodcontact.contact.rolling.state import StepState

__all__ = ["place_points"]

FloatArray = npt.NDArray[np.float64]


def place_points(
    now: StepState,
    found: RawContacts,
    matches: Matches,
    placement: PointPlacement,
    stencils: CentrelineStencils,
    radii: FloatArray,
    *,
    at_end: bool,
    tolerance: float,
    previous: float,
) -> bool:
    """Move the step's points for the end configuration ``found``; whether they moved.

    Records in ``now`` the end gaps and tangency, and the largest gap change the solve left.

    Args:
        now: The step (its active contacts and their points).
        found: The contacts of the end configuration.
        matches: Which rows of ``found`` the active contacts became.
        placement: Where points go.
        stencils: The centreline's stencils.
        radii: The rods' contact radii.
        at_end: Whether the rows are at tₙ₊₁ (generalized-α), not on the increment.
        tolerance: The settle tolerance (relative to R_a + R_b).
        previous: The largest gap change the solve before left (``inf`` if none).

    Returns:
        Whether the points moved (solve the step again).
    """
    assert now.points is not None
    end = found.take(matches.new)
    end_a, end_b = matches.ends(found)
    now.end_gaps = end.gap.copy()
    now.end_tangency = np.where(end.at_end, np.nan, np.max(np.abs(end.tangency), axis=1))
    current = now.points.contacts
    fixed = (now.start.mode == MODE_LINE) | now.start.at_end
    if at_end:  # rows at tₙ₊₁: the end configuration's closest points
        sigma_a, sigma_b = placement.end_points(now.start, end_a, end_b, fixed)
    else:
        sigma_a, sigma_b, _ = placement.equal_excess_points(
            now.start, end_a, end_b, now.t, now.dt, fixed
        )
    impacting = np.isin(now.points.ids, np.fromiter(now.impacting, np.int64))
    gap_change = np.abs(end.gap - now.start.gap) / reach(radii, now.start)
    settled, now.gap_change = points_settled(
        gap_change,
        placement.shifts(current, sigma_a, sigma_b),
        ~(fixed | impacting),
        tolerance=tolerance,
        previous=previous,
    )
    if settled:
        return False
    moved = placement.moved(current, sigma_a, sigma_b)
    now.points = ActiveContacts.build(stencils, moved, now.points.ids)
    return True
