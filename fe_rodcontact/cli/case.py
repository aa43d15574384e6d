"""TOML case files mapped one to one onto dataclasses; unknown or invalid keys are errors.

A statics case (see ``demos/cases/cantilever_rollup.toml``; read by
:func:`~fe_rodcontact.cli.tables.from_table`)::

    [mesh]                 degree, and optionally file (+ rod_tag) instead of [[rods]]
    [[rods]]               name, curve (straight|arc|ring|helix|polyline), its parameters,
                           elements, [rods.section]
    [section]              default section (circular: radius, E, nu|G, density; or general:
                           EA, GA1, GA2, EI1, EI2, GJ, rhoA, rhoI1, rhoI2, rhoJ, radius)
    [[supports]]           rod, end, kind (clamped|pinned|free|prescribed), displacement, rotation
    [[loads]]              type (end_force|end_moment|point_force|point_moment|
                           distributed_force|gravity) and its fields (point loads: rod,
                           arclength, force|moment, follower)
    [solver]               load stepping fields and petsc_options = {...}
    [output]               folder, vtx, vtu, plot
"""

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from fe_rodcontact.cli.tables import from_table, read_toml
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import Curve, arc, helix, polyline, ring, straight
from fe_rodcontact.rods.loads import (
    SUPPORT_KINDS,
    DistributedForce,
    EndForce,
    EndMoment,
    Gravity,
    Load,
    PointForce,
    PointMoment,
    Support,
)
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.statics import LoadStepping

__all__ = [
    "LoadSpec",
    "MeshSpec",
    "OutputSpec",
    "RodSpec",
    "SectionSpec",
    "SolverSpec",
    "StaticsCase",
    "SupportSpec",
    "load_case",
]

Vector = tuple[float, float, float]


@dataclasses.dataclass(frozen=True)
class SectionSpec:
    """A circular section (radius, E, nu or G) or a general one (all six stiffnesses).

    Give ``radius``, ``E`` and one of ``nu``, ``G`` (a solid circular section of an isotropic
    material, :meth:`~fe_rodcontact.rods.section.Section.circular`), or all six stiffnesses
    ``EA`` ... ``GJ`` (a general section, :class:`~fe_rodcontact.rods.section.Section`), not both.

    Attributes:
        radius: [m] Section radius; for a general section the contact radius (0: none).
        E: [Pa] Young's modulus (circular section).
        G: [Pa] Shear modulus (circular section; give G or nu).
        nu: [-] Poisson's ratio, in (-1, 0.5) (circular section; then G = E/(2(1 + ν))).
        density: [kg/m³] Mass density (circular section; 0: massless, statics only).
        shear_factor: [-] Shear correction factor κ (circular section; default Cowper's
            6(1 + ν)/(7 + 6ν)).
        EA: [N] Axial stiffness (general section).
        GA1: [N] Shear stiffness along the director d1 (general section).
        GA2: [N] Shear stiffness along d2 (general section).
        EI1: [N·m²] Bending stiffness about d1 (general section).
        EI2: [N·m²] Bending stiffness about d2 (general section).
        GJ: [N·m²] Torsional stiffness about d3, the tangent (general section).
        rhoA: [kg/m] Mass per unit length (general section).
        rhoI1: [kg·m] Rotary inertia per unit length about d1 (general section).
        rhoI2: [kg·m] Rotary inertia per unit length about d2 (general section).
        rhoJ: [kg·m] Polar rotary inertia per unit length about d3 (general section).
    """

    radius: float | None = None
    E: float | None = None
    G: float | None = None
    nu: float | None = None
    density: float = 0.0
    shear_factor: float | None = None
    EA: float | None = None
    GA1: float | None = None
    GA2: float | None = None
    EI1: float | None = None
    EI2: float | None = None
    GJ: float | None = None
    rhoA: float = 0.0
    rhoI1: float = 0.0
    rhoI2: float = 0.0
    rhoJ: float = 0.0

    def build(self, where: str) -> Section:
        """The :class:`Section`; ``where`` names the table in error messages."""
        general = ("EA", "GA1", "GA2", "EI1", "EI2", "GJ")
        given = [k for k in general if getattr(self, k) is not None]
        if given and self.E is not None:
            raise InputError(f"{where}: give either E (circular section) or {general}, not both.")
        if self.E is None and len(given) != len(general):
            missing = [k for k in general if k not in given]
            raise InputError(f"{where}: give radius and E, or all of a general section {missing}.")
        if self.E is not None and self.radius is None:
            raise InputError(f"{where}: a circular section needs radius.")
        try:
            if self.E is not None:
                assert self.radius is not None
                return Section.circular(
                    self.radius,
                    self.E,
                    G=self.G,
                    nu=self.nu,
                    density=self.density,
                    shear_factor=self.shear_factor,
                )
            return Section(
                **{k: getattr(self, k) for k in general},
                rhoA=self.rhoA,
                rhoI1=self.rhoI1,
                rhoI2=self.rhoI2,
                rhoJ=self.rhoJ,
                radius=self.radius or 0.0,
            )
        except InputError as error:
            raise InputError(f"{where}: {error}") from None


