"""The state of a rolling contact model: that of the step being solved, and that of the run.

:class:`StepState` is rebuilt when a step begins and changes while its solves move the points
(the active contacts, their points, impacts, sliding switches); :class:`RunState` is what the
model keeps from one accepted step to the next (the active and sliding contacts, the last
multipliers and points, the energy lost so far, the records) and writes into checkpoints.
A failed step goes back to a :func:`copied` pair of both.
"""

import copy
from dataclasses import dataclass, field, fields

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.tracking import (
    ContactSet,
    contact_set_arrays,
    contact_set_from_arrays,
)
from fe_rodcontact.contact.records import Record, records_from_arrays, records_to_arrays
from fe_rodcontact.contact.rolling.active import ActiveContacts
from fe_rodcontact.contact.rolling.records import per_contact, step_summary

__all__ = ["RunState", "StepState", "copied"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class StepState:
    """The step being solved.

    Attributes:
        t: Its start.
        dt: Its size.
        points: The active contacts and their points (``None`` before the first step).
        start: The active contacts at tₙ (their closest points there).
        end_gaps: The gaps at the end configuration's closest points, after the last solve.
        end_tangency: How far those points are from tangency.
        impacting: The contacts whose impact is this step.
        sliding: The contacts that slide in this step.
        switched: The contacts that switched between rolling and sliding in this step.
        gap_change: The largest change of a held gap that the last solve left (relative to
            R_a + R_b; ``inf`` before the first solve and after the contact set changed).
        tracked: Every contact found at tₙ (candidates for impacts) and their identities.
        tracked_ids: Their identities.
        contacts: The contacts the step began from (all of the model's targets).
    """

    t: float = 0.0
    dt: float = 0.0
    points: ActiveContacts | None = None
    start: RawContacts = field(default_factory=RawContacts.empty)
    end_gaps: FloatArray = field(default_factory=lambda: np.zeros(0))
    end_tangency: FloatArray = field(default_factory=lambda: np.zeros(0))
    impacting: set[int] = field(default_factory=set)
    sliding: set[int] = field(default_factory=set)
    switched: set[int] = field(default_factory=set)
    gap_change: float = np.inf
    tracked: RawContacts = field(default_factory=RawContacts.empty)
    tracked_ids: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    contacts: ContactSet | None = None


@dataclass
class RunState:
    """What the model keeps from one accepted step to the next (its checkpoint).

    Attributes:
        step: The steps accepted.
        committed: The contacts active in the last accepted step.
        committed_sliding: Those of them that slid.
        multipliers: The last multipliers by contact.
        previous_points: The last accepted step's points (s_a, s_b) by contact.
        previous_set: The contacts the last accepted step began from.
        impact_energy_loss: The energy that impacts took so far.
        friction_energy_loss: The work of sliding friction so far.
        obstacle_work: The work of moving obstacles on the rods so far.
        last: The diagnostics of the last accepted step.
        records: One row per contact and accepted step.
    """

    step: int = 0
    committed: set[int] = field(default_factory=set)
    committed_sliding: set[int] = field(default_factory=set)
    multipliers: dict[int, FloatArray] = field(default_factory=dict)
    previous_points: dict[int, tuple[float, float]] = field(default_factory=dict)
    previous_set: ContactSet | None = None
    impact_energy_loss: float = 0.0
    friction_energy_loss: float = 0.0
    obstacle_work: float = 0.0
    last: dict[str, float] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)

    def accept(
        self, now: StepState, rows: list[Record], guesses: RawContacts, *, obstacle_work: float
    ) -> None:
        """The step ``now`` was accepted with these records; ``guesses`` start the next one.

        Args:
            now: The accepted step.
            rows: Its records, one per active contact.
            guesses: Per active contact, the points the next step's guess moves on from.
            obstacle_work: The work of moving obstacles on the rods in the step.
        """
        assert now.points is not None
        ids = now.points.ids
        self.records.extend(rows)
        self.obstacle_work += obstacle_work
        self.impact_energy_loss += sum(r["impact_loss"] for r in rows)
        self.friction_energy_loss += sum(r["friction_loss"] for r in rows)
        self.committed = {int(i) for i in ids}
        self.committed_sliding = now.sliding & self.committed
        self.previous_points = {
            int(i): (float(guesses.s_a[j]), float(guesses.s_b[j])) for j, i in enumerate(ids)
        }
        self.step += 1
        self.previous_set = now.contacts
        self.last = step_summary(
            rows,
            per_contact(now.end_gaps, len(ids)),
            impact_energy_loss=self.impact_energy_loss,
            friction_energy_loss=self.friction_energy_loss,
        )

    def adopt(self, pairs: list[tuple[int, int]]) -> None:
        """Active contacts that the tracker gave new identities go on under them.

        Args:
            pairs: (old identity, new identity); the multiplier and the sliding state move,
                the guess of the points does not (no guess across the jump).
        """
        for was, now in pairs:
            self.committed = (self.committed - {was}) | {now}
            if was in self.committed_sliding:
                self.committed_sliding = (self.committed_sliding - {was}) | {now}
            if was in self.multipliers:
                self.multipliers[now] = self.multipliers.pop(was)
            self.previous_points.pop(was, None)

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The state as named arrays, the same on every rank."""
        out: dict[str, npt.NDArray[np.generic]] = {}
        if self.previous_set is not None:
            out.update({f"start_{k}": v for k, v in contact_set_arrays(self.previous_set).items()})
        out["committed"] = np.array(sorted(self.committed), dtype=np.int64)
        out["committed_sliding"] = np.array(sorted(self.committed_sliding), dtype=np.int64)
        ids = sorted(self.multipliers)
        out["multiplier_ids"] = np.array(ids, dtype=np.int64)
        out["multipliers"] = np.array([self.multipliers[i] for i in ids]).reshape(-1, 3)
        points = sorted(self.previous_points)
        out["point_ids"] = np.array(points, dtype=np.int64)
        out["points"] = np.array([self.previous_points[i] for i in points]).reshape(-1, 2)
        out["scalars"] = np.array(
            [
                self.step,
                1.0,
                self.impact_energy_loss,
                self.friction_energy_loss,
                self.obstacle_work,
            ]
        )
        out.update(records_to_arrays(self.records))
        return out

    @staticmethod
    def from_arrays(
        arrays: dict[str, npt.NDArray[np.generic]], names: tuple[str, ...]
    ) -> "RunState":
        """The state written by :meth:`arrays` (rod names for the contact set's messages)."""
        prefix = "start_"
        step, _, impact_loss, friction_loss, obstacle_work = (float(x) for x in arrays["scalars"])
        return RunState(
            step=int(step),
            committed={int(i) for i in arrays["committed"]},
            committed_sliding={int(i) for i in arrays["committed_sliding"]},
            multipliers={
                int(i): np.array(v, dtype=float)
                for i, v in zip(arrays["multiplier_ids"], arrays["multipliers"], strict=True)
            },
            previous_points={
                int(i): (float(v[0]), float(v[1]))
                for i, v in zip(arrays["point_ids"], arrays["points"], strict=True)
            },
            previous_set=contact_set_from_arrays(
                {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}, names
            ),
            impact_energy_loss=impact_loss,
            friction_energy_loss=friction_loss,
            obstacle_work=obstacle_work,
            records=records_from_arrays(arrays),
        )


def copied[State: (StepState, RunState)](state: State) -> State:
    """A copy with new sets, dicts and lists (arrays and contact sets never change in place).

    The records are shared: a restore cuts them back to their length at the copy.
    """
    out = copy.copy(state)
    for f in fields(state):
        value = getattr(state, f.name)
        if isinstance(value, set | dict | list) and f.name != "records":
            setattr(out, f.name, copy.copy(value))
    return out
