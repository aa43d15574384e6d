"""Loads on rods as virtual-work forms, and supports (boundary conditions) at rod ends.

Loads are small frozen classes with one method, ``virtual_work(rod, factor)``, returning
the UFL form of their virtual work scaled by ``factor`` (a load factor in statics, or a
function of time in dynamics). Moments do work on the spatial virtual rotation
δφ = Jl(θ) δθ of the incremental rotation vector θ.

Supports fix components of the displacement and of the rotation at a rod end; prescribed
values grow with the load factor: u = λ ū and Λ = exp(λ ψ) Λ₀ at the end.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import InputError
from fe_rodcontact.rods import kinematics
from fe_rodcontact.rods.rod import CosseratRod

__all__ = [
    "DistributedForce",
    "EndForce",
    "EndMoment",
    "Gravity",
    "Load",
    "PointForce",
    "PointMoment",
    "Support",
]


def _vector(value: npt.ArrayLike, what: str) -> tuple[float, float, float]:
    v = np.asarray(value, dtype=float)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InputError(f"{what} must be a finite 3-vector, got {value!r}.")
    return (float(v[0]), float(v[1]), float(v[2]))


class Load:
    """Interface: the virtual work of a load, scaled by ``factor``."""

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """The virtual work δW of the load at ``factor`` (a UFL scalar)."""
        raise NotImplementedError


@dataclass(frozen=True)
class EndForce(Load):
    """A point force at a rod end: dead (fixed direction) or follower (given in the body frame)."""

    rod: int | str
    end: str
    force: tuple[float, float, float]
    follower: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", _vector(self.force, "EndForce.force"))

    def measure(self, rod: CosseratRod) -> ufl.Measure:
        """Where the load acts."""
        return rod.ds(rod.rods.end_tag(self.rod, self.end))

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ F·δu at the end (F = Λ F_body for a follower force)."""
        return _force_work(rod, self.force, self.follower, factor) * self.measure(rod)


@dataclass(frozen=True)
class EndMoment(Load):
    """A point moment at a rod end: dead (fixed spatial vector) or follower (body frame)."""

    rod: int | str
    end: str
    moment: tuple[float, float, float]
    follower: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "moment", _vector(self.moment, "EndMoment.moment"))

    def measure(self, rod: CosseratRod) -> ufl.Measure:
        """Where the load acts."""
        return rod.ds(rod.rods.end_tag(self.rod, self.end))

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ M·δφ with δφ = Jl(θ) δθ (M = Λ M_body for a follower moment)."""
        return _moment_work(rod, self.moment, self.follower, factor) * self.measure(rod)


@dataclass(frozen=True)
class PointForce(Load):
    """A point force at an element end anywhere along a rod (given by its arc length).

    Dead (fixed direction) or follower (given in the body frame). The arc length is measured
    along the rod's reference centreline from its start; a node must lie there.
    """

    rod: int | str
    arclength: float
    force: tuple[float, float, float]
    follower: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", _vector(self.force, "PointForce.force"))

    def measure(self, rod: CosseratRod) -> ufl.Measure:
        """Where the load acts."""
        return rod.point_measure(self.rod, self.arclength)

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ F·δu at the point (F = Λ F_body for a follower force)."""
        return _force_work(rod, self.force, self.follower, factor) * self.measure(rod)


@dataclass(frozen=True)
class PointMoment(Load):
    """A point moment at an element end anywhere along a rod (given by its arc length)."""

    rod: int | str
    arclength: float
    moment: tuple[float, float, float]
    follower: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "moment", _vector(self.moment, "PointMoment.moment"))

    def measure(self, rod: CosseratRod) -> ufl.Measure:
        """Where the load acts."""
        return rod.point_measure(self.rod, self.arclength)

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ M·δφ with δφ = Jl(θ) δθ (M = Λ M_body for a follower moment)."""
        return _moment_work(rod, self.moment, self.follower, factor) * self.measure(rod)


def _force_work(
    rod: CosseratRod, force: tuple[float, ...], follower: bool, factor: ufl.core.expr.Expr
) -> ufl.core.expr.Expr:
    """λ F·δu (F = exp(θ) Λₙ F_body for a follower force), an integrand at a node."""
    du, _ = rod.split_test()
    value = ufl.as_vector(force)
    if follower:
        value = kinematics.rotate(rod.increment, rod.rotation * value)
    return factor * ufl.dot(value, du)


def _moment_work(
    rod: CosseratRod, moment: tuple[float, ...], follower: bool, factor: ufl.core.expr.Expr
) -> ufl.core.expr.Expr:
    """λ M·Jl(θ)δθ (M = exp(θ) Λₙ M_body for a follower moment), an integrand at a node."""
    _, dtheta = rod.split_test()
    value = ufl.as_vector(moment)
    if follower:
        value = kinematics.rotate(rod.increment, rod.rotation * value)
    return factor * ufl.dot(value, kinematics.apply_left_jacobian(rod.increment, dtheta))


@dataclass(frozen=True)
class DistributedForce(Load):
    """A dead force per unit reference length on the given rods (default: all)."""

    force: tuple[float, float, float]
    rods: tuple[int | str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", _vector(self.force, "DistributedForce.force"))

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ ∫ f·δu ds."""
        du, _ = rod.split_test()
        return factor * ufl.dot(ufl.as_vector(self.force), du) * _rod_measure(rod, self.rods)


