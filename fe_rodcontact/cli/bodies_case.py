"""TOML case files of ``fe-rodcontact bodies``: Tatone's rigid and affine bodies on planes.

A bodies case (see ``demos/cases/tatone_balls.toml``)::

    [time]             t_end, dt, min_dt
    [[bodies]]         name, model (rigid|affine), shape (sphere|box|disc|rounded_cube|top)
                       and its sizes, density, gravity, the initial state (position, velocity,
                       rotation, angular_velocity; affine: deformation, deformation_rate),
                       affine: viscosity and [bodies.material] (c10, c01, bulk)
    [contact]          law = { name = "repulsive", ... }, damping = {...}, friction = {...},
                       contact_range
    [[contact.obstacles]]   type (plane|drum), point, normal (plane); radius, axis, rate (drum)
    [output]           folder, series, frames

Every body touches every obstacle through the laws of ``[contact]``
(:class:`~fe_rodcontact.bodies.PlaneContact`, :class:`~fe_rodcontact.bodies.DrumContact`);
bodies do not touch each other. Unknown keys are errors that name the key, as in every case
file (:func:`~fe_rodcontact.cli.case.load_case`).
"""

import dataclasses
from typing import Any

import numpy as np

from fe_rodcontact.bodies import (
    AffineBody,
    Body,
    Box,
    Disc,
    Drum,
    DrumContact,
    MooneyRivlin,
    PlaneContact,
    RigidBody,
    RoundedCube,
    Shape,
    Sphere,
    SurfaceContact,
    Top,
)
from fe_rodcontact.cli.contact_case import dissipative_law_from_table, law_from_table
from fe_rodcontact.cli.output import output_name
from fe_rodcontact.contact import CoulombFrictionLaw, DampingLaw, DissipativeLaw, Plane
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.rotations import exp_map, skew

__all__ = [
    "BODY_MODELS",
    "SHAPES",
    "BodiesCase",
    "BodiesContactSpec",
    "BodiesOutputSpec",
    "BodiesTimeSpec",
    "BodySpec",
    "MaterialSpec",
    "SurfaceSpec",
]

Vector = tuple[float, float, float]

SHAPES: dict[str, tuple[str, ...]] = {
    "sphere": ("radius", "points"),
    "box": ("half_extents", "order"),
    "disc": ("radius", "half_height", "order"),
    "rounded_cube": ("half_side", "edge_radius", "order"),
    "top": ("height", "radius", "tip_radius", "order"),
}
"""The shapes a body takes, with their keys (:mod:`fe_rodcontact.bodies.shapes`)."""

BODY_MODELS = ("rigid", "affine")
AFFINE_ONLY = ("deformation", "deformation_rate", "material", "viscosity")


@dataclasses.dataclass(frozen=True)
class MaterialSpec:
    """A compressible Mooney–Rivlin material (:class:`~fe_rodcontact.bodies.MooneyRivlin`).

    Attributes:
        c10: [Pa] c₁₀ ≥ 0; the small-strain shear modulus is 2 (c₁₀ + c₀₁).
        bulk: [Pa] κ > 0, the coefficient of ½ κ (ln det F)².
        c01: [Pa] c₀₁ ≥ 0.
    """

    c10: float
    bulk: float
    c01: float = 0.0

    def build(self) -> MooneyRivlin:
        """The :class:`MooneyRivlin`."""
        return MooneyRivlin(self.c10, self.c01, self.bulk)


