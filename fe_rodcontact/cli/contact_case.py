"""The ``[contact]`` table of dynamics case files: obstacles, contact laws, contact output.

::

    [contact]
    model = "potential"        # "potential" (contact laws) or "rolling" (no-slip constraints)
    margin = 0.005             # contact search margin (default: half the smallest radius)
    centreline = "smooth"      # "smooth" (B-spline, P1 rods) or "basis" (the P1/P2 basis)
    self_contact = true        # search each rod against itself
    pairs = "all"              # or [["rodA", "rodB"], ...]
    output_every = 1           # contact points for ParaView every k steps (0: none)
    law = { name = "repulsive", coefficient = 1e-12, exponent = 8 }   # fe_rodcontact.contact.LAWS
    damping = { coefficient = 1e-11, exponent = 8 }                    # optional
    friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }  # optional
    rod_law = { name = "penalty", penalty = 1e4 }   # optional: forces between rods (point law)
    rod_damping = { coefficient = 1e-12 }           # optional, with rod_law
    rod_friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }  # optional

    [[contact.obstacles]]
    type = "plane"             # or "cylinder"
    point = [0, 0, 0]
    normal = [0, 0, 1]         # plane: towards the rods; velocity = [...] moves it
    # cylinder: axis = [...], radius = ..., inside = false

The law, damping and friction act between every rod and every obstacle
(:class:`~fe_rodcontact.contact.ObstaclePotential`); the scene's contact search
(:class:`~fe_rodcontact.contact.ContactScene`) reports rod–rod, self and obstacle contacts in
the time series (``contacts``, ``min_gap``) and as contact points (``contacts.pvd``). Forces
between rods (the ``pairs``, and self-contact with ``self_contact``) act only when ``rod_law``
is given (:class:`~fe_rodcontact.contact.RodRodPotential`, cut off at ``margin``; the law is a
force per contact point, and per unit length at line contacts); without it those contacts are
reported and the rods pass through each other.
With ``model = "rolling"`` the same scene rolls without slipping instead
(:class:`~fe_rodcontact.contact.RollingContact`): rods that touch at the start (the ``pairs``,
self-contacts with ``self_contact``) and rods lying on the obstacles roll on each other; the
laws are not used (giving one is an error) and these keys apply::

    [contact]
    model = "rolling"
    unilateral = false            # release contacts whose normal force turns tensile
    friction_coefficient = 0.5    # report the friction-cone ratio per contact (optional)
    slide_outside_cone = false    # contacts outside the cone slide (needs friction_coefficient)
    impacts = "inelastic"         # contacts closing during the run: "inelastic" or "error"
    touch_tolerance = 1e-6        # |gap| / (R_a + R_b) that counts as touching at the start

Every contact quantity per step goes to ``contacts.csv`` in the output folder.
Unknown keys are errors naming the key, as everywhere in case files.
"""

import dataclasses
from pathlib import Path
from typing import Any

from fe_rodcontact.contact import (
    ContactModel,
    ContactScene,
    CoulombFrictionLaw,
    Cylinder,
    DampingLaw,
    Obstacle,
    ObstaclePotential,
    Plane,
    RodRodPotential,
    RollingContact,
    get_law,
)
from fe_rodcontact.errors import InputError
from fe_rodcontact.io.contact_points import ContactPointWriter
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["ContactSpec", "ObstacleSpec", "build_contact"]

MODELS = ("potential", "rolling")


@dataclasses.dataclass(frozen=True)
class ObstacleSpec:
    """A rigid plane or cylinder."""

    type: str
    point: tuple[float, float, float] = (0.0, 0.0, 0.0)
    normal: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    axis: tuple[float, float, float] | None = None
    radius: float | None = None
    inside: bool = False
    name: str | None = None

    def build(self, where: str) -> Obstacle:
        """The obstacle."""
        if self.type == "plane":
            if self.normal is None:
                raise InputError(f"{where}: a plane needs normal = [nx, ny, nz].")
            extra = [k for k in ("axis", "radius") if getattr(self, k) is not None]
            if extra:
                raise InputError(f"{where}: {extra[0]} is for cylinders, not planes.")
            return Plane(self.point, self.normal, self.velocity, name=self.name or where)
        if self.type == "cylinder":
            if self.axis is None or self.radius is None:
                raise InputError(f"{where}: a cylinder needs axis = [...] and radius.")
            if self.normal is not None:
                raise InputError(f"{where}: normal is for planes, not cylinders.")
            return Cylinder(
                self.point, self.axis, self.radius, self.inside, name=self.name or where
            )
        raise InputError(f"{where}.type {self.type!r} unknown; use 'plane' or 'cylinder'.")


