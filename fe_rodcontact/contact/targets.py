"""Which model acts on which contact: the targets of a contact scene.

A target is an :class:`~fe_rodcontact.contact.geometry.obstacles.Obstacle`, a pair of rods
``(a, b)`` (``(a, a)`` is the self-contact of rod a), ``"rods"`` (every pair of distinct rods) or
``"self"`` (every rod with itself). :class:`Targets` records each declared once, with the index
of the model that acts on it (or none: the contacts are searched and reported only), and gives
each contact found by the search its model (:meth:`Targets.owners`).
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.rods.mesh import RodMesh

__all__ = ["DETECTED", "Target", "Targets"]

IntArray = npt.NDArray[np.int64]
Target = Obstacle | str | tuple[int | str, int | str]

UNTARGETED = -2
DETECTED = -1
"""The owner of a contact that is searched and reported only."""


class Targets:
    """The declared targets and their models (indices into the scene's list of models).

    Args:
        rods: The rod mesh.
    """

    def __init__(self, rods: RodMesh):
        self._rods = rods
        self._pair_owner = np.full((rods.num_rods, rods.num_rods), UNTARGETED, dtype=np.int64)
        self.obstacles: list[Obstacle] = []
        """The obstacles, in the order they were declared (``rod_b`` of a contact indexes them)."""
        self._obstacle_owner: list[int] = []
        self.described: dict[int, list[str]] = {}
        """The targets of each model, as text for messages."""

    @property
    def empty(self) -> bool:
        """Whether no target was declared."""
        return not self.obstacles and bool(np.all(self._pair_owner == UNTARGETED))

    def declare(self, target: Target, owner: int, kinds: tuple[str, ...], name: str) -> str | None:
        """Record ``target`` for model ``owner`` (:data:`DETECTED`: none); why not, or ``None``.

        Args:
            target: The target.
            owner: The model's index.
            kinds: What the model can act on (``"obstacle"``, ``"pair"``, ``"self"``).
            name: The model's name, for messages.
        """
        rods = self._rods
        if isinstance(target, Obstacle):
            if "obstacle" not in kinds:
                return f"{name} acts between rods; an obstacle needs another model."
            if any(o is target for o in self.obstacles):
                return f"obstacle {target.name!r} is declared twice; declare each target once."
            same = [o for o in self.obstacles if target.coincides(o) or o.coincides(target)]
            if same:
                return (
                    f"obstacle {target.name!r} is the surface of obstacle {same[0].name!r}: its "
                    "forces would count twice; declare each obstacle once."
                )
            if any(o.name == target.name for o in self.obstacles):
                return (
                    f"two obstacles are named {target.name!r}; give each its own name (messages "
                    "and the contact output name them)."
                )
            self.obstacles.append(target)
            self._obstacle_owner.append(owner)
            self.described.setdefault(owner, []).append(f"obstacle {target.name!r}")
            return None
        if isinstance(target, str):
            if target not in ("rods", "self"):
                return (
                    f"{target!r} is not a target: a target is an obstacle (a Plane or Cylinder "
                    "object), a pair of rods (a, b), 'rods' (every pair of distinct rods) or "
                    "'self' (every rod with itself)."
                )
            n = rods.num_rods
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n)] if target == "rods" else []
            pairs += [(i, i) for i in range(n)] if target == "self" else []
        elif isinstance(target, tuple) and len(target) == 2:
            i, j = sorted((rods.rod_index(target[0]), rods.rod_index(target[1])))
            pairs = [(i, j)]
        elif isinstance(target, tuple | list):
            return f"a pair of rods is a tuple of two rod names or indices, got {target!r}."
        elif isinstance(target, type):
            return (
                f"a target is an obstacle object, a pair of rods, 'rods' or 'self', got the "
                f"class {target.__name__}; give an instance, e.g. {target.__name__}(...)."
            )
        else:
            return (
                "a target is an obstacle, a pair of rods (a, b), 'rods' or 'self', got "
                f"{type(target).__name__}."
            )
        for i, j in pairs:
            if ("self" if i == j else "pair") not in kinds:
                return f"{name} acts on obstacles; rods need another model."
            if self._pair_owner[i, j] != UNTARGETED:
                what = (
                    f"rod {rods.names[i]!r} with itself"
                    if i == j
                    else f"rods {rods.names[i]!r} and {rods.names[j]!r}"
                )
                return f"{what} declared twice; declare each target once."
        for i, j in pairs:
            self._pair_owner[i, j] = self._pair_owner[j, i] = owner
        self.described.setdefault(owner, []).append(repr(target))
        return None

    def searched_pairs(self) -> list[tuple[int, int]]:
        """The pairs of distinct rods to search."""
        n, owner = self._rods.num_rods, self._pair_owner
        return [(i, j) for i in range(n) for j in range(i + 1, n) if owner[i, j] >= DETECTED]

    def searched_self(self) -> list[int]:
        """The rods whose self-contacts are searched."""
        owner = self._pair_owner
        return [i for i in range(self._rods.num_rods) if owner[i, i] >= DETECTED]

    def obstacles_of(self, owner: int) -> tuple[int, ...]:
        """The indices of the obstacles of model ``owner``."""
        return tuple(i for i, o in enumerate(self._obstacle_owner) if o == owner)

    def owners(self, contacts: RawContacts) -> IntArray:
        """The model index (or :data:`DETECTED`) of each contact."""
        obstacle = contacts.kind == KIND_OBSTACLE
        owners = np.asarray([*self._obstacle_owner, DETECTED], dtype=np.int64)
        of_obstacle = owners[np.where(obstacle, contacts.rod_b, len(self._obstacle_owner))]
        return np.where(
            obstacle, of_obstacle, self._pair_owner[contacts.rod_a, contacts.partner_rod]
        )
