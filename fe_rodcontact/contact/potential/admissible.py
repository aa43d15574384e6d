"""Which configurations a singular potential admits: every gap positive.

Tatone's power laws are singular at g = 0, and their discrete energy is finite again on the
other side, so a step that ends with a gap ≤ 0 has jumped the barrier: it must be cut, never
accepted. The start is checked as an input (:meth:`check_start` of each model); the end of every
step by :func:`closed_gap_problem`, which each potential model's ``check_end`` raises as a
:class:`~fe_rodcontact.contact.geometry.tracking.ContactError`.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.tracking import ContactNames

__all__ = ["closed_gap_problem"]


def closed_gap_problem(
    contacts: RawContacts,
    singular: npt.NDArray[np.bool_],
    law: str,
    names: ContactNames,
    t: float,
) -> str | None:
    """Why the end configuration of the step from ``t`` is refused, or ``None``.

    Args:
        contacts: The contacts of the end configuration.
        singular: (n,) whether each contact's law is singular at g = 0.
        law: The singular law's name, for the message.
        names: The names of the rods and obstacles.
        t: The start of the step.
    """
    closed = singular & (contacts.gap <= 0)
    if not np.any(closed):
        return None
    row = int(np.flatnonzero(closed)[np.argmin(contacts.gap[closed])])
    return (
        f"{names.describe(contacts, row)} reach gap {contacts.gap[row]:.3g} <= 0 in the step "
        f"from t = {t:.6g}, through the {law}'s barrier (it is singular at contact): the step "
        "is cut so that the repulsion acts before contact."
    )