def _given(value: float | None) -> float:
    """A value that a check before made sure is there."""
    assert value is not None
    return value


@dataclasses.dataclass(frozen=True)
class RodSpec:
    """One rod from a generator or a polyline, with its element count and optional section.

    Each curve takes its own keys: ``straight`` (start, end, normal), ``arc`` (radius, angle,
    centre, axis, start_direction), ``ring`` (radius, centre, axis, start_direction), ``helix``
    (radius, pitch, turns, centre, axis, start_direction), ``polyline`` (vertices, closed,
    normal); see :mod:`fe_rodcontact.rods.curves`.

    Attributes:
        curve: The generator: straight, arc, ring, helix or polyline.
        name: The rod's name, by which supports, loads and contact pairs may refer to it (a rod
            can always be referred to by its index in the list, from 0).
        elements: Number of elements (required by the generators; a polyline's elements are
            its own segments, so it takes none).
        start: [m] First point (straight).
        end: [m] Last point (straight).
        radius: [m] Radius of the arc, ring or helix.
        angle: [rad] Angle the arc spans.
        pitch: [m] Rise of the helix per turn along its axis.
        turns: [-] Number of turns of the helix.
        centre: [m] Centre of the arc or ring, a point of the helix axis.
        axis: [-] Axis of the arc, ring or helix (normalised).
        start_direction: [-] Direction from the centre to the first point (arc, ring, helix).
        vertices: [m] The polyline's points, a list of [x, y, z].
        closed: Whether the polyline closes on itself (its last point joins its first).
        normal: [-] Hint for the first director d1 at the start (straight, polyline; projected
            normal to the tangent).
        section: This rod's section ([rods.section]; default: the top-level [section]).
    """

    curve: str
    name: str = ""
    elements: int | None = None
    start: Vector | None = None
    end: Vector | None = None
    radius: float | None = None
    angle: float | None = None
    pitch: float | None = None
    turns: float | None = None
    centre: Vector = (0.0, 0.0, 0.0)
    axis: Vector = (0.0, 0.0, 1.0)
    start_direction: Vector = (1.0, 0.0, 0.0)
    vertices: list[Vector] | None = None
    closed: bool = False
    normal: Vector | None = None
    section: SectionSpec | None = None

    def build(self, where: str) -> Curve:
        """The :class:`Curve`; ``where`` names the table in error messages."""

        def need(*names: str) -> None:
            missing = [n for n in names if getattr(self, n) is None]
            if missing:
                raise InputError(f"{where}: curve {self.curve!r} needs {missing}.")

        if self.curve == "straight":
            need("start", "end")
            return straight(self.start, self.end, normal=self.normal, name=self.name)  # type: ignore[arg-type]
        if self.curve == "arc":
            need("radius", "angle")
            return arc(
                _given(self.radius),
                _given(self.angle),
                centre=self.centre,
                axis=self.axis,  # type: ignore[arg-type]
                start_direction=self.start_direction,
                name=self.name,
            )
        if self.curve == "ring":
            need("radius")
            return ring(
                _given(self.radius),
                centre=self.centre,
                axis=self.axis,  # type: ignore[arg-type]
                start_direction=self.start_direction,
                name=self.name,
            )
        if self.curve == "helix":
            need("radius", "pitch", "turns")
            return helix(
                _given(self.radius),
                _given(self.pitch),
                _given(self.turns),
                centre=self.centre,
                axis=self.axis,  # type: ignore[arg-type]
                start_direction=self.start_direction,
                name=self.name,
            )
        if self.curve == "polyline":
            need("vertices")
            return polyline(
                np.asarray(self.vertices), closed=self.closed, normal=self.normal, name=self.name
            )
        raise InputError(
            f"{where}.curve: unknown curve {self.curve!r}; "
            "use straight, arc, ring, helix or polyline."
        )


