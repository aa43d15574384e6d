"""TOML case files for rod dynamics, built on the statics schema of :mod:`fe_rodcontact.cli.case`.

A dynamics case (see ``demos/cases/flying_spaghetti.toml``) has the statics tables
``[mesh]``, ``[[rods]]``, ``[section]``, ``[[supports]]`` and::

    [[loads]]      as in statics, plus history = "expression in t" (factor; default 1)
    [initial]      velocity = ["vx(x, y, z)", "vy", "vz"], angular_velocity = [...],
                   displacement = ["ux(x, y, z)", ...], rotation = ["ψx(x, y, z)", ...]
                   (a deformed start over the stress-free mesh: x + u, exp(ψ) Λ₀)
    [[initial.rods]] rod = "name", and any of the four fields above for that rod alone
    [time]         t_end, dt, adaptive, min_dt, grow, easy_iterations,
                   integrator (energy-momentum | generalized-alpha), spectral_radius,
                   mass (consistent | lumped), damping (Kelvin–Voigt retardation time,
                   energy-momentum; 0: none), petsc_options = {...}
    [output]       folder, series (npz name), vtx_every (0: none), checkpoint_every (0: none)
    [contact]      obstacles, contact laws and contact output
    (:mod:`fe_rodcontact.cli.contact_case`)

Unknown keys are errors that name the key; expressions are parsed by
:func:`fe_rodcontact.expressions.parse_expression` (no code runs).
"""

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fe_rodcontact.cli.case import LoadSpec, MeshSpec, RodSpec, SectionSpec, SupportSpec
from fe_rodcontact.cli.contact_case import ContactSpec
from fe_rodcontact.cli.initial_fields import Field, combine
from fe_rodcontact.cli.output import output_name
from fe_rodcontact.errors import InputError
from fe_rodcontact.expressions import parse_expression
from fe_rodcontact.stepping.dynamics import INTEGRATORS, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad

__all__ = [
    "DynamicLoadSpec",
    "DynamicsCase",
    "DynamicsOutputSpec",
    "InitialSpec",
    "RodInitialSpec",
    "TimeSpec",
]


@dataclasses.dataclass(frozen=True)
class DynamicLoadSpec(LoadSpec):
    """A statics load with a time history ``history`` (an expression in ``t``).

    Attributes:
        history: [-] Factor on the load as an expression in the time ``t``, e.g.
            ``"sin(2*pi*t)"`` (default: 1, the load acts in full from the start).
    """

    history: str | None = None

    def build_timed(self, where: str) -> TimedLoad:
        """The :class:`TimedLoad`."""
        load = self.build(where)
        if self.history is None:
            return TimedLoad(load)
        try:
            f = parse_expression(self.history, variables=("t",))
        except InputError as error:
            raise InputError(f"{where}.history: {error}") from None

        def history(t: float) -> float:
            try:
                return float(f(np.array(t)))
            except InputError as error:
                raise InputError(f"{where}.history at t = {t:g}: {error}") from None

        return TimedLoad(load, history)


def _parse_field(texts: list[str] | None, where: str) -> Field | None:
    """The callable of x (3, n) of three expressions in x, y, z (``None`` when not given)."""
    if texts is None:
        return None
    if len(texts) != 3:
        raise InputError(f"{where} needs three expressions, got {len(texts)}.")
    parts = []
    for i, text in enumerate(texts):
        try:
            parts.append(parse_expression(text, variables=("x", "y", "z")))
        except InputError as error:
            raise InputError(f"{where}[{i}]: {error}") from None
    return lambda x: np.vstack([p(x[0], x[1], x[2]) for p in parts])


FIELDS = ("velocity", "angular_velocity", "displacement", "rotation")


