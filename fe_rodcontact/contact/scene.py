"""The contact of a problem: its targets, the models that act on them, one search per configuration.

A :class:`ContactScene` is declared once per problem::

    scene = ContactScene(rod, margin=0.005)          # radii from the rods' sections
    scene.add(floor, ObstaclePotential(RepulsiveLaw(coefficient=3e-21)))
    scene.add(("a", "b"), RollingContact(friction_coefficient=0.5))
    scene.add("self")                                # search and report, no forces
    problem = DynamicProblem(rod, supports, loads, petsc_options_prefix="run_", contact=scene)

A target is an :class:`~fe_rodcontact.contact.geometry.obstacles.Obstacle`, a pair of rods
``(a, b)`` (``(a, a)`` is the self-contact of rod a), ``"rods"`` (every pair of distinct rods) or
``"self"`` (every rod with itself); each target is declared once, with at most one model. A model
may act on several targets (``add`` it to each).

**One search per configuration.** The scene owns the only contact search of the problem. A step
uses the contacts of its start configuration, which are those of the last accepted step's end
configuration (searched once, when that step was accepted, and kept with their identities by the
scene's :class:`~fe_rodcontact.contact.geometry.tracking.ContactTracker`); models that move their
points are given the contacts of each solve's end configuration, and the last of those is the
accepted configuration again. A configuration is recognised by its nodal positions and time (the
same on every rank), so it is never searched twice in a row: :attr:`ContactScene.searches` counts
the searches that ran. The contacts go to the models, the time series (``contacts``,
``min_gap``, ``contacts_new``, ``contacts_released``) and the contact-point output alike.
"""

