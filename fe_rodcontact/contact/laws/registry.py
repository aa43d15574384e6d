"""The contact laws by the names that case files use: :data:`LAWS` and :func:`get_law`."""

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

__all__ = ["LAWS", "get_law"]

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