@dataclasses.dataclass(frozen=True)
class RodInitialSpec:
    """The initial fields of one rod (``[[initial.rods]]``): they replace ``[initial]``'s there.

    Each point where a field is evaluated belongs to the rod whose reference centreline is
    nearest (:class:`~fe_rodcontact.cli.initial_fields.RodLocator`).

    Attributes:
        rod: The rod, by name.
        velocity: [m/s] The rod's initial velocity: three expressions in ``x, y, z``.
        angular_velocity: [rad/s] The rod's initial spatial angular velocity.
        displacement: [m] The rod's initial displacement from its stress-free mesh.
        rotation: [rad] The rod's initial spatial rotation vector, each shorter than π.
    """

    rod: str
    velocity: list[str] | None = None
    angular_velocity: list[str] | None = None
    displacement: list[str] | None = None
    rotation: list[str] | None = None


@dataclasses.dataclass(frozen=True)
class InitialSpec:
    """The initial state, each a field of three expressions in the reference x, y, z.

    ``velocity`` and ``angular_velocity`` (spatial) set the initial motion; ``displacement``
    and ``rotation`` (spatial rotation vectors, each shorter than π) start the rods deformed
    from their stress-free mesh (:func:`~fe_rodcontact.rods.initial_state.deform_rods`).

    Attributes:
        velocity: [m/s] Initial velocity: three expressions in the reference coordinates
            ``x, y, z`` (default: at rest).
        angular_velocity: [rad/s] Initial spatial angular velocity of the sections: three
            expressions in ``x, y, z`` (default: none).
        displacement: [m] Initial displacement from the stress-free mesh: three expressions in
            ``x, y, z`` (default: none); supports hold the ends where they start.
        rotation: [rad] Initial spatial rotation vector of the sections from their reference
            frames, each shorter than π: three expressions in ``x, y, z`` (default: none).
        rods: Fields of single rods, one ``[[initial.rods]]`` table each (``rod = "name"``
            and any of the four fields): on that rod they replace the fields above (a field
            the rod does not give is the one above there, or none).
    """

    velocity: list[str] | None = None
    angular_velocity: list[str] | None = None
    displacement: list[str] | None = None
    rotation: list[str] | None = None
    rods: list[RodInitialSpec] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        names = [entry.rod for entry in self.rods]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InputError(
                f"initial.rods: rod {twice[0]!r} has two tables; give its fields in one."
            )
        for i, entry in enumerate(self.rods):  # the expressions fail here, before any work
            for name in FIELDS:
                _parse_field(getattr(entry, name), f"initial.rods[{i}].{name}")
        for name in FIELDS:
            _parse_field(getattr(self, name), f"initial.{name}")

    @property
    def deformed(self) -> bool:
        """Whether the rods start deformed (a displacement or a rotation is given)."""
        given = [self.displacement, self.rotation]
        given += [f for entry in self.rods for f in (entry.displacement, entry.rotation)]
        return any(f is not None for f in given)

    def field(
        self,
        name: str,
        rod_names: Sequence[str] = (),
        locate: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.int32]] | None = None,
    ) -> Field | None:
        """The callable of x (3, n) for one of the fields (``None`` when not given).

        Args:
            name: velocity, angular_velocity, displacement or rotation.
            rod_names: The rods' names, in order (to find the rods of ``[[initial.rods]]``).
            locate: The rod index of each point (needed with ``[[initial.rods]]``).
        """
        default = _parse_field(getattr(self, name), f"initial.{name}")
        own = {}
        for i, entry in enumerate(self.rods):
            field = _parse_field(getattr(entry, name), f"initial.rods[{i}].{name}")
            if field is None:
                continue
            if entry.rod not in rod_names:
                raise InputError(
                    f"initial.rods[{i}].rod: no rod named {entry.rod!r}; the rods are "
                    f"{list(rod_names)}."
                )
            own[list(rod_names).index(entry.rod)] = field
        if own and locate is None:
            raise ValueError("InitialSpec.field: per-rod fields need locate")
        return combine(default, own, locate) if own and locate is not None else default


