"""Checks of the arguments a user gives: numbers, counts, switches, names.

Each check returns the value in its Python type or raises an
:class:`~fe_rodcontact.errors.InputError` whose message starts with ``name`` (the argument as
the user wrote it, e.g. ``"RepulsiveLaw: coefficient"`` or ``"touch_tolerance"``) and says what
the value must be, so a wrong type fails where the object is built, with one line, instead of
with a TypeError deep inside a step. ``fix`` adds a hint after the value.
"""

import numbers

import numpy as np

from fe_rodcontact.errors import InputError

__all__ = ["finite", "flag", "integer", "non_negative", "positive", "text"]


def _hint(fix: str) -> str:
    return f"; {fix}" if fix else ""


def finite(name: str, value: object, fix: str = "") -> float:
    """``value`` as a float, after checking it is a finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a number, got {value!r}{_hint(fix)}")
    number = float(value)
    if not np.isfinite(number):
        raise InputError(f"{name} must be finite, got {value!r}{_hint(fix)}")
    return number


def positive(name: str, value: object, fix: str = "") -> float:
    """``value`` as a float, after checking it is a finite number > 0."""
    number = finite(name, value, fix)
    if number <= 0.0:
        raise InputError(f"{name} must be positive, got {value!r}{_hint(fix)}")
    return number


def non_negative(name: str, value: object, fix: str = "") -> float:
    """``value`` as a float, after checking it is a finite number ≥ 0."""
    number = finite(name, value, fix)
    if number < 0.0:
        raise InputError(f"{name} must be non-negative, got {value!r}{_hint(fix)}")
    return number


def integer(name: str, value: object, minimum: int = 0, fix: str = "") -> int:
    """``value`` as an int, after checking it is an integer ≥ ``minimum`` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}{_hint(fix)}")
    return int(value)


def flag(name: str, value: object) -> bool:
    """``value``, after checking it is True or False (a string such as ``"no"`` is not)."""
    if not isinstance(value, bool | np.bool_):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def text(name: str, value: object) -> str:
    """``value``, after checking it is a non-empty string."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{name} must be a non-empty string, got {value!r}")
    return value