@dataclasses.dataclass(frozen=True)
class BodySpec:
    """A rigid or affine body: shape, density, material and initial state.

    Each shape takes its own keys: ``sphere`` (radius, points), ``box`` (half_extents, order),
    ``disc`` (radius, half_height, order), ``rounded_cube`` (half_side, edge_radius, order),
    ``top`` (height, radius, tip_radius, order); see :mod:`fe_rodcontact.bodies.shapes`.

    Attributes:
        shape: The paragon shape: sphere, box, disc, rounded_cube or top (its centroid at the
            origin of its coordinates, axis e₃ for a disc and a top).
        density: [kg/m³] Mass density (> 0).
        name: The body's name in outputs (default ``bodies[i]``).
        model: rigid (p_o + R(x − x_o)) or affine (p_o + F(x − x_o), Mooney–Rivlin).
        radius: [m] Radius of the sphere, the disc, or the top's flat end.
        points: Quadrature points on the sphere (a Fibonacci lattice; default 2000).
        half_extents: [m] The box's half-extents along e₁, e₂, e₃.
        half_height: [m] Half the disc's height.
        half_side: [m] Half the rounded cube's side.
        edge_radius: [m] Radius of the rounded cube's edges and corners.
        height: [m] The top's height from its (virtual) apex to its flat end.
        tip_radius: [m] Radius of the top's round tip.
        order: Gauss points per direction of each patch of the boundary (box, disc,
            rounded_cube, top; default: the shape's).
        gravity: [m/s²] Acceleration of gravity.
        position: [m] Placement of the centroid at the start.
        velocity: [m/s] Velocity of the centroid at the start.
        rotation: [rad] Rotation vector ψ of the start, R = exp(ψ) (rigid), F = exp(ψ) (affine,
            unless deformation is given).
        angular_velocity: [rad/s] Spatial angular velocity at the start (affine: Ḟ = [ω]× F,
            unless deformation_rate is given).
        deformation: [-] F at the start, three rows of three numbers, det F > 0 (affine).
        deformation_rate: [1/s] Ḟ at the start, three rows (affine).
        material: The Mooney–Rivlin material (affine; required there).
        viscosity: [Pa·s] μ of the dissipative stress μ sym(Ḟ F⁻¹) (affine).
    """

    shape: str
    density: float
    name: str | None = None
    model: str = "rigid"
    radius: float | None = None
    points: int | None = None
    half_extents: Vector | None = None
    half_height: float | None = None
    half_side: float | None = None
    edge_radius: float | None = None
    height: float | None = None
    tip_radius: float | None = None
    order: int | None = None
    gravity: Vector = (0.0, 0.0, -9.81)
    position: Vector = (0.0, 0.0, 0.0)
    velocity: Vector = (0.0, 0.0, 0.0)
    rotation: Vector = (0.0, 0.0, 0.0)
    angular_velocity: Vector = (0.0, 0.0, 0.0)
    deformation: list[list[float]] | None = None
    deformation_rate: list[list[float]] | None = None
    material: MaterialSpec | None = None
    viscosity: float | None = None

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise InputError(f"shape {self.shape!r} unknown; use one of {list(SHAPES)}.")
        if self.model not in BODY_MODELS:
            raise InputError(f"model {self.model!r} unknown; use one of {list(BODY_MODELS)}.")
        keys = SHAPES[self.shape]
        every = {key for keys_ in SHAPES.values() for key in keys_}
        wrong = [k for k in sorted(every - set(keys)) if getattr(self, k) is not None]
        if wrong:
            raise InputError(
                f"{wrong[0]} is not a key of shape {self.shape!r}; its keys are {list(keys)}."
            )
        required = [k for k in keys if k not in ("points", "order") and getattr(self, k) is None]
        if required:
            raise InputError(f"shape {self.shape!r} needs {required[0]} (its keys: {list(keys)}).")
        if self.model == "rigid":
            given = [k for k in AFFINE_ONLY if getattr(self, k) is not None]
            if given:
                raise InputError(
                    f"{given[0]} is for model = 'affine'; remove it or set model = 'affine'."
                )
        elif self.material is None:
            raise InputError("an affine body needs [bodies.material] (c10, c01, bulk).")

    def build_shape(self) -> Shape:
        """The paragon :class:`~fe_rodcontact.bodies.Shape`."""
        order = {} if self.order is None else {"order": self.order}
        if self.shape == "sphere":
            points = {} if self.points is None else {"points": self.points}
            return Sphere(_given(self.radius), **points)
        if self.shape == "box":
            return Box(_given(self.half_extents), **order)
        if self.shape == "disc":
            return Disc(_given(self.radius), _given(self.half_height), **order)
        if self.shape == "rounded_cube":
            return RoundedCube(_given(self.half_side), _given(self.edge_radius), **order)
        return Top(_given(self.height), _given(self.radius), _given(self.tip_radius), **order)

    def build(self, where: str, contacts: list[SurfaceContact]) -> Body:
        """The body; ``where`` (``bodies[i]``) names it by default and starts every message."""
        name = self.name if self.name is not None else where
        try:
            shape = self.build_shape()
            turn = exp_map(np.asarray(self.rotation, dtype=float))
            common: dict[str, Any] = {
                "position": self.position,
                "velocity": self.velocity,
                "gravity": self.gravity,
                "contacts": contacts,
                "name": name,
            }
            if self.model == "rigid":
                return RigidBody(
                    shape,
                    self.density,
                    rotation=turn,
                    angular_velocity=self.angular_velocity,
                    **common,
                )
            return self._affine(shape, turn, common)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None

    def _affine(self, shape: Shape, turn: np.ndarray, common: dict[str, Any]) -> AffineBody:
        if self.deformation is not None and any(self.rotation):
            raise InputError("give rotation or deformation, not both (F = exp(ψ) or F).")
        if self.deformation_rate is not None and any(self.angular_velocity):
            raise InputError("give angular_velocity or deformation_rate, not both.")
        f = turn if self.deformation is None else _matrix("deformation", self.deformation)
        rate = skew(np.asarray(self.angular_velocity, dtype=float)) @ f
        if self.deformation_rate is not None:
            rate = _matrix("deformation_rate", self.deformation_rate)
        assert self.material is not None
        return AffineBody(
            shape,
            self.density,
            self.material.build(),
            viscosity=0.0 if self.viscosity is None else self.viscosity,
            deformation=f,
            deformation_rate=rate,
            **common,
        )


