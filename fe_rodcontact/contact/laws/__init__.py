"""Contact laws: forces of the gap g and of the relative velocity v at a contact.

Every law is a small frozen dataclass that checks its parameters when it is built, so a bad
value fails at the call site with an :class:`~fe_rodcontact.errors.InputError` naming the
parameter. The laws are pure numpy and vectorised over contacts: gaps of shape ``(n,)``,
normals and velocities of shape ``(n, 3)`` (a single contact, shape ``()`` and ``(3,)``, works
too). Conventions (``docs/contact_laws.md``):

- The unit normal ``n`` points from body a to body b, ``v`` is the velocity of b's material
  point at the contact relative to a's (:func:`relative_velocity`, spin included), and a
  law's force acts on b; a gets the opposite force (:func:`contact_wrenches`).
- Normal (conservative) laws, :class:`NormalLaw`: ``energy(g)`` is the potential W with
  ``W → 0`` as the contact opens; ``force(g) = −dW/dg`` is the magnitude along ``n``, positive
  when repulsive; ``stiffness(g) = −d force/dg = d²W/dg²``, positive when the force grows with
  penetration. ``discrete_gradient(g_old, g_new) = (W(g_new) − W(g_old))/(g_new − g_old)``
  for energy-conserving time steps, and its derivative in ``g_new`` for Newton's tangent.
- Dissipative laws, :class:`DissipativeLaw`: ``force`` (a vector), its derivatives in ``v``,
  ``n``, ``g`` (and the normal force for Coulomb friction), and the dissipated power
  ``−F·v ≥ 0``.

Tatone's laws (repulsive, adhesive, damping, friction) are powers of the gap and are
singular at contact: a gap ``≤ 0`` raises :class:`GapError`. The penalty laws accept any gap.

Modules: :mod:`~fe_rodcontact.contact.laws.normal` (the conservative laws),
:mod:`~fe_rodcontact.contact.laws.dissipative` (damping and friction),
:mod:`~fe_rodcontact.contact.laws.wrenches` (velocities at the contact point and the wrenches
of a contact force), :mod:`~fe_rodcontact.contact.laws.validation` (checks of gaps and
parameters) and :mod:`~fe_rodcontact.contact.laws.registry` (the laws by case-file name).
"""

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
from fe_rodcontact.contact.laws.registry import LAWS, get_law
from fe_rodcontact.contact.laws.validation import GapError, check_gap
from fe_rodcontact.contact.laws.wrenches import (
    ContactWrenches,
    contact_wrenches,
    material_point_velocity,
    relative_velocity,
)

__all__ = [
    "LAWS",
    "AdhesiveLaw",
    "ContactWrenches",
    "CoulombFrictionLaw",
    "DampingLaw",
    "DissipativeLaw",
    "FrictionLaw",
    "GapError",
    "LinearPenaltyLaw",
    "NormalLaw",
    "RepulsiveLaw",
    "SmoothPenaltyLaw",
    "check_gap",
    "contact_wrenches",
    "get_law",
    "material_point_velocity",
    "relative_velocity",
]