from collections.abc import Sequence

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.search import ContactSearch
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.contact.geometry.tracking import ContactSet, ContactTracker
from fe_rodcontact.contact.model import (
    CONTACT_FIELDS,
    Binding,
    ContactModel,
    StepContext,
    held_points,
)
from fe_rodcontact.contact.output import ContactOutput
from fe_rodcontact.contact.scene_options import (
    attach_problem,
    contact_radii,
    scene_problem,
)
from fe_rodcontact.contact.targets import DETECTED, Target, Targets
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["ContactScene"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class ContactScene:
    """Contact targets, the models acting on them, and the search they share.

    Args:
        rod: The rods.
        margin: Search margin: contacts with gap ≤ margin are found (the cut-off of the laws
            between rods). Default: half the smallest radius.
        radii: Contact radius per rod (default: the sections' radii).
        centreline: ``"smooth"`` (the cubic B-spline through the nodes, P1 rods; the default
            there) or ``"basis"`` (the finite-element interpolation; the default for P2).
        exclusion: Self-contact exclusion length along a rod (default of the search).
        line_angle: Angle (degrees) below which two segments are in line contact.
        line_points: Contact points per element of a line contact (default 1 when a model needs
            one point per element, as rolling contact does: at the element's first node, where
            multiplier rows are full rank; else 2 Gauss points).
        flat_tolerance: A segment whose gap to an obstacle varies by less than this times the
            radius lies flat on it (line contact).
        skin: Extra distance of the search's candidate list (default: the margin).
        output: Where the contacts of accepted steps are written (e.g.
            ``fe_rodcontact.io.contact_series.ContactSeriesWriter``).
        output_every: Steps between written configurations (0: none).
    """

    def __init__(
        self,
        rod: CosseratRod,
        *,
        margin: float | None = None,
        radii: npt.ArrayLike | None = None,
        centreline: str | None = None,
        exclusion: float | None = None,
        line_angle: float = 5.0,
        line_points: int | None = None,
        flat_tolerance: float = 1e-2,
        skin: float | None = None,
        output: ContactOutput | None = None,
        output_every: int = 1,
    ):
        if not isinstance(rod, CosseratRod):
            raise InputError(
                f"ContactScene takes the rods (a CosseratRod), got {type(rod).__name__}."
            )
        rods = rod.rods
        radius_values, message = contact_radii(rod, radii)
        message = message or scene_problem(
            rod,
            margin=margin,
            centreline=centreline,
            line_points=line_points,
            output_every=output_every,
            output=output,
        )
        raise_collectively(rods.comm, message)
        if centreline is None:
            centreline = "smooth" if rods.degree == 1 else "basis"
        self._rod = rod
        self._comm: MPI.Comm = rods.comm
        self._radii = radius_values
        self._margin = 0.5 * float(np.min(radius_values)) if margin is None else float(margin)
        self._representation = (
            "smooth" if centreline == "smooth" else ("polyline" if rods.degree == 1 else "p2")
        )
        self._search_options = {
            "exclusion": exclusion,
            "line_angle": line_angle,
            "flat_tolerance": flat_tolerance,
            "skin": skin,
        }
        self._line_points = line_points
        self._output = output
        self._output_every = int(output_every)
        self._written: list[tuple[int, float]] = []
        self._targets = Targets(rods)
        self._models: list[ContactModel] = []
        self._attached: str | None = None
        self._search: ContactSearch | None = None
        self._tracker: ContactTracker | None = None
        self._positions = dolfinx.fem.Function(rod.displacement.function_space, name="u_contact")
        self._searched: tuple[FloatArray, float, RawContacts] | None = None
        self._context: StepContext | None = None
        self.searches = 0
        """Searches run so far (a configuration searched again is taken from the last one)."""

    # -- declaring ---------------------------------------------------------------------------
    def add(self, target: Target, model: ContactModel | None = None) -> None:
        """Declare a target, with the model that acts there (``None``: search and report only).

        Raises:
            InputError: On every rank, for a target declared twice, a model that cannot act on
                this kind of target, or a model that is in another scene.
        """
        rods = self._rod.rods
        message = None
        if self._attached is not None:
            message = (
                "contact targets must be added before the scene is given to a problem; build "
                "the problem after the last ContactScene.add."
            )
        elif model is not None and not isinstance(model, ContactModel):
            given = (
                f"the class {model.__name__}; give an instance, e.g. {model.__name__}(...)"
                if isinstance(model, type)
                else type(model).__name__
            )
            message = (
                f"ContactScene.add takes a contact model (RollingContact, ObstaclePotential, "
                f"RodRodPotential, or a ContactModel of your own: the base class gives every "
                f"stage of a step, snapshot/restore included), got {given}."
            )
        elif model is not None and model.scene is not None and model.scene is not self:
            message = (
                f"this {type(model).__name__} is already in a contact scene: make one model per "
                "scene (several targets of one scene may share it)."
            )
        if message is None:
            try:
                message = self._declare(target, model)
            except (InputError, TypeError, ValueError) as error:
                message = f"contact target {target!r}: {error}"
        raise_collectively(rods.comm, message)
        if model is not None:
            model.scene = self

    def _declare(self, target: Target, model: ContactModel | None) -> str | None:
        """Record ``target`` for ``model``; why it cannot be, or ``None``."""
        if model is None:
            return self._targets.declare(target, DETECTED, ("obstacle", "pair", "self"), "")
        known = [k for k, m in enumerate(self._models) if m is model]
        index = known[0] if known else len(self._models)
        problem = self._targets.declare(target, index, model.target_kinds, type(model).__name__)
        if problem is None and not known:
            self._models.append(model)
        return problem

    # -- access ----------------------------------------------------------------------------------
    @property
    def rod(self) -> CosseratRod:
        """The rods."""
        return self._rod

    @property
    def models(self) -> tuple[ContactModel, ...]:
        """The models, in the order they were first added."""
        return tuple(self._models)

    @property
    def point_models(self) -> tuple[ContactModel, ...]:
        """The models with point terms (solved by the bordered Newton solve), in order."""
        return tuple(m for m in self._models if m.at_points)

    @property
    def margin(self) -> float:
        """The search margin."""
        return self._margin

    @property
    def radii(self) -> FloatArray:
        """Contact radius per rod."""
        return self._radii

    @property
    def obstacles(self) -> tuple[Obstacle, ...]:
        """The obstacles, in the order they were declared."""
        return tuple(self._targets.obstacles)

    @property
    def search(self) -> ContactSearch:
        """The contact search (built when a problem takes the scene)."""
        if self._search is None:
            raise RuntimeError("the contact search is built when a problem takes the scene.")
        return self._search

    @property
    def current(self) -> ContactSet | None:
        """The contacts of the last accepted configuration (``None`` before the start)."""
        return None if self._tracker is None else self._tracker.current

    # -- a problem takes the scene -------------------------------------------------------------
    def attach(self, scheme: str, rod: CosseratRod, supports: Sequence[Support] = ()) -> None:
        """Build the search and bind the models for a problem of ``rod`` with ``scheme`` (once).

        ``supports`` are the problem's: a rod end whose displacement they prescribe fully is a
        held point of the binding (the support, not a contact, carries the load there).

        Raises:
            InputError: On every rank, when the scene was built on other rods, is already in a
                problem, has no target, or a model cannot take part in steps of ``scheme``.
        """
        rods = self._rod.rods
        one_point = any(m.one_point_per_element for m in self._models)
        line_points = self._line_points or (1 if one_point else 2)
        message = attach_problem(
            same_rods=rod is self._rod,
            attached=self._attached is not None,
            no_targets=self._targets.empty,
            one_point=one_point,
            line_points=line_points,
            refused=[r for m in self._models if (r := m.check_scheme(scheme)) is not None],
        )
        raise_collectively(rods.comm, message)
        n = rods.num_rods
        self._search = ContactSearch(
            rods,
            self._positions,
            self._radii,
            margin=self._margin,
            pairs=self._targets.searched_pairs(),
            self_contact=self._targets.searched_self(),
            obstacles=self._targets.obstacles,
            line_points=line_points,
            line_samples="nodes" if one_point else "gauss",
            representation=self._representation,
            **self._search_options,  # type: ignore[arg-type]
        )
        self._tracker = ContactTracker(self._search)
        stencils = CentrelineStencils(rods, self._rod.function_space, self._representation)
        lengths = np.array([self._search.centreline.max_element_length(i) for i in range(n)])
        for k, model in enumerate(self._models):
            model.bind(
                Binding(
                    rod=self._rod,
                    radii=self._radii,
                    obstacles=self.obstacles,
                    own_obstacles=self._targets.obstacles_of(k),
                    targets=", ".join(self._targets.described.get(k, [])),
                    stencils=stencils,
                    element_lengths=lengths,
                    margin=self._margin,
                    held_points=held_points(rods, supports),
                )
            )
        self._attached = scheme

    # -- configurations and their contacts -----------------------------------------------------
    def _found(self, displacement: FloatArray, t: float) -> RawContacts:
        """The contacts of the configuration reference + ``displacement`` at time ``t``."""
        last = self._searched
        same = last is not None and last[1] == t and np.array_equal(last[0], displacement)
        if last is not None and self._comm.allreduce(same, op=MPI.LAND):
            return last[2]
        self._positions.x.array[:] = displacement
        found = self.search.find(t)
        self.searches += 1
        self._searched = (self._positions.x.array.copy(), t, found)
        return found

    def _committed(self, t: float) -> RawContacts:
        return self._found(self._rod.displacement.x.array, t)

    def _iterate(self, t: float) -> RawContacts:
        return self._found(self._rod.state.x.array.reshape(-1, 6)[:, :3].ravel(), t)

    def _set_of(self, k: int, contacts: ContactSet) -> ContactSet:
        return contacts.take(np.flatnonzero(self._targets.owners(contacts.contacts) == k))

    def _raw_of(self, k: int, contacts: RawContacts) -> RawContacts:
        return contacts.take(np.flatnonzero(self._targets.owners(contacts) == k))

    # -- the run ---------------------------------------------------------------------------------
    def observe(self, step: int, t: float) -> ContactSet:
        """The contacts of the committed configuration of ``step`` at ``t``: tracked, written.

        The problem calls it for every configuration it records (t = 0 and each accepted step);
        after a step, its configuration is the last one searched.
        """
        assert self._tracker is not None, "attach() first"
        contacts = self._tracker.track(self._committed(t), step, t)
        if self._output is not None and self._output_every and step % self._output_every == 0:
            self._output.write(contacts, self.contact_fields(contacts))
            self._written = [(k, time) for k, time in self._written if k < step] + [(step, t)]
        return contacts

    def contact_fields(self, contacts: ContactSet) -> dict[str, FloatArray]:
        """Each contact's forces and slip, as its model gives them (one value per contact).

        ``normal_force`` and ``tangential_force`` (N; N/m for line points and obstacle
        potentials) and ``slip_velocity`` (m/s, magnitude): NaN where the model does not
        compute one (:meth:`~fe_rodcontact.contact.model.ContactModel.contact_fields`), zero
        forces for a contact that no model acts on (a detected-only target).
        """
        n = len(contacts)
        out = {key: np.full(n, np.nan) for key in CONTACT_FIELDS}
        owners = self._targets.owners(contacts.contacts)
        for key in ("normal_force", "tangential_force"):
            out[key][owners < 0] = 0.0
        for k, model in enumerate(self._models):
            rows = np.flatnonzero(owners == k)
            for key, values in model.contact_fields(contacts.take(rows)).items():
                out[key][rows] = values
        return out

    def check_start(self) -> None:
        """Check the start configuration (:meth:`observe` d last): overlaps, each model's check.

        Raises:
            InputError: On every rank, naming the rods, when rods interpenetrate (beyond each
                model's :attr:`~fe_rodcontact.contact.model.ContactModel.start_tolerance`) or
                a model refuses its contacts.
        """
        contacts = self.current
        assert contacts is not None and self._tracker is not None, "observe() first"
        owners = self._targets.owners(contacts.contacts)
        per_model = np.array([m.start_tolerance for m in self._models] + [1e-8])
        tolerance = per_model[np.where(owners >= 0, owners, len(self._models))]
        raise_collectively(self._comm, self._tracker.start_problem(contacts.contacts, tolerance))
        for k, model in enumerate(self._models):
            model.check_start(self._set_of(k, contacts))

    def begin_step(self, context: StepContext) -> None:
        """Each model begins the step from the contacts of the start configuration."""
        self._context = context
        contacts = self.current
        assert contacts is not None, "check_start() before the first step"
        for k, model in enumerate(self._models):
            model.begin_step(context, self._set_of(k, contacts))

    def move_points(self, multipliers: Sequence[FloatArray]) -> bool:
        """After a solve: the end configuration's contacts to the models that move points.

        Args:
            multipliers: The multipliers of each model of :attr:`point_models`.

        Returns:
            Whether a model moved its points (the step is solved again).
        """
        assert self._context is not None
        t = self._context.end
        by_model = dict(zip(self.point_models, multipliers, strict=True))
        moved = [
            model.move_points(
                by_model.get(model, np.zeros(0)),
                lambda k=k: self._raw_of(k, self._iterate(t)),  # type: ignore[misc]
            )
            for k, model in enumerate(self._models)
            if model.moves_points
        ]
        return any(moved)

    def check_end(self) -> None:
        """After the step's last solve: each model checks the end configuration's contacts.

        The search is the one that tracks the accepted configuration (it is not repeated).

        Raises:
            ContactError: On every rank, when a model refuses the end configuration.
        """
        assert self._context is not None
        end = self._iterate(self._context.end)
        for k, model in enumerate(self._models):
            model.check_end(self._raw_of(k, end), self._context.t)

    def commit(self, t: float) -> None:
        """The step was accepted (the state still holds uₙ and uₙ₊₁): the models commit."""
        for model in self._models:
            model.commit(t)

    def diagnostics(self) -> dict[str, float]:
        """The contacts of the last accepted configuration, and the models' scalars (summed)."""
        contacts = self.current
        out: dict[str, float] = {}
        if contacts is not None:
            out = {
                "contacts": float(len(contacts)),
                "min_gap": contacts.min_gap,
                "contacts_new": float(len(contacts.new)),
                "contacts_released": float(len(contacts.released)),
            }
            for k, model in enumerate(self._models):
                for key, value in model.diagnostics(self._set_of(k, contacts)).items():
                    out[key] = out.get(key, 0.0) + value
        return out

    def obstacle_work(self) -> float:
        """The work of the moving obstacles on the rods so far (the models' sum)."""
        return sum((m.obstacle_work() for m in self._models), 0.0)

    def rigid_ties(self) -> RawContacts:
        """The contacts that hold the rods in the current step (statics' rigid-motion check)."""
        return RawContacts.concatenate([m.rigid_ties() for m in self._models])

    # -- state -----------------------------------------------------------------------------------
    def snapshot(self) -> object:
        """The models' states before a step (the tracker changes only when a step is accepted)."""
        return [m.snapshot() for m in self._models]

    def restore(self, saved: object) -> None:
        """Back to :meth:`snapshot` after a failed step."""
        assert isinstance(saved, list)
        for model, state in zip(self._models, saved, strict=True):
            model.restore(state)

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The contacts' identities, the frames written so far and every model's state."""
        assert self._tracker is not None
        arrays = {f"tracker_{k}": v for k, v in self._tracker.state().items()}
        arrays["output_frames"] = np.array(self._written, dtype=float).reshape(-1, 2)
        for k, model in enumerate(self._models):
            arrays.update({f"model{k}_{key}": v for key, v in model.checkpoint_state().items()})
        return arrays

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from :meth:`checkpoint_state`; the output takes the frames written before.

        Raises:
            KeyError, ValueError: For arrays that are not a checkpoint of this scene (the
                reader of the checkpoint turns them into an InputError naming the file).
        """
        assert self._tracker is not None
        self._tracker.restore(_prefixed(arrays, "tracker_"))
        for k, model in enumerate(self._models):
            model.restore_state(_prefixed(arrays, f"model{k}_"))
        frames = np.asarray(arrays.get("output_frames", np.zeros((0, 2))), dtype=float)
        self._written = [(int(step), float(t)) for step, t in frames.reshape(-1, 2)]
        if self._output is not None:
            self._output.resume(self._written)


def _prefixed(arrays: dict[str, npt.NDArray[np.generic]], prefix: str) -> dict:
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
