"""Where the contacts of accepted steps go: the interface of contact outputs.

The scene writes the contacts of each recorded configuration through a :class:`ContactOutput`
(:class:`~fe_rodcontact.io.contact_series.ContactSeriesWriter`, the VTKHDF series for
ParaView, or :class:`~fe_rodcontact.io.contact_points.ContactPointWriter`).
"""

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.tracking import ContactSet

__all__ = ["ContactOutput"]

FloatArray = npt.NDArray[np.float64]


class ContactOutput(ABC):
    """Where the contacts of accepted steps go (e.g. the contact points for ParaView)."""

    @abstractmethod
    def write(self, contacts: ContactSet, fields: Mapping[str, FloatArray]) -> None:
        """Write the contacts of one configuration and their models' fields (collective).

        ``fields`` holds one value per contact for each key of
        :meth:`ContactScene.contact_fields` (``normal_force``, ``tangential_force``,
        ``slip_velocity``).
        """

    def resume(self, frames: Sequence[tuple[int, float]]) -> None:
        """A run goes on from a checkpoint, before which these (step, time) were written.

        Collective. The default keeps nothing; an output with an index of its frames (the
        ParaView ``.pvd`` of the contact points) takes these as its index and drops the rest.
        """
