"""The ``[contact]`` table of dynamics case files: obstacles, contact laws, contact output.

::

    [contact]
    model = "potential"        # "potential" (contact laws) or "rolling" (no-slip constraints)
    margin = 0.005             # contact search margin (default: half the smallest radius)
    centreline = "smooth"      # "smooth" (B-spline, P1 rods) or "basis" (the P1/P2 basis)
    self_contact = true        # search each rod against itself
    pairs = "all"              # or [["rodA", "rodB"], ...]
    output_every = 1           # contact points (contacts.vtkhdf) every k steps (0: none)
    law = { name = "repulsive", coefficient = 1e-12, exponent = 8 }   # fe_rodcontact.contact.LAWS
    damping = { coefficient = 1e-11, exponent = 8 }                    # optional
    friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }  # optional
    # friction = 0.3 is short for { friction_coefficient = 0.3 } with the default ε_v = 1e-3
    rod_law = { name = "penalty", penalty = 1e4 }   # optional: forces between rods (point law)
    rod_damping = { coefficient = 1e-12 }           # optional, with rod_law
    rod_friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }  # optional
    quadrature_degree = 10     # Gauss rule of the obstacle laws along the rods (2·degree + 2)

    [[contact.obstacles]]
    type = "plane"             # or "cylinder"
    point = [0, 0, 0]
    normal = [0, 0, 1]         # plane: towards the rods; velocity = [...] moves it
    # cylinder: axis = [...], radius = ..., inside = false

The law, damping and friction act between every rod and every obstacle
(:class:`~fe_rodcontact.contact.ObstaclePotential`); the scene's contact search
(:class:`~fe_rodcontact.contact.ContactScene`) reports rod–rod, self and obstacle contacts in
the time series (``contacts``, ``min_gap``) and as contact points (``contacts.vtkhdf``). Forces
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
    LAWS,
    ContactModel,
    ContactScene,
    CoulombFrictionLaw,
    Cylinder,
    DampingLaw,
    DissipativeLaw,
    NormalLaw,
    Obstacle,
    ObstaclePotential,
    Plane,
    RodRodPotential,
    RollingContact,
    get_law,
)
from fe_rodcontact.contact.laws.registry import first_overflow
from fe_rodcontact.errors import InputError
from fe_rodcontact.io.contact_series import ContactSeriesWriter
from fe_rodcontact.rods.rod import CosseratRod

__all__ = [
    "REGULARIZATION_VELOCITY",
    "ContactSpec",
    "ObstacleSpec",
    "build_contact",
    "dissipative_law_from_table",
    "law_from_table",
]

MODELS = ("potential", "rolling")

REGULARIZATION_VELOCITY = 1e-3
"""[m/s] The friction's regularisation speed ε_v when a case does not give it: below it the
regularised Coulomb law is viscous, above it within ε_v²/(2|v_τ|²) of μ F_n. It suits slip
speeds of cm/s and more; give ``regularization_velocity`` for slower slips."""


@dataclasses.dataclass(frozen=True)
class ObstacleSpec:
    """A rigid plane or cylinder.

    Attributes:
        type: plane or cylinder.
        point: [m] A point of the plane, or of the cylinder's axis.
        normal: [-] The plane's normal, towards the rods (plane).
        velocity: [m/s] Constant velocity of a moving plane (plane; default: at rest).
        axis: [-] The cylinder's axis (cylinder).
        radius: [m] The cylinder's radius (cylinder).
        inside: The rods are inside the cylinder (a pipe) instead of outside (cylinder;
            default false).
        rate: [rad/s] The cylinder's turning rate about its axis, right-handed (cylinder;
            default 0: at rest): a drum or a winch that carries rolling rods with it.
        name: The obstacle's name in outputs (default: ``contact.obstacles[i]``).
    """

    type: str
    point: tuple[float, float, float] = (0.0, 0.0, 0.0)
    normal: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] | None = None
    axis: tuple[float, float, float] | None = None
    radius: float | None = None
    inside: bool | None = None
    rate: float | None = None
    name: str | None = None

    def build(self, where: str) -> Obstacle:
        """The obstacle; ``where`` (``contact.obstacles[i]``) starts every message."""
        try:
            return self._build(where)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None

    def _build(self, where: str) -> Obstacle:
        if self.type not in ("plane", "cylinder"):
            raise InputError(f"type {self.type!r} unknown; use 'plane' or 'cylinder'.")
        wrong = PLANE_ONLY if self.type == "cylinder" else CYLINDER_ONLY
        given = [key for key in wrong if getattr(self, key) is not None]
        if given:
            other = "plane" if self.type == "cylinder" else "cylinder"
            raise InputError(f"{given[0]} is for a {other}, not a {self.type}; remove it.")
        name = self.name if self.name is not None else where
        if self.type == "plane":
            if self.normal is None:
                raise InputError("a plane needs normal = [nx, ny, nz] (towards the rods).")
            velocity = self.velocity if self.velocity is not None else (0.0, 0.0, 0.0)
            return Plane(self.point, self.normal, velocity, name=name)
        if self.axis is None or self.radius is None:
            raise InputError("a cylinder needs axis = [ex, ey, ez] and radius.")
        rate = 0.0 if self.rate is None else self.rate
        return Cylinder(self.point, self.axis, self.radius, bool(self.inside), name=name, rate=rate)


PLANE_ONLY = ("normal", "velocity")
CYLINDER_ONLY = ("axis", "radius", "inside", "rate")


@dataclasses.dataclass(frozen=True)
class ContactSpec:
    """The ``[contact]`` table.

    Attributes:
        model: potential (forces from contact laws) or rolling (no-slip constraints with
            Lagrange multipliers).
        margin: [m] Contact search margin: gaps below it are contacts (default: half the
            smallest section radius). Rod–rod potential forces are cut off there.
        self_contact: Search each rod against itself (and, with rod_law or rolling, act on it).
        pairs: The rod pairs that may touch: ``"all"`` or a list of ``["a", "b"]`` names.
        output_every: Write the contact points with their forces and slip
            (``contacts.vtkhdf``, one file per run) every k steps (0: never).
        law: Conservative law between rods and obstacles, ``{ name = ..., parameters }``
            (see the contact laws below; potential model).
        damping: Damping law between rods and obstacles, ``{ coefficient = ...,
            exponent = ... }`` (optional; potential model).
        friction: Regularised Coulomb friction between rods and obstacles,
            ``{ friction_coefficient = ..., regularization_velocity = ... }``, or the friction
            coefficient alone (``friction = 0.8``); the regularisation speed ε_v defaults to
            1e-3 m/s (optional; potential model).
        quadrature_degree: Degree of the Gauss rule that integrates the law, damping and
            friction between rods and obstacles along the rods, at least 1 (default: 2·degree
            + 2, i.e. 4 for P1 and 6 for P2 elements, 3 and 4 points per element). Raise it
            when the contact zone is a few elements long, e.g. a ring standing on a plane
            (potential model, with obstacles).
        obstacles: Rigid planes and cylinders, one ``[[contact.obstacles]]`` table each.
        rod_law: Conservative law between rods and of a rod with itself, a force per contact
            point (optional; without it rod contacts are only reported; potential model).
        rod_damping: Damping law between rods, with rod_law (optional; potential model).
        rod_friction: Friction between rods, with rod_law, as ``friction`` (optional;
            potential model).
        centreline: The centreline the search uses: smooth (cubic B-spline through the nodes;
            the default for P1) or basis (the finite-element interpolation; the default for P2).
        unilateral: Release rolling contacts whose normal force turns tensile (rolling model).
        friction_coefficient: [-] Friction coefficient μ: the friction-cone ratio is reported
            per contact (rolling model; optional).
        slide_outside_cone: Contacts outside the friction cone slide (rolling model; needs
            friction_coefficient).
        impacts: What a contact closing during the run does: inelastic (a perfectly inelastic
            impact, its energy loss recorded) or error (stop) (rolling model).
        touch_tolerance: [-] Gap relative to the sum of the radii, abs(g)/(R_a + R_b), below
            which rods count as touching at the start (rolling model).
    """

    model: str = "potential"
    margin: float | None = None
    self_contact: bool = True
    pairs: str | list[list[str]] = "all"
    output_every: int = 1
    law: dict[str, Any] = dataclasses.field(default_factory=dict)
    damping: dict[str, Any] | None = None
    friction: dict[str, Any] | float | None = None
    obstacles: list[ObstacleSpec] = dataclasses.field(default_factory=list)
    rod_law: dict[str, Any] | None = None
    rod_damping: dict[str, Any] | None = None
    rod_friction: dict[str, Any] | float | None = None
    quadrature_degree: int | None = None
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
            given = [k for k in laws if getattr(self, k) is not None and getattr(self, k) != {}]
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
        self._check_quadrature()
        if isinstance(self.pairs, str) and self.pairs != "all":
            raise InputError(f"pairs must be 'all' or a list of rod pairs, got {self.pairs!r}.")
        for i, pair in enumerate(self.pairs if isinstance(self.pairs, list) else ()):
            if len(pair) != 2:
                raise InputError(f'pairs[{i}] must name two rods, e.g. ["a", "b"], got {pair!r}.')
        for_obstacles = [
            k for k in ("law", "damping", "friction") if getattr(self, k) not in (None, {})
        ]
        if self.model == "potential" and for_obstacles and not self.obstacles:
            raise InputError(
                f"contact.{for_obstacles[0]} acts between the rods and obstacles, but there is "
                "no [[contact.obstacles]]; add one, or give forces between rods as rod_law "
                "(rod_damping, rod_friction)."
            )

    def _check_quadrature(self) -> None:
        """``quadrature_degree``: a positive integer, for the laws on obstacles only."""
        if self.quadrature_degree is None:
            return
        if self.quadrature_degree < 1:
            raise InputError(
                f"contact.quadrature_degree = {self.quadrature_degree} is not a Gauss rule's "
                "degree; give an integer of at least 1, or leave it out for 2·degree + 2."
            )
        if self.model == "rolling":
            raise InputError(
                "contact.quadrature_degree belongs to model = 'potential' (rolling contact acts "
                "at points, not along the rods); remove it or set model = 'potential'."
            )
        if not self.obstacles:
            raise InputError(
                "contact.quadrature_degree sets the rule of the laws between the rods and "
                "obstacles, but there is no [[contact.obstacles]]; add one or remove it."
            )


def law_from_table(table: dict[str, Any], where: str, dissipative: str) -> NormalLaw:
    """The conservative law of table ``where``; ``dissipative`` names the keys of the others."""
    params = dict(table)
    name = params.pop("name", None)
    if name is None:
        raise InputError(f"{where} needs name = 'repulsive' (or another law of LAWS).")
    kind = LAWS.get(str(name))
    if kind is not None and not issubclass(kind, NormalLaw):
        normal = [key for key, cls in LAWS.items() if issubclass(cls, NormalLaw)]
        raise InputError(
            f"{where}: {name!r} is a {kind.__name__}, not a conservative law; {where} takes one "
            f"of {normal}, and damping and friction go in {dissipative}."
        )
    try:
        law = get_law(str(name), **params)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    assert isinstance(law, NormalLaw)
    return law


def dissipative_law_from_table[Law: (DampingLaw, CoulombFrictionLaw)](
    table: dict[str, Any] | float | None, cls: type[Law], where: str
) -> Law | None:
    """The damping or friction law of table ``where`` (its keys are the law's parameters).

    Friction may be given as its coefficient alone, and its ``regularization_velocity`` may be
    left out: it is then :data:`REGULARIZATION_VELOCITY`.
    """
    if table is None:
        return None
    if cls is CoulombFrictionLaw:
        if not isinstance(table, dict):
            table = {"friction_coefficient": table}
        table = {"regularization_velocity": REGULARIZATION_VELOCITY, **table}
    elif not isinstance(table, dict):
        raise InputError(f"{where} must be a table of the law's parameters, got {table!r}.")
    known = [f.name for f in dataclasses.fields(cls)]
    unknown = [key for key in table if key not in known]
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.name not in table
    ]
    if unknown:
        raise InputError(f"{where} has no key {unknown[0]!r}; its keys are {known}.")
    if required:
        raise InputError(f"{where} needs {required[0]} (its keys are {known}).")
    try:
        return cls(**table)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def build_contact(
    spec: ContactSpec, rod: CosseratRod, folder: Path | None, *, restart: bool = False
) -> ContactScene:
    """The contact scene of a case: its targets, models and contact-point output.

    The contact points go to ``folder/contacts.vtkhdf`` (a fresh run replaces the file at its
    first frame; ``restart`` cuts it back to the checkpoint's frames).
    """
    places = [f"contact.obstacles[{i}]" for i in range(len(spec.obstacles))]
    obstacles = [o.build(where) for o, where in zip(spec.obstacles, places, strict=True)]
    pairs: list[str | tuple[str, str]] = (
        ["rods"] if isinstance(spec.pairs, str) else [(a, b) for a, b in spec.pairs]
    )
    writer = None
    if folder is not None and spec.output_every > 0:
        writer = ContactSeriesWriter(folder / "contacts.vtkhdf", rod.rods.comm, restart=restart)
    try:
        scene = ContactScene(
            rod,
            margin=spec.margin,
            centreline=spec.centreline,
            output=writer,
            output_every=spec.output_every,
        )
    except InputError as error:
        raise InputError(f"contact: {error}") from None
    between_rods, on_obstacles = _models(spec, scene.margin, bool(obstacles))
    for i, pair in enumerate(pairs):
        try:
            scene.add(pair, between_rods)
        except InputError as error:
            raise InputError(f"contact.pairs[{i}]: {error}") from None
    if spec.self_contact:
        scene.add("self", between_rods)
    for obstacle, where in zip(obstacles, places, strict=True):
        try:
            scene.add(obstacle, on_obstacles)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
    return scene


def _models(
    spec: ContactSpec, margin: float, obstacles: bool
) -> tuple[ContactModel | None, ContactModel | None]:
    """The models between rods and on the obstacles (``None``: search and report only).

    Raises:
        InputError: Naming the key, for a law of the wrong kind, or one that overflows at the
            search margin.
    """
    if spec.model == "rolling":
        try:
            rolling = RollingContact(
                unilateral=spec.unilateral,
                friction_coefficient=spec.friction_coefficient,
                slide_outside_cone=spec.slide_outside_cone,
                impacts=spec.impacts,
                touch_tolerance=spec.touch_tolerance,
            )
        except InputError as error:
            raise InputError(f"contact: {error}") from None
        return rolling, rolling
    laws: dict[str, NormalLaw | DissipativeLaw | None] = {}
    on_obstacles = between_rods = None
    if obstacles:
        if not spec.law:
            raise InputError("contact.law is missing: give the law between rods and obstacles.")
        law = law_from_table(spec.law, "contact.law", "contact.damping and contact.friction")
        damping = dissipative_law_from_table(spec.damping, DampingLaw, "contact.damping")
        friction = dissipative_law_from_table(spec.friction, CoulombFrictionLaw, "contact.friction")
        on_obstacles = ObstaclePotential(
            law, damping=damping, friction=friction, quadrature_degree=spec.quadrature_degree
        )
        laws.update(law=law, damping=damping)
    if spec.rod_law is None and (spec.rod_damping is not None or spec.rod_friction is not None):
        raise InputError("contact.rod_damping and contact.rod_friction need contact.rod_law.")
    if spec.rod_law is not None:
        law = law_from_table(
            spec.rod_law, "contact.rod_law", "contact.rod_damping and contact.rod_friction"
        )
        damping = dissipative_law_from_table(spec.rod_damping, DampingLaw, "contact.rod_damping")
        friction = dissipative_law_from_table(
            spec.rod_friction, CoulombFrictionLaw, "contact.rod_friction"
        )
        between_rods = RodRodPotential(law, damping=damping, friction=friction)
        laws.update(rod_law=law, rod_damping=damping)
    problem = first_overflow(laws, margin, " (the search margin)")
    if problem is not None:
        raise InputError(f"contact.{problem}")
    return between_rods, on_obstacles
