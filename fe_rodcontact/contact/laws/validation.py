"""Checks of contact-law inputs: gaps of the power laws and the laws' parameters.

A bad value fails where the law is built or called, with an
:class:`~fe_rodcontact.errors.InputError` that names the law, the parameter and the value.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.errors import InputError

__all__ = [
    "GapError",
    "check_finite",
    "check_gap",
    "check_non_negative",
    "check_positive",
    "overflow_message",
]

FloatArray = npt.NDArray[np.float64]


class GapError(InputError):
    """A power law met a gap ``≤ 0`` (or not finite), where it is singular.

    A subclass of :class:`InputError` (a case that starts in contact is bad input); a time
    integrator may catch it to cut a step whose Newton iterate penetrated. Raised on the rank
    that holds the contact: callers in parallel code pass the message through
    :func:`~fe_rodcontact.errors.raise_collectively`.
    """


def check_gap(gap: npt.ArrayLike, law: str) -> FloatArray:
    """Return ``gap`` as a float array after checking that every entry is positive and finite.

    Args:
        gap: Gaps, any shape.
        law: The name of the law, for the message.

    Raises:
        GapError: Naming the law, the worst gap and its index.
    """
    g = np.asarray(gap, dtype=np.float64)
    bad = ~(np.isfinite(g) & (g > 0.0))
    if np.any(bad):
        flat = g.reshape(-1)
        index = int(np.flatnonzero(bad.reshape(-1))[0])
        raise GapError(
            f"{law}: the gap must be positive (the power law is singular at contact), got "
            f"gap={float(flat[index])!r} at contact {index} of {flat.size}; start with the bodies "
            "apart or use a penalty law, and cut the time step if a step penetrates"
        )
    return g


def check_finite(law: str, name: str, value: float) -> float:
    """Return ``value`` as a float after checking that it is a finite number.

    Raises:
        InputError: Naming the law and the parameter ``name``.
    """
    return arguments.finite(f"{law}: {name}", value)


def check_positive(law: str, name: str, value: float, fix: str = "") -> None:
    """Check that ``value`` is a finite positive number.

    Raises:
        InputError: Naming the law and the parameter ``name``, with the hint ``fix``.
    """
    arguments.positive(f"{law}: {name}", value, fix)


def check_non_negative(law: str, name: str, value: float, fix: str = "") -> None:
    """Check that ``value`` is a finite number ``≥ 0``.

    Raises:
        InputError: Naming the law and the parameter ``name``, with the hint ``fix``.
    """
    arguments.non_negative(f"{law}: {name}", value, fix)


def overflow_message(
    law: object, gap: float, what: str, value: FloatArray | float, where: str = ""
) -> str:
    """The message of a law whose ``what`` at ``gap`` (``where``: which gap) is ``value``."""
    return (
        f"{type(law).__name__} overflows at gap {gap:.6g}{where}: its {what} is "
        f"{float(np.max(value))!r}; lower its exponent or coefficient so that its values stay "
        "finite at the gaps of the run"
    )