@dataclasses.dataclass(frozen=True)
class ContactSpec:
    """The ``[contact]`` table."""

    model: str = "potential"
    margin: float | None = None
    self_contact: bool = True
    pairs: str | list[list[str]] = "all"
    output_every: int = 1
    law: dict[str, Any] = dataclasses.field(default_factory=dict)
    damping: dict[str, Any] | None = None
    friction: dict[str, Any] | None = None
    obstacles: list[ObstacleSpec] = dataclasses.field(default_factory=list)
    rod_law: dict[str, Any] | None = None
    rod_damping: dict[str, Any] | None = None
    rod_friction: dict[str, Any] | None = None
    centreline: str | None = None
    unilateral: bool = False
    friction_coefficient: float | None = None
    slide_outside_cone: bool = False
    impacts: str = "inelastic"
    touch_tolerance: float = 1e-6

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise InputError(f"model {self.model!r} unknown; use one of {list(MODELS)}.")
        laws = ("law", "damping", "friction", "rod_law", "rod_damping", "rod_friction")
        rolling_keys = (
            "unilateral",
            "friction_coefficient",
            "slide_outside_cone",
            "impacts",
            "touch_tolerance",
        )
        if self.model == "rolling":
            given = [k for k in laws if getattr(self, k)]
            if given:
                raise InputError(
                    f"contact.{given[0]} is a contact law, which model = 'rolling' does not use "
                    "(rolling contact has no laws: its forces are the constraint's); remove it "
                    "or use model = 'potential'."
                )
        else:
            default = ContactSpec.__dataclass_fields__
            given = [k for k in rolling_keys if getattr(self, k) != default[k].default]
            if given:
                raise InputError(
                    f"contact.{given[0]} belongs to model = 'rolling'; remove it or set "
                    "model = 'rolling'."
                )
        if isinstance(self.pairs, str) and self.pairs != "all":
            raise InputError(f"pairs must be 'all' or a list of rod pairs, got {self.pairs!r}.")


def _law(table: dict[str, Any], where: str) -> Any:
    params = dict(table)
    name = params.pop("name", None)
    if name is None:
        raise InputError(f"{where} needs name = 'repulsive' (or another law of LAWS).")
    try:
        return get_law(str(name), **params)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def _dissipative(table: dict[str, Any] | None, cls: type, where: str) -> Any:
    if table is None:
        return None
    try:
        return cls(**table)
    except TypeError as error:
        raise InputError(f"{where}: {error}") from None


def build_contact(
    spec: ContactSpec, rod: CosseratRod, folder: Path | None, *, restart: bool = False
) -> ContactScene:
    """The contact scene of a case: its targets, models and contact-point output.

    A fresh run (not ``restart``) removes the contact points an earlier run left in ``folder``.
    """
    obstacles = [o.build(f"contact.obstacles[{i}]") for i, o in enumerate(spec.obstacles)]
    pairs: list[str | tuple[str, str]] = (
        ["rods"] if isinstance(spec.pairs, str) else [(a, b) for a, b in spec.pairs]
    )
    writer = None
    if folder is not None and spec.output_every > 0:
        writer = ContactPointWriter(folder / "contacts", rod.rods.comm, clear=not restart)
    scene = ContactScene(
        rod,
        margin=spec.margin,
        centreline=spec.centreline,
        output=writer,
        output_every=spec.output_every,
    )
    between_rods: ContactModel | None = None
    on_obstacles: ContactModel | None = None
    if spec.model == "rolling":
        rolling = RollingContact(
            unilateral=spec.unilateral,
            friction_coefficient=spec.friction_coefficient,
            slide_outside_cone=spec.slide_outside_cone,
            impacts=spec.impacts,
            touch_tolerance=spec.touch_tolerance,
        )
        between_rods = on_obstacles = rolling
    else:
        if obstacles:
            if not spec.law:
                raise InputError("contact.law is missing: give the law between rods and obstacles.")
            on_obstacles = ObstaclePotential(
                _law(spec.law, "contact.law"),
                damping=_dissipative(spec.damping, DampingLaw, "contact.damping"),
                friction=_dissipative(spec.friction, CoulombFrictionLaw, "contact.friction"),
            )
        if spec.rod_law is None and (spec.rod_damping is not None or spec.rod_friction is not None):
            raise InputError("contact.rod_damping and contact.rod_friction need contact.rod_law.")
        if spec.rod_law is not None:
            between_rods = RodRodPotential(
                _law(spec.rod_law, "contact.rod_law"),
                damping=_dissipative(spec.rod_damping, DampingLaw, "contact.rod_damping"),
                friction=_dissipative(
                    spec.rod_friction, CoulombFrictionLaw, "contact.rod_friction"
                ),
            )
    for pair in pairs:
        scene.add(pair, between_rods)
    if spec.self_contact:
        scene.add("self", between_rods)
    for obstacle in obstacles:
        scene.add(obstacle, on_obstacles)
    return scene
