"""Step monitors: things a time loop tells about every accepted step (no effect on the solve).

A monitor implements :class:`StepMonitor`: :meth:`StepMonitor.observe` is called once the
configuration of step ``step`` at time ``t`` is final (t = 0 included), collectively on every
rank, and :meth:`StepMonitor.record` returns the scalars it adds to that step's row of the time
series. :class:`~fe_rodcontact.stepping.dynamics.DynamicProblem` takes a sequence of them
(``monitors=``); contact has its own (the contact scene's scalars join the same row).
"""

from typing import Protocol

__all__ = ["StepMonitor"]


class StepMonitor(Protocol):
    """Something told about every accepted step."""

    def observe(self, step: int, t: float) -> None:
        """The configuration of ``step`` at time ``t`` is final (collective)."""

    def record(self) -> dict[str, float]:
        """Scalars for this step's row of the time series."""
        ...