@dataclasses.dataclass(frozen=True)
class TimeSpec:
    """Time stepping, integrator and solver options.

    Attributes:
        t_end: [s] End time (the run starts at 0).
        dt: [s] The time step (also the largest one).
        adaptive: Cut the step when Newton fails and grow it back; ``false`` stops at once.
        min_dt: [s] Smallest step before the run stops with a convergence failure (default
            dt/1024).
        grow: [-] Factor on the step after an easy step, until it is ``dt`` again (at least 1).
        easy_iterations: Newton iterations at or below which a step counts as easy.
        integrator: energy-momentum (conserves energy and momenta) or generalized-alpha
            (damps high frequencies).
        spectral_radius: [-] ρ∞ of the generalized-α scheme, in [0, 1] (1: no damping).
        mass: Translational mass matrix: consistent or lumped (nodal quadrature).
        petsc_options: PETSc options for the Newton solve (SNES, KSP, PC), as a table.
        damping: [s] Retardation time η ≥ 0 of Kelvin–Voigt damping of the strain rates
            (energy–momentum only; 0: none); its dissipation is the series'
            ``viscous_dissipation``.
    """

    t_end: float
    dt: float
    adaptive: bool = True
    min_dt: float | None = None
    grow: float = 2.0
    easy_iterations: int = 5
    integrator: str = "energy-momentum"
    spectral_radius: float = 0.8
    mass: str = "consistent"
    damping: float = 0.0
    petsc_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.integrator not in INTEGRATORS:
            raise InputError(f"integrator {self.integrator!r} unknown; use one of {INTEGRATORS}.")
        if not (np.isfinite(self.t_end) and self.t_end > 0):
            raise InputError(f"t_end must be a positive number, got {self.t_end}.")

    def stepping(self) -> TimeStepping:
        """The :class:`TimeStepping`."""
        return TimeStepping(self.dt, self.adaptive, self.min_dt, self.grow, self.easy_iterations)


@dataclasses.dataclass(frozen=True)
class DynamicsOutputSpec:
    """Where and what to write.

    Attributes:
        folder: The output folder, relative to the current folder.
        series: File name of the time series (``.npz``) in the folder.
        vtx_every: Write ``rods.bp`` (VTX from t = 0: displacement, velocity, angular
            velocity, rotation, directors, rod index) every k steps (0: never).
        checkpoint_every: Write the restart checkpoint every k steps (0: only when a run stops:
            at the end, on a failed step, on Ctrl-C or SIGTERM).
    """

    folder: str = "results"
    series: str = "series.npz"
    vtx_every: int = 10
    checkpoint_every: int = 0

    def __post_init__(self) -> None:
        output_name(self.series, "series", ".npz")
        for key in ("vtx_every", "checkpoint_every"):
            if getattr(self, key) < 0:
                raise InputError(f"{key} must be >= 0 (0: none), got {getattr(self, key)}.")


@dataclasses.dataclass(frozen=True)
class DynamicsCase:
    """A dynamics case file.

    Attributes:
        time: Time stepping, integrator and solver options (required).
        mesh: Element degree and an optional mesh file.
        rods: The rods, one ``[[rods]]`` table each (unless the mesh comes from a file).
        section: The section of every rod without its own ``[rods.section]``.
        supports: Supports at rod ends, one ``[[supports]]`` table each.
        loads: Loads with time histories, one ``[[loads]]`` table each.
        initial: Initial velocity and angular velocity.
        output: Where and what to write.
        contact: Contact: obstacles, the contact model and its laws (default: none).
    """

    time: TimeSpec
    mesh: MeshSpec = dataclasses.field(default_factory=MeshSpec)
    rods: list[RodSpec] = dataclasses.field(default_factory=list)
    section: SectionSpec | None = None
    supports: list[SupportSpec] = dataclasses.field(default_factory=list)
    loads: list[DynamicLoadSpec] = dataclasses.field(default_factory=list)
    initial: InitialSpec = dataclasses.field(default_factory=InitialSpec)
    output: DynamicsOutputSpec = dataclasses.field(default_factory=DynamicsOutputSpec)
    contact: ContactSpec | None = None