@dataclass(frozen=True)
class Gravity(Load):
    """Self-weight ρA g per unit length, with g the gravitational acceleration vector."""

    acceleration: tuple[float, float, float] = (0.0, 0.0, -9.81)
    rods: tuple[int | str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "acceleration", _vector(self.acceleration, "Gravity.acceleration"))

    def virtual_work(self, rod: CosseratRod, factor: ufl.core.expr.Expr) -> ufl.Form:
        """δW = λ ∫ ρA g·δu ds."""
        du, _ = rod.split_test()
        line_density = rod.line_density
        weight = line_density * ufl.as_vector(self.acceleration)
        return factor * ufl.dot(weight, du) * _rod_measure(rod, self.rods)


def _rod_measure(rod: CosseratRod, rods: tuple[int | str, ...] | None) -> ufl.Measure:
    """Dx over all rods, or over the listed ones (via the rod cell tags)."""
    dx = rod.load_dx
    if rods is None:
        return dx
    ids = tuple(rod.rods.rod_index(r) for r in rods)
    return dx(ids)


SUPPORT_KINDS = ("clamped", "pinned", "free", "prescribed")


@dataclass(frozen=True)
class Support:
    """Boundary conditions at one rod end.

    Attributes:
        rod: Rod index or name.
        end: ``"start"`` or ``"end"``.
        displacement_components: Which displacement components are fixed (0, 1, 2 = x, y, z).
        rotation_components: Which rotation-increment components are fixed.
        displacement: Prescribed displacement at load factor 1 (grows linearly with λ).
        rotation: Prescribed rotation vector ψ at load factor 1: Λ = exp(λψ) Λ₀ at the end.
            When rotations are fixed, all three components must be.
        displacement_history: Optional u(t) for dynamics (overrides ``displacement``·λ).
        rotation_history: Optional ψ(t) for dynamics (overrides ``rotation``·λ).
    """

    rod: int | str
    end: str
    displacement_components: tuple[int, ...] = (0, 1, 2)
    rotation_components: tuple[int, ...] = (0, 1, 2)
    displacement: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    displacement_history: Callable[[float], npt.ArrayLike] | None = field(default=None)
    rotation_history: Callable[[float], npt.ArrayLike] | None = field(default=None)

    def __post_init__(self) -> None:
        if self.end not in ("start", "end"):
            raise InputError(f"Support.end must be 'start' or 'end', got {self.end!r}.")
        for name in ("displacement_components", "rotation_components"):
            comps = tuple(getattr(self, name))
            if any(c not in (0, 1, 2) for c in comps) or len(set(comps)) != len(comps):
                raise InputError(f"Support.{name} must be distinct values of 0, 1, 2; got {comps}.")
            object.__setattr__(self, name, comps)
        if len(self.rotation_components) not in (0, 3):
            raise InputError(
                "Support.rotation_components: fix all three rotation components or none "
                "(single components of a finite rotation are not frame-independent)."
            )
        object.__setattr__(self, "displacement", _vector(self.displacement, "Support.displacement"))
        object.__setattr__(self, "rotation", _vector(self.rotation, "Support.rotation"))

    @classmethod
    def clamped(cls, rod: int | str, end: str, **kwargs: object) -> "Support":
        """Displacement and rotation fixed (optionally prescribed)."""
        return cls(rod, end, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def pinned(cls, rod: int | str, end: str, **kwargs: object) -> "Support":
        """Displacement fixed (optionally prescribed), rotation free."""
        return cls(rod, end, rotation_components=(), **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_kind(cls, kind: str, rod: int | str, end: str, **kwargs: object) -> "Support":
        """A support from its name: clamped, pinned, free or prescribed (= clamped + values)."""
        if kind in ("clamped", "prescribed"):
            return cls.clamped(rod, end, **kwargs)
        if kind == "pinned":
            return cls.pinned(rod, end, **kwargs)
        if kind == "free":
            return cls(rod, end, displacement_components=(), rotation_components=(), **kwargs)  # type: ignore[arg-type]
        raise InputError(f"unknown support kind {kind!r}; use one of {SUPPORT_KINDS}.")
