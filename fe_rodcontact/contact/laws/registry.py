"""The contact laws by name (:data:`LAWS`, :func:`get_law`) and a check at a run's gaps.

Case files name the laws as in :data:`LAWS`; :func:`first_overflow` checks a model's laws at a
gap the run meets (the search margin, the least gap at the start).
"""

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from fe_rodcontact.contact.laws.dissipative import (
    CoulombFrictionLaw,
    DampingLaw,
    DissipativeLaw,
    FrictionLaw,
)
from fe_rodcontact.contact.laws.normal import (
    AdhesiveLaw,
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.errors import InputError

__all__ = ["LAWS", "first_overflow", "get_law"]

LAWS: dict[str, type[NormalLaw] | type[DissipativeLaw]] = {
    law.name: law
    for law in (
        RepulsiveLaw,
        AdhesiveLaw,
        DampingLaw,
        FrictionLaw,
        LinearPenaltyLaw,
        SmoothPenaltyLaw,
        CoulombFrictionLaw,
    )
}
"""Law classes by case-file name."""


def get_law(name: str, **parameters: Any) -> NormalLaw | DissipativeLaw:
    """Build the law called ``name`` from keyword parameters (a case file's table).

    Raises:
        InputError: For an unknown name, an unknown or missing parameter, or a bad value.
    """
    if name not in LAWS:
        raise InputError(f"unknown contact law {name!r}; choose one of {', '.join(LAWS)}")
    cls = LAWS[name]
    known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    for key in parameters:
        if key not in known:
            raise InputError(
                f"contact law {name!r} has no parameter {key!r}; its parameters are "
                f"{', '.join(known)}"
            )
    try:
        return cls(**parameters)
    except TypeError as error:
        raise InputError(f"contact law {name!r}: {error}") from None


def first_overflow(
    laws: Mapping[str, NormalLaw | DissipativeLaw | None], gap: float, where: str
) -> str | None:
    """``"key: why"`` for the first of ``laws`` (by argument name) that overflows at ``gap``.

    Args:
        laws: The laws of a model by the names it takes them (``None``: not given).
        gap: A gap the run meets (the search margin, the least gap at the start).
        where: Which gap it is, for the message (e.g. ``" (the search margin)"``).
    """
    for key, law in laws.items():
        problem = None if law is None else law.overflow_at(gap, where)
        if problem is not None:
            return f"{key}: {problem}"
    return None
