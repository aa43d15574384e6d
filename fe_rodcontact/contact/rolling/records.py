"""The records of rolling contacts: one row per contact and accepted step.

Used by :class:`~fe_rodcontact.contact.rolling.model.RollingContact`. :func:`contact_record` is
one contact's row (its point, normal, force, slip, gap, cone ratio and the energy that an impact
or sliding took), :func:`step_summary` the step's diagnostics (their storage:
:mod:`fe_rodcontact.contact.records`).
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.records import Record
from fe_rodcontact.contact.rolling.geometry import relative_increment

if TYPE_CHECKING:
    from fe_rodcontact.contact.rolling.state import RunState, StepState

__all__ = [
    "contact_fields",
    "contact_record",
    "obstacle_work",
    "per_contact",
    "start_summary",
    "step_records",
    "step_summary",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def contact_record(
    geometry: dict,
    multiplier: FloatArray,
    *,
    step: int,
    t: float,
    identity: int,
    kind: int,
    rod_a: int,
    rod_b: int,
    s_a: float,
    s_b: float,
    gap: float,
    tangency: float,
    impact_geometry: dict | None,
    sliding: bool,
    dt: float,
    step_size: float,
    friction_coefficient: float | None,
) -> Record:
    """The record of one contact in an accepted step.

    Args:
        geometry: :meth:`~fe_rodcontact.contact.rolling.geometry.GroupGeometry.contact` of the
            contact at the step's end.
        multiplier: Its multiplier μ (the force on rod a is −μ).
        step: The step's number (from 1).
        t: The step's end time.
        identity: The contact's identity.
        kind: Between rods, of a rod with itself, or with an obstacle
            (:data:`~fe_rodcontact.contact.geometry.contacts.KIND_ROD`, ``KIND_SELF``,
            ``KIND_OBSTACLE``).
        rod_a: The index of rod a.
        rod_b: The index of rod b, or of the obstacle.
        s_a: Its material point on rod a.
        s_b: Its material point on rod b (or the obstacle's coordinate).
        gap: The gap at the end configuration's closest points (NaN if not searched).
        tangency: How far those points are from tangency (NaN if not searched).
        impact_geometry: The geometry of its rolling rows when its impact is in this step (the
            energy μ·(BΔq − Δt V) the impact took), else ``None``.
        sliding: Whether it slid (the work μ·(BΔq − Δt V) of friction against the slip).
        dt: The time that turns a row into a velocity.
        step_size: The step Δt (an obstacle's surface moves by Δt V in it).
        friction_coefficient: k of the friction cone (``None``: no cone ratio).
    """
    mu = multiplier
    loss, friction_loss = 0.0, 0.0
    if impact_geometry is not None:  # the energy the impact took (beyond an obstacle's work)
        loss = float(mu @ relative_increment(impact_geometry, step_size))
    if sliding:  # the work of friction against the slip
        friction_loss = float(mu @ relative_increment(geometry, step_size))
    push = geometry["push"]
    pressure = -float(mu @ push)
    tangential = float(np.linalg.norm(mu + pressure * push))
    slip = float(np.linalg.norm(geometry["constraint"])) / dt
    cone = (
        tangential / (friction_coefficient * abs(pressure))
        if friction_coefficient is not None and pressure != 0
        else float("nan")
    )
    return {
        "step": step,
        "t": t,
        "id": identity,
        "kind": kind,
        "rod_a": rod_a,
        "rod_b": rod_b,
        "s_a": s_a,
        "s_b": s_b,
        **{f"point_{c}": float(v) for c, v in zip("xyz", geometry["point"])},
        **{f"normal_{c}": float(v) for c, v in zip("xyz", -push)},
        **{f"force_{c}": float(-v) for c, v in zip("xyz", mu)},
        "normal_force": pressure,
        "tangential_force": tangential,
        "slip": slip,
        "gap": gap,
        "tangency": tangency,
        "cone_ratio": cone,
        "impact_loss": loss,
        "sliding": float(sliding),
        "friction_loss": friction_loss,
    }


def step_summary(
    rows: Sequence[Record],
    gaps: FloatArray,
    *,
    impact_energy_loss: float,
    friction_energy_loss: float,
) -> dict[str, float]:
    """The diagnostics of an accepted step.

    Args:
        rows: The step's records.
        gaps: The step's end gaps.
        impact_energy_loss: The energy that impacts took so far.
        friction_energy_loss: The work of friction so far.
    """
    return {
        "rolling_contacts": float(len(rows)),
        "max_slip": max((r["slip"] for r in rows), default=0.0),
        "max_gap": max((abs(g) for g in gaps), default=0.0),
        "max_cone_ratio": max((r["cone_ratio"] for r in rows), default=float("nan")),
        "impact_energy_loss": impact_energy_loss,
        "friction_energy_loss": friction_energy_loss,
    }


def obstacle_work(
    ids: IntArray, multipliers: dict[int, FloatArray], geometries: Sequence[dict], dt: float
) -> float:
    """The work of moving obstacles on the rods in a step, −Δt μ·V (the force on rod a is −μ).

    Args:
        ids: The identities of the step's active contacts.
        multipliers: The step's multiplier by contact identity.
        geometries: The geometry of each active contact (its obstacle surface's velocity V; 0
            between rods).
        dt: The step size.
    """
    return -dt * sum(
        float(multipliers.get(int(i), np.zeros(3)) @ geometry["surface_velocity"])
        for i, geometry in zip(ids, geometries, strict=True)
    )


def start_summary(
    rolling_contacts: int, gaps: FloatArray, friction_coefficient: float | None
) -> dict[str, float]:
    """The diagnostics before the first step, in the keys of :func:`step_summary`.

    Nothing has slipped over a step and no force has acted: the slip and the cone ratio are 0
    (NaN without a friction coefficient, as after), the gap error that of the contacts found.

    Args:
        rolling_contacts: The contacts that roll.
        gaps: The gaps of the contacts found at the start.
        friction_coefficient: The cone's k, if any.
    """
    return {
        "rolling_contacts": float(rolling_contacts),
        "max_slip": 0.0,
        "max_gap": float(np.max(np.abs(gaps), initial=0.0)),
        "max_cone_ratio": float("nan") if friction_coefficient is None else 0.0,
        "impact_energy_loss": 0.0,
        "friction_energy_loss": 0.0,
    }


def per_contact(values: FloatArray, n: int) -> FloatArray:
    """``values`` when they are one per active contact, else NaN (not measured this step)."""
    return values if len(values) == n else np.full(n, np.nan)


def step_records(
    now: "StepState",
    run: "RunState",
    geometries: Sequence[dict],
    raw: Sequence[dict],
    *,
    t: float,
    dt: float,
    step_size: float,
    friction_coefficient: float | None,
) -> list[Record]:
    """The records of an accepted step, one per active contact.

    Args:
        now: The step.
        run: The run so far (the multipliers, the number of steps).
        geometries: :meth:`~fe_rodcontact.contact.rolling.geometry.GroupGeometry.contact` of
            each active contact, in the step's order (impacts: with the impact's rows).
        raw: The same with every contact's rolling rows (for an impact's loss).
        t: The step's end time.
        dt: The time that turns a row into a velocity.
        step_size: The step Δt.
        friction_coefficient: k of the friction cone.
    """
    points = now.points
    assert points is not None
    n = len(points.ids)
    gaps, tangency = per_contact(now.end_gaps, n), per_contact(now.end_tangency, n)
    rows = []
    for i, identity in enumerate(int(j) for j in points.ids):
        impact = identity in now.impacting
        rows.append(
            contact_record(
                geometries[i],
                run.multipliers.get(identity, np.zeros(3)),
                step=run.step + 1,
                t=t,
                identity=identity,
                kind=int(points.contacts.kind[i]),
                rod_a=int(points.contacts.rod_a[i]),
                rod_b=int(points.contacts.rod_b[i]),
                s_a=float(points.contacts.s_a[i]),
                s_b=float(points.contacts.s_b[i]),
                gap=float(gaps[i]),
                tangency=float(tangency[i]),
                impact_geometry=raw[i] if impact else None,
                sliding=identity in now.sliding and not impact,
                dt=dt,
                step_size=step_size,
                friction_coefficient=friction_coefficient,
            )
        )
    return rows


def contact_fields(
    records: Sequence[Record], ids: npt.ArrayLike, step: int
) -> dict[str, npt.NDArray[np.float64]]:
    """The forces and slip of step ``step``'s records at the contacts ``ids`` (by identity).

    A contact that did not roll in the step has no force (zero) and an unmeasured slip (NaN);
    before the first step every field is NaN (the multipliers are not known). The records'
    ``slip`` is the output's ``slip_velocity``.

    Args:
        records: The run's records, in step order (the step's are the last ones).
        ids: The identities of the contacts, in the output's order.
        step: The step whose records are written.
    """
    identities = np.asarray(ids)
    keys = ("normal_force", "tangential_force", "slip")
    out = {key: np.full(len(identities), np.nan) for key in keys}
    if step != 0:
        out["normal_force"][:] = 0.0
        out["tangential_force"][:] = 0.0
        rows = {int(identity): i for i, identity in enumerate(identities)}
        for record in reversed(records):
            if record["step"] != step:
                break
            i = rows.get(int(record["id"]))
            if i is not None:
                for key in keys:
                    out[key][i] = record[key]
    return {("slip_velocity" if key == "slip" else key): v for key, v in out.items()}
