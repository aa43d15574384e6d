"""The contact-model base class and what a model is told: its binding and the step context.

A contact model (:class:`ContactModel`: rolling contact, potential contact with an obstacle or
between rods) is declared on its targets in a :class:`~fe_rodcontact.contact.scene.ContactScene`
and takes part in every step of the problem that owns the scene. Its life cycle:

=====================  =====================================================================
stage                  called
=====================  =====================================================================
:meth:`bind`           once, by :meth:`ContactScene.add <fe_rodcontact.contact.scene.
                       ContactScene.add>`: the rods, radii, obstacles and centreline
:meth:`check_scheme`   once, when a problem takes the scene: may refuse a scheme
:meth:`virtual_work`   once, while the scheme builds its residual: a UFL term, or ``None``
:meth:`check_start`    once, before the first step, with the contacts of the start
:meth:`start_release`  before the first step: which rows the start's velocity projection
                       leaves out, given the impulse it would apply (unilateral contacts)
:meth:`start_impulse`  the start's projection applied an impulse and took energy
:meth:`begin_step`     each step, with the contacts of the step's start configuration
:meth:`linearise`      each Newton iterate (point terms: forces, multiplier rows)
:meth:`move_points`    after each solve, with the contacts of the end configuration; a model
                       whose points moved has the step solved again
:meth:`commit`         the step was accepted (the state holds uₙ and uₙ₊₁ until the scheme
                       commits after the models)
:meth:`diagnostics`    scalars of the committed state for the time series
:meth:`obstacle_work`  the work of moving obstacles so far (part of the external work)
:meth:`snapshot`,      before a step and after a failed one (the step is cut)
:meth:`restore`
:meth:`checkpoint_     the state between steps, in the run's checkpoint
state`, ``restore_
state``
=====================  =====================================================================

Every stage has a default that does nothing, so a model implements only what it uses; the
stepper calls every stage of every model (no stage is probed for). The contact search belongs to
the scene: a model never searches, it is handed the contacts of its targets.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.contact.geometry.tracking import ContactNames, ContactSet
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import RodMesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.linearisation import PointTerms

if TYPE_CHECKING:
    import dolfinx.fem

__all__ = [
    "CONTACT_FIELDS",
    "SCHEMES",
    "Binding",
    "ContactModel",
    "EndContacts",
    "EndVelocityRows",
    "StepContext",
    "StepKinematics",
]

FloatArray = npt.NDArray[np.float64]
CONTACT_FIELDS = ("normal_force", "tangential_force", "slip_velocity")
"""What :meth:`ContactModel.contact_fields` may give per contact: the normal and tangential
force magnitudes on rod a (N; N/m for line points and obstacle potentials) and the magnitude of
the tangential relative velocity (m/s)."""
EndContacts = Callable[[], RawContacts]
"""The contacts of a model's targets in a solve's end configuration, searched when first asked
for (once for all models of the scene)."""

SCHEMES = ("static", "energy-momentum", "generalized-alpha")
"""The schemes a step can have: statics' load increments, or a time integrator."""


@dataclass
class EndVelocityRows:
    """How a scheme's end velocities at the nodes follow from the step's unknowns.

    Schemes whose equations hold at tₙ₊₁ (generalized-α) give their contact models this, so
    that velocity rows (rolling's no-slip) are written on the velocities the step ends with: at
    every node,

        vₙ₊₁ = (Δu + u_off)/h,   ωₙ₊₁ = (τ + cay(τ) θ_off)/h,

    with Δu = uₙ₊₁ − uₙ, τ the Cayley vector of the rotation increment and ω spatial. The
    scheme sets ``scale`` (h) and the offsets' values when a step begins; rows multiplied by h
    are affine in Δu and depend on τ through cay(τ) only.

    Attributes:
        scale: h [time].
        translation_offset: u_off, a nodal vector Function (the rod's displacement space).
        rotation_offset: θ_off, a nodal vector Function (spatial, in the frames at tₙ).
    """

    scale: float
    translation_offset: "dolfinx.fem.Function"
    rotation_offset: "dolfinx.fem.Function"


