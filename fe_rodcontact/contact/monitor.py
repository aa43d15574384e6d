"""The contact search as a step monitor: contact sets, events and contact-point output per step.

:class:`ContactMonitor` updates its :class:`~fe_rodcontact.contact.ContactTracker` after every
accepted step of a :class:`~fe_rodcontact.stepping.dynamics.DynamicProblem` (and at t = 0, where the
starting configuration is checked for interpenetration), optionally writes the contact points
for ParaView, and adds to the time series:

- ``contacts``: the number of contacts (point contacts and line-contact points);
- ``min_gap``: the smallest gap (inf without contact);
- ``contacts_new`` and ``contacts_released``: events at this step.

The history of contact sets (:attr:`ContactMonitor.history`) is kept when ``keep_history``.
"""

from fe_rodcontact.contact.geometry.tracking import ContactSet, ContactTracker
from fe_rodcontact.io.contact_points import ContactPointWriter

__all__ = ["ContactMonitor"]


class ContactMonitor:
    """Contact detection after every accepted step.

    Args:
        tracker: The tracker (with its search) to update.
        writer: Optional contact-point output, written every ``write_every`` steps.
        write_every: Steps between contact-point frames.
        keep_history: Keep every snapshot in :attr:`history`.
    """

    def __init__(
        self,
        tracker: ContactTracker,
        writer: ContactPointWriter | None = None,
        *,
        write_every: int = 1,
        keep_history: bool = False,
    ):
        self._tracker = tracker
        self._writer = writer
        self._every = max(int(write_every), 1)
        self._keep = keep_history
        self.history: list[ContactSet] = []

    @property
    def tracker(self) -> ContactTracker:
        """The contact tracker."""
        return self._tracker

    @property
    def current(self) -> ContactSet | None:
        """The contact set of the last observed step."""
        return self._tracker.current

    def observe(self, step: int, t: float) -> None:
        """Search the configuration of ``step`` and write its contact points (collective)."""
        snapshot = self._tracker.update(step, t, check_start=step == 0)
        if self._keep:
            if self.history and self.history[-1].step >= step:
                self.history = [s for s in self.history if s.step < step]
            self.history.append(snapshot)
        if self._writer is not None and step % self._every == 0:
            self._writer.write(snapshot)

    def record(self) -> dict[str, float]:
        """Number of contacts, smallest gap and events of the last observed step."""
        snapshot = self._tracker.current
        if snapshot is None:
            return {}
        return {
            "contacts": float(len(snapshot)),
            "min_gap": snapshot.min_gap,
            "contacts_new": float(len(snapshot.new)),
            "contacts_released": float(len(snapshot.released)),
        }