@dataclasses.dataclass(frozen=True)
class MeshSpec:
    """Element degree, and optionally a mesh file (rods then come from the file).

    Attributes:
        degree: Lagrange degree of the elements: 1 or 2.
        file: A mesh of line cells (gmsh ``.msh``, ``.xdmf``, ``.vtu``) read with meshio,
            relative to the case file; each tag (or connected chain) is a rod, and ``[[rods]]``
            is then not given.
        rod_tag: The file's cell data that numbers the rods (default: the first of
            ``gmsh:physical``, ``rod``, ``rods``, ``tags``, ``cell_tags`` present).
    """

    degree: int = 1
    file: str | None = None
    rod_tag: str | None = None


@dataclasses.dataclass(frozen=True)
class SupportSpec:
    """A support at a rod end (see :class:`~fe_rodcontact.rods.loads.Support`).

    Attributes:
        rod: The rod, by name or index.
        end: Which end: ``start`` or ``end``.
        kind: clamped (displacement and rotation held), pinned (displacement held), free, or
            prescribed (clamped, moved to ``displacement`` and ``rotation``).
        displacement: [m] Prescribed displacement of the end (prescribed): reached at load factor
            1 in statics (it grows with the load factor), held from the start in dynamics.
        rotation: [rad] Prescribed rotation vector ψ of the end (prescribed): Λ = exp(λψ) Λ₀ at
            load factor λ.
    """

    rod: str | int
    end: str
    kind: str = "clamped"
    displacement: Vector = (0.0, 0.0, 0.0)
    rotation: Vector = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if self.kind not in SUPPORT_KINDS:
            raise InputError(f"unknown support kind {self.kind!r}; use one of {SUPPORT_KINDS}.")

    def build(self) -> Support:
        """The :class:`Support`."""
        return Support.from_kind(
            self.kind, self.rod, self.end, displacement=self.displacement, rotation=self.rotation
        )


LOAD_TYPES = (
    "end_force",
    "end_moment",
    "point_force",
    "point_moment",
    "distributed_force",
    "gravity",
)


@dataclasses.dataclass(frozen=True)
class LoadSpec:
    """A load: ``type`` picks the class, the other keys are its fields.

    Attributes:
        type: The load: end_force, end_moment (rod, end), point_force, point_moment (rod,
            arclength), distributed_force (force, rods), gravity (acceleration, rods).
        rod: The loaded rod, by name or index (end and point loads).
        end: ``start`` or ``end`` (end loads).
        arclength: [m] Where along the rod a point load acts, from its start; it must fall on a
            node (an element end).
        force: [N] The force (end and point forces), or [N/m] the force per unit length
            (distributed_force), at load factor 1.
        moment: [N·m] The moment (end and point moments) at load factor 1.
        follower: Components in the body frame (d1, d2, d3) that turn with the section, instead
            of fixed in space (dead load).
        acceleration: [m/s²] Gravitational acceleration (gravity).
        rods: The rods a distributed force or gravity acts on (default: all).
    """

    type: str
    rod: str | int | None = None
    end: str | None = None
    arclength: float | None = None
    force: Vector | None = None
    moment: Vector | None = None
    follower: bool = False
    acceleration: Vector = (0.0, 0.0, -9.81)
    rods: list[str | int] | None = None

    def __post_init__(self) -> None:
        if self.type not in LOAD_TYPES:
            raise InputError(f"unknown load type {self.type!r}; use one of {LOAD_TYPES}.")

    def build(self, where: str) -> Load:
        """The :class:`Load`."""

        def need(*names: str) -> None:
            missing = [n for n in names if getattr(self, n) is None]
            if missing:
                raise InputError(f"{where}: load type {self.type!r} needs {missing}.")

        rods = None if self.rods is None else tuple(self.rods)
        if self.type == "end_force":
            need("rod", "end", "force")
            return EndForce(self.rod, self.end, self.force, follower=self.follower)  # type: ignore[arg-type]
        if self.type == "end_moment":
            need("rod", "end", "moment")
            return EndMoment(self.rod, self.end, self.moment, follower=self.follower)  # type: ignore[arg-type]
        if self.type == "point_force":
            need("rod", "arclength", "force")
            return PointForce(self.rod, self.arclength, self.force, follower=self.follower)  # type: ignore[arg-type]
        if self.type == "point_moment":
            need("rod", "arclength", "moment")
            return PointMoment(self.rod, self.arclength, self.moment, follower=self.follower)  # type: ignore[arg-type]
        if self.type == "distributed_force":
            need("force")
            return DistributedForce(self.force, rods=rods)  # type: ignore[arg-type]
        if self.type == "gravity":
            return Gravity(self.acceleration, rods=rods)
        raise InputError(f"{where}.type: unknown load type {self.type!r}; use one of {LOAD_TYPES}.")