@dataclass(frozen=True)
class StepContext:
    """What a contact model knows of the step it takes part in.

    Attributes:
        t: The start of the step: a time, or in statics the load factor.
        dt: Its size: the time step, or the load increment (statics plays a load step as a
            step of "time" λ, so velocities are per unit load factor).
        end: The end of the step, t + dt (exactly the time the problem records for it).
        step: The steps accepted before this one.
        scheme: One of :data:`SCHEMES`.
        velocities: The nodal velocity and spatial angular velocity at tₙ (dynamics), else
            ``None``.
        end_velocity: The scheme's end-velocity relation (schemes whose equations hold at
            tₙ₊₁), else ``None``: rows are then written on the step's increment.
    """

    t: float
    dt: float
    end: float
    step: int
    scheme: str
    velocities: "tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None" = None
    end_velocity: EndVelocityRows | None = None

    @property
    def statics(self) -> bool:
        """Whether the step is a load step."""
        return self.scheme == "static"


@dataclass(frozen=True)
class StepKinematics:
    """The step's unknowns and test functions in UFL, for terms written as forms.

    Attributes:
        u_n: The centreline displacement at tₙ.
        u_new: The displacement at tₙ₊₁ (the unknown).
        du: Its test function.
        rotation_increment: τ, the step's spatial rotation increment (the unknown).
        dpsi: Its test function.
    """

    u_n: ufl.core.expr.Expr
    u_new: ufl.core.expr.Expr
    du: ufl.core.expr.Expr
    rotation_increment: ufl.core.expr.Expr
    dpsi: ufl.core.expr.Expr


@dataclass(frozen=True)
class Binding:
    """What a model acts on and with what, given by the scene that holds it.

    Attributes:
        rod: The rods.
        radii: The contact radius of each rod.
        obstacles: The scene's obstacles (``rod_b`` of an obstacle contact indexes them).
        own_obstacles: The indices of those that are the model's targets.
        targets: A description of the model's targets, for messages.
        stencils: The centreline representation of the scene's search, at material points.
        element_lengths: The longest element of each rod.
        margin: The scene's search margin.
        held_points: The rod ends whose displacement the problem's supports prescribe in full,
            as (rod, arc length): the support carries the load there, and a contact row on
            them alone would be empty.
    """

    rod: CosseratRod
    radii: FloatArray
    obstacles: tuple[Obstacle, ...]
    own_obstacles: tuple[int, ...]
    targets: str
    stencils: CentrelineStencils
    element_lengths: FloatArray
    margin: float
    held_points: tuple[tuple[int, float], ...] = ()

    @property
    def names(self) -> ContactNames:
        """The names of the rods and obstacles, for messages."""
        return ContactNames(tuple(self.rod.rods.names), tuple(o.name for o in self.obstacles))


def held_points(rods: RodMesh, supports: Sequence[Support]) -> tuple[tuple[int, float], ...]:
    """The rod ends whose three displacement components ``supports`` prescribe: (rod, s)."""
    held = []
    for support in supports:
        if set(support.displacement_components) == {0, 1, 2}:
            i = rods.rod_index(support.rod)
            held.append((i, 0.0 if support.end == "start" else float(rods.lengths[i])))
    return tuple(held)