def _given[T](value: T | None) -> T:
    """A value that a check before made sure is there."""
    assert value is not None
    return value


def _matrix(key: str, rows: list[list[float]]) -> np.ndarray:
    """Three rows of three numbers as a 3×3 array, or an InputError naming ``key``."""
    if len(rows) != 3 or any(len(row) != 3 for row in rows):
        raise InputError(f"{key} must be three rows of three numbers, e.g. [[1, 0, 0], ...].")
    return np.asarray(rows, dtype=float)


@dataclasses.dataclass(frozen=True)
class SurfaceSpec:
    """A fixed plane, or a drum turning at a prescribed rate whose inside the bodies touch.

    Attributes:
        type: plane or drum.
        point: [m] A point of the plane, or of the drum's axis.
        normal: [-] The plane's normal, towards the bodies (plane).
        radius: [m] The drum's inner radius (drum).
        axis: [-] The drum's axis; it turns positively about it (drum).
        rate: [rad/s] The drum's turning rate (drum; default 0, at rest).
        name: The surface's name in messages and outputs (default ``contact.obstacles[i]``).
    """

    type: str
    point: Vector = (0.0, 0.0, 0.0)
    normal: Vector | None = None
    radius: float | None = None
    axis: Vector | None = None
    rate: float | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.type not in ("plane", "drum"):
            raise InputError(f"type {self.type!r} unknown; use 'plane' or 'drum'.")
        wrong = ("radius", "axis", "rate") if self.type == "plane" else ("normal",)
        given = [key for key in wrong if getattr(self, key) is not None]
        if given:
            other = "drum" if self.type == "plane" else "plane"
            raise InputError(f"{given[0]} is for a {other}, not a {self.type}; remove it.")
        if self.type == "plane" and self.normal is None:
            raise InputError("a plane needs normal = [nx, ny, nz] (towards the bodies).")
        if self.type == "drum" and (self.radius is None or self.axis is None):
            raise InputError("a drum needs radius and axis = [ex, ey, ez].")

    def build(
        self,
        where: str,
        law: Any,
        dissipative: list[DissipativeLaw],
        contact_range: float | None,
    ) -> SurfaceContact:
        """The :class:`PlaneContact` or :class:`DrumContact` with the case's laws."""
        name = self.name if self.name is not None else where
        try:
            if self.type == "plane":
                plane = Plane(self.point, _given(self.normal), name=name)
                return PlaneContact(plane, law, dissipative, contact_range)
            drum = Drum(
                _given(self.radius), self.point, _given(self.axis), self.rate or 0.0, name=name
            )
            return DrumContact(drum, law, dissipative, contact_range)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None