@dataclasses.dataclass(frozen=True)
class SolverSpec:
    """Load stepping (:class:`~fe_rodcontact.stepping.statics.LoadStepping`), PETSc options.

    Attributes:
        initial_step: [-] First increment of the load factor λ (from 0 to 1).
        min_step: [-] Smallest increment before the run stops with a convergence failure.
        max_step: [-] Largest increment.
        grow: [-] Factor on the increment after an easy step (at least 1).
        easy_iterations: Newton iterations at or below which a step counts as easy.
        petsc_options: PETSc options for the Newton solve (SNES, KSP, PC), as a table
            ``{ snes_rtol = 1e-10, ... }``, given under the problem's options prefix.
    """

    initial_step: float = 0.1
    min_step: float = 1e-6
    max_step: float = 0.25
    grow: float = 1.5
    easy_iterations: int = 5
    petsc_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def stepping(self) -> LoadStepping:
        """The :class:`LoadStepping`."""
        return LoadStepping(
            self.initial_step, self.min_step, self.max_step, self.grow, self.easy_iterations
        )


@dataclasses.dataclass(frozen=True)
class OutputSpec:
    """Where and what to write.

    Attributes:
        folder: The output folder, relative to the current folder.
        vtx: Write ``rods.bp`` (VTX, ParaView) at each load step.
        vtu: Write ``rods.vtu``, the final centrelines.
        plot: Draw ``rods.png``, the rods at load factor 1.
    """

    folder: str = "results"
    vtx: bool = True
    vtu: bool = True
    plot: bool = True


@dataclasses.dataclass(frozen=True)
class StaticsCase:
    """A statics case file.

    Attributes:
        mesh: Element degree and an optional mesh file.
        rods: The rods, one ``[[rods]]`` table each (unless the mesh comes from a file).
        section: The section of every rod without its own ``[rods.section]``.
        supports: Supports at rod ends, one ``[[supports]]`` table each.
        loads: Loads, one ``[[loads]]`` table each.
        solver: Load stepping and PETSc options.
        output: Where and what to write.
    """

    mesh: MeshSpec = MeshSpec()
    rods: list[RodSpec] = dataclasses.field(default_factory=list)
    section: SectionSpec | None = None
    supports: list[SupportSpec] = dataclasses.field(default_factory=list)
    loads: list[LoadSpec] = dataclasses.field(default_factory=list)
    solver: SolverSpec = SolverSpec()
    output: OutputSpec = OutputSpec()


DYNAMICS_TABLES = ("contact", "time", "initial")
"""Top-level tables of dynamics cases that statics does not take (named in its message)."""


def load_case(path: str | Path, case_type: type = StaticsCase) -> Any:
    """Read and check a TOML case file (on every rank: each raises the same error)."""
    path = Path(path)
    table = read_toml(path)
    try:
        if case_type is StaticsCase:
            _refuse_dynamics_tables(table)
        return from_table(case_type, table, "")
    except InputError as error:
        raise InputError(f"{path}: {error}") from None


def _refuse_dynamics_tables(table: dict[str, Any]) -> None:
    """A statics case whose first unknown key is a dynamics table: say which command takes it."""
    unknown = sorted(set(table) - {f.name for f in dataclasses.fields(StaticsCase)})
    if unknown and unknown[0] in DYNAMICS_TABLES:
        raise InputError(
            f"unknown key {unknown[0]}: [{unknown[0]}] is a table of dynamics cases; run this "
            f"case with `fe-rodcontact dynamics`, or remove [{unknown[0]}] for statics."
        )
