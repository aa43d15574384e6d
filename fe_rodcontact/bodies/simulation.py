"""Time stepping of a body to an end time, with step cutting, and its time series.

:func:`advance` takes steps of ``dt`` and lands on ``t_end``; a step whose Newton solve fails
or whose iterate penetrates a plane (a power law meets a gap ≤ 0) is undone and retried with
half the step, down to ``min_dt``; after 4 steps at a reduced size, the last of which took
≤ 8 Newton iterations, the step doubles again towards ``dt``. Every accepted step is
recorded (:class:`History`).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.body import Body
from fe_rodcontact.contact.laws import GapError
from fe_rodcontact.errors import ConvergenceError

__all__ = ["History", "advance"]

FloatArray = npt.NDArray[np.float64]

ENERGIES = (
    "kinetic",
    "elastic",
    "gravity",
    "contact",
    "dissipated",
    "contact_work",
    "supplied",
    "balance",
)


@dataclass
class History:
    """The time series of a run: one row per accepted step (and the start).

    ``series`` holds ``t``, ``position`` (the centroid p_o), the energies (``kinetic``,
    ``elastic``, ``gravity``, ``contact``, ``dissipated``, ``contact_work``, ``supplied``,
    ``balance``), the
    Newton ``iterations`` of each step and what ``observe`` returned.
    """

    series: dict[str, list[FloatArray | float]] = field(default_factory=dict)
    cuts: int = 0

    def append(self, values: dict[str, FloatArray | float]) -> None:
        """Add one row."""
        for key, value in values.items():
            self.series.setdefault(key, []).append(value)

    def __getitem__(self, key: str) -> FloatArray:
        return np.asarray(self.series[key], dtype=float)

    def arrays(self) -> dict[str, FloatArray]:
        """Every series as an array (for ``np.savez``)."""
        return {key: self[key] for key in self.series}


def _row(
    body: Body, iterations: int, observe: Callable[[Body], dict[str, FloatArray | float]] | None
) -> dict[str, FloatArray | float]:
    energies = body.energies()
    row: dict[str, FloatArray | float] = {"t": body.time, "position": body.position}
    row.update({name: getattr(energies, name) for name in ENERGIES})
    row["iterations"] = float(iterations)
    if observe is not None:
        row.update(observe(body))
    return row


def advance(
    body: Body,
    t_end: float,
    dt: float,
    *,
    min_dt: float | None = None,
    observe: Callable[[Body], dict[str, FloatArray | float]] | None = None,
    history: History | None = None,
) -> History:
    """Step ``body`` from its time to ``t_end`` with steps of at most ``dt``.

    Args:
        body: The body (its state advances).
        t_end: The end time.
        dt: The step size (the largest).
        min_dt: The smallest step before giving up (default ``dt/1024``).
        observe: Extra quantities to record after each step, by name.
        history: A history to continue (default: a new one, starting with the current state).

    Raises:
        ConvergenceError: A step failed at ``min_dt``.
    """
    end = arguments.finite("advance: t_end", t_end)
    largest = arguments.positive("advance: dt", dt)
    smallest = largest / 1024 if min_dt is None else arguments.positive("advance: min_dt", min_dt)
    if history is None:
        history = History()
        history.append(_row(body, 0, observe))
    h, easy = largest, 0
    while body.time < end - 1e-12 * max(abs(end), largest):
        step = min(h, end - body.time)
        saved = body.snapshot()
        try:
            report = body.step(step)
        except (ConvergenceError, GapError) as error:
            body.restore(saved)
            h, easy = 0.5 * h, 0
            history.cuts += 1
            if h < smallest:
                raise ConvergenceError(
                    f"body {body.name!r}: a step failed at t = {body.time:.6g} with dt = "
                    f"{2 * h:.3g} (smallest {smallest:.3g}): {error}"
                ) from error
            continue
        history.append(_row(body, report.iterations, observe))
        easy += 1
        if h < largest and easy >= 4 and report.iterations <= 8:
            h, easy = min(2.0 * h, largest), 0
    return history
