"""The active rolling contacts of a step, with the stencils of both sides of each contact.

:class:`ActiveContacts` holds a step's active contacts (the same on every rank), grouped into
contacts between rods and contacts with obstacles (:class:`ContactGroup`): the rows of a group
are built as one batch of arrays.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils

__all__ = ["ActiveContacts", "ContactGroup"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ContactGroup:
    """Active contacts of one kind (between rods, or with obstacles), stencils as arrays.

    Attributes:
        index: (n,) positions of the contacts in the step's contact list.
        nodes: (n, K) stencil nodes of a, then of b.
        weights: (n, K) their weights.
        side: (n, K) 0 for nodes of a, 1 for nodes of b.
    """

    index: IntArray
    nodes: IntArray
    weights: FloatArray
    side: IntArray


@dataclass(frozen=True)
class ActiveContacts:
    """The active contacts of a step: rows and stencils (the same on every rank)."""

    contacts: RawContacts
    ids: IntArray
    pairs: ContactGroup  # contacts between rods
    on_obstacles: ContactGroup  # contacts with obstacles

    @staticmethod
    def build(
        stencils: CentrelineStencils, contacts: RawContacts, ids: IntArray
    ) -> "ActiveContacts":
        """The contacts with their stencils at their material points.

        Args:
            stencils: The centreline representation of the rows.
            contacts: The active contacts.
            ids: Their identities.
        """
        a = stencils.material_points(contacts.rod_a, contacts.element_a, contacts.s_a)
        obstacle = contacts.kind == KIND_OBSTACLE
        b_rod = np.where(obstacle, 0, contacts.rod_b)
        b_element = np.where(obstacle, 0, contacts.element_b)
        b = stencils.material_points(b_rod, b_element, contacts.s_b)
        pair, on_obstacle = np.flatnonzero(~obstacle), np.flatnonzero(obstacle)
        sides = np.repeat(np.array([0, 1], np.int64), [a.nodes.shape[1], b.nodes.shape[1]])
        pairs = ContactGroup(
            pair,
            np.hstack([a.nodes[pair], b.nodes[pair]]),
            np.hstack([a.weights[pair], b.weights[pair]]),
            np.tile(sides, (len(pair), 1)),
        )
        on_obstacles = ContactGroup(
            on_obstacle,
            a.nodes[on_obstacle],
            a.weights[on_obstacle],
            np.zeros(a.nodes[on_obstacle].shape, np.int64),
        )
        return ActiveContacts(contacts, ids, pairs, on_obstacles)

    @property
    def groups(self) -> tuple[ContactGroup, ContactGroup]:
        """Both kinds of contacts."""
        return self.pairs, self.on_obstacles

    @property
    def nodes(self) -> list[IntArray]:
        """Stencil nodes of each contact in the step's order (of a, then of b)."""
        out: list[IntArray] = [np.zeros(0, np.int64)] * len(self.ids)
        for group in self.groups:
            for j, i in enumerate(group.index):
                out[i] = group.nodes[j]
        return out