class ContactModel(PointTerms):
    """A model of contact on some targets of a scene (see the module docs for the life cycle).

    Class attributes:
        at_points: The model has point terms (forces or multiplier rows at contact points),
            solved by the bordered Newton solve; otherwise its terms are UFL forms.
        one_point_per_element: The model needs one contact point per element of a line
            contact (the scene's search then samples line contacts once per element, at the
            element's first node: multiplier rows there are full rank).
        target_kinds: What the model can act on: ``"obstacle"``, ``"pair"`` (two rods),
            ``"self"`` (a rod with itself).
        start_tolerance: Penetration at the start (relative to R_a + R_b) that the scene
            accepts for the model's contacts.
        velocity_rows: The model's multiplier rows constrain the rods' velocities (rolling),
            and the consistent start projects the initial velocities onto them; ``False`` for
            multipliers that are unknowns of their own (a body's step).
    """

    at_points: ClassVar[bool] = False
    one_point_per_element: ClassVar[bool] = False
    target_kinds: ClassVar[tuple[str, ...]] = ("obstacle", "pair", "self")
    start_tolerance: float = 1e-8
    velocity_rows: ClassVar[bool] = True

    def __init__(self) -> None:
        self._binding: Binding | None = None
        self.scene: object | None = None
        """The scene that holds the model (set by :meth:`ContactScene.add`; one scene only)."""

    # -- set-up ------------------------------------------------------------------------------
    @property
    def moves_points(self) -> bool:
        """Whether the model wants the contacts of each solve's end configuration.

        Otherwise :meth:`move_points` is not called, and the end configuration is searched only
        once the step is accepted.
        """
        return False

    @property
    def binding(self) -> Binding:
        """What the model acts on (raises before :meth:`bind`)."""
        if self._binding is None:
            raise RuntimeError(f"{type(self).__name__} is not in a contact scene yet.")
        return self._binding

    @property
    def bound(self) -> bool:
        """Whether the model is in a scene."""
        return self._binding is not None

    def bind(self, binding: Binding) -> None:
        """Take the rods, radii and obstacles of the scene (once; the scene checks that)."""
        self._binding = binding

    def check_scheme(self, scheme: str) -> str | None:
        """Why the model cannot take part in steps of ``scheme``, or ``None``."""
        return None

    @property
    def newton_options(self) -> dict[str, object]:
        """SNES options the model's steps need (a problem's defaults yield to them)."""
        return {}

    def virtual_work(self, kinematics: StepKinematics) -> ufl.Form | None:
        """The model's term of the energy–momentum step residual as a form, or ``None``."""
        return None

    # -- the run -----------------------------------------------------------------------------
    def check_start(self, contacts: ContactSet) -> None:
        """Check the start configuration (raise on every rank when it is not admissible)."""

    def start_release(self, impulse: FloatArray) -> npt.NDArray[np.bool_]:
        """Which of the model's rows the start leaves out, given their impulse (force × time).

        Before the first step, the initial velocities are projected onto the point models'
        rows by an impulse at the contacts
        (:mod:`~fe_rodcontact.stepping.consistent_start`); a row that is left out (a contact
        that the impulse would pull, of rods that move apart) is not held, and the projection
        is solved again without it. The model is at the first step's start
        (:meth:`begin_step`). Default: every row holds.

        Args:
            impulse: The impulse of each of the model's multipliers.
        """
        return np.zeros(len(impulse), dtype=bool)

    def start_impulse(self, impulse: FloatArray, energy: float) -> None:
        """The start's projection applied ``impulse`` at the rows and took ``energy``.

        ``energy`` is the model's share ½μ·(−Bq̇) of the kinetic energy that the perfectly
        inelastic impulse took, to be recorded like an impact's loss. Default: nothing.
        """

    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """A step begins from the configuration whose contacts (of the targets) are given."""

    def move_points(self, multipliers: FloatArray, end_contacts: EndContacts) -> bool:
        """After a converged solve: move the points, given the end configuration's contacts.

        It changes the points and the model's own rows, never a coefficient of the rods'
        forms: the step's next solve reuses the forms as packed for its first.

        Returns:
            Whether anything moved (the step is then solved again from the current state).
        """
        return False

    def check_end(self, contacts: RawContacts, t: float) -> None:
        """After the step's last solve: refuse an end configuration the model cannot accept.

        Args:
            contacts: The contacts of the model's targets in the end configuration.
            t: The start of the step (for messages).

        Raises:
            ContactError: On every rank, naming the contact: the step is rejected and cut.
        """

    def commit(self, t: float) -> None:
        """The step was accepted; ``t`` is its end (the state still holds uₙ and uₙ₊₁)."""

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """Scalars of the committed state for the time series (energies of models add up).

        Args:
            contacts: The contacts of the model's targets in the committed configuration.
        """
        return {}

    def contact_fields(self, contacts: ContactSet) -> dict[str, FloatArray]:
        """Per-contact fields of the committed state for the contact-point output.

        Args:
            contacts: The contacts of the model's targets in the committed configuration.

        Returns:
            Some of :data:`CONTACT_FIELDS`, one value per contact (NaN where unknown); the
            default gives none.
        """
        return {}

    def obstacle_work(self) -> float:
        """The work that moving obstacles did on the rods through the model's forces so far.

        The problem adds it to the work of loads and supports (zero for fixed obstacles).
        """
        return 0.0

    def rigid_ties(self) -> RawContacts:
        """The contacts that hold the rods (a rigid-motion check of statics counts them)."""
        return RawContacts.empty()

    # -- state ---------------------------------------------------------------------------------
    def snapshot(self) -> object:
        """The model's state before a step, for :meth:`restore` after a failed one."""
        return None

    def restore(self, saved: object) -> None:
        """Go back to a state from :meth:`snapshot`."""

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The state between steps as named arrays, the same on every rank."""
        return {}

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from arrays written by :meth:`checkpoint_state` (any rank count)."""