@dataclasses.dataclass(frozen=True)
class BodiesContactSpec:
    """The ``[contact]`` table of a bodies case: the surfaces and the laws on the bodies.

    Attributes:
        law: Conservative law per unit (deformed) area, ``{ name = ..., parameters }`` (see
            the contact laws below).
        damping: Tatone's normal damping per unit area, ``{ coefficient = ...,
            exponent = ... }`` (optional).
        friction: Regularised Coulomb friction, ``{ friction_coefficient = ...,
            regularization_velocity = ... }`` (optional).
        contact_range: [m] Boundary points farther than this from a surface at a step's start
            are left out of that step (default: none left out).
        obstacles: The planes and drums, one ``[[contact.obstacles]]`` table each.
    """

    law: dict[str, Any] = dataclasses.field(default_factory=dict)
    damping: dict[str, Any] | None = None
    friction: dict[str, Any] | None = None
    contact_range: float | None = None
    obstacles: list[SurfaceSpec] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.obstacles:
            raise InputError("[contact] needs at least one [[contact.obstacles]] (plane or drum).")
        if not self.law and self.damping is None:
            raise InputError("contact.law is missing: give the law between bodies and obstacles.")

    def build(self) -> list[SurfaceContact]:
        """The contacts every body gets."""
        law = (
            law_from_table(self.law, "contact.law", "contact.damping and contact.friction")
            if self.law
            else None
        )
        damping = dissipative_law_from_table(self.damping, DampingLaw, "contact.damping")
        friction = dissipative_law_from_table(self.friction, CoulombFrictionLaw, "contact.friction")
        laws: list[DissipativeLaw] = [x for x in (damping, friction) if x is not None]
        return [
            surface.build(f"contact.obstacles[{i}]", law, laws, self.contact_range)
            for i, surface in enumerate(self.obstacles)
        ]


@dataclasses.dataclass(frozen=True)
class BodiesTimeSpec:
    """Time stepping of the bodies (:func:`~fe_rodcontact.bodies.advance`).

    Attributes:
        t_end: [s] End time (the run starts at 0).
        dt: [s] The time step (the largest; a step whose Newton solve fails or that
            penetrates is halved, and doubled back after easy steps).
        min_dt: [s] Smallest step before the run stops with a convergence failure (default
            dt/1024).
    """

    t_end: float
    dt: float
    min_dt: float | None = None

    def __post_init__(self) -> None:
        for key in ("t_end", "dt"):
            value = getattr(self, key)
            if not (np.isfinite(value) and value > 0):
                raise InputError(f"{key} must be a positive number, got {value}.")


@dataclasses.dataclass(frozen=True)
class BodiesOutputSpec:
    """Where and what a bodies run writes.

    Attributes:
        folder: The output folder, relative to the current folder.
        series: File name of the time series (``.npz``: ``<body>.<key>`` per body) in the
            folder; its description goes to the ``.json`` file of the same stem.
        frames: Frames of the bodies' boundary points for ParaView (``bodies.pvd``), evenly
            spaced over the run after the start (0: none).
    """

    folder: str = "results"
    series: str = "series.npz"
    frames: int = 50

    def __post_init__(self) -> None:
        output_name(self.series, "series", ".npz")
        if self.frames < 0:
            raise InputError(f"frames must be >= 0 (0: none), got {self.frames}.")


@dataclasses.dataclass(frozen=True)
class BodiesCase:
    """A bodies case file (``fe-rodcontact bodies case.toml``).

    Attributes:
        time: Time stepping (required).
        bodies: The bodies, one ``[[bodies]]`` table each.
        contact: The planes and drums the bodies touch and the laws (default: none, free
            bodies).
        output: Where and what to write.
    """

    time: BodiesTimeSpec
    bodies: list[BodySpec] = dataclasses.field(default_factory=list)
    contact: BodiesContactSpec | None = None
    output: BodiesOutputSpec = dataclasses.field(default_factory=BodiesOutputSpec)

    def __post_init__(self) -> None:
        if not self.bodies:
            raise InputError("a bodies case needs at least one [[bodies]] table.")
        names = [
            b.name if b.name is not None else f"bodies[{i}]" for i, b in enumerate(self.bodies)
        ]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise InputError(f"bodies.name {repeated[0]!r} is given twice; names must differ.")
