"""The two-strings model's parameters (:class:`StringsConfig`) and a run's time series.

:class:`StringsResult` holds what :class:`~fe_rodcontact.strings.model.TwoStrings` records at
every output time and writes it to ``.npz`` files.
"""

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = ["StringsConfig", "StringsResult", "config_fields"]

FloatArray = npt.NDArray[np.float64]


@dataclass
class StringsConfig:
    """Parameters of the two-strings model (both strings have the same length and ends).

    Attributes:
        bc: ``"fixed"`` or ``"periodic"`` ends.
        length: String length L.
        wave_speed: Wave speed c.
        F: Coupling in the rolling constraint u_t(s1) = F v_t(s2).
        G1: Contact-point mobility on string 1 (ṡ1 = G1 u_t(s1)).
        G2: Contact-point mobility on string 2 (ṡ2 = G2 u_t(s1)).
        s1: Initial contact point on string 1.
        s2: Initial contact point on string 2.
        u0: Initial displacement of string 1, an expression in x (and L, c).
        u0_rate: Initial velocity of string 1.
        v0: Initial displacement of string 2.
        v0_rate: Initial velocity of string 2.
        elements: Number of elements per string.
        degree: Lagrange degree (1 or 2).
        kernel: Constraint weights: ``"exact"`` basis values, ``"p1"`` hat or ``"smooth"``
            cubic B-spline on the dof nodes.
        dt: Time step.
        t_end: Final time.
        output_interval: Time between recorded outputs (a multiple of dt); default dt.
        probes: Points of string 1 where u is recorded.
        contact: Whether the strings are in contact (else two free strings).
        solver: ``"direct"`` or ``"schur"`` saddle-point solver.
        s_tol: Tolerance on the midpoint contact positions (relative to L).
        max_iterations: Fixed-point iterations allowed per step.
        snapshots: Whether to record u and v fields at the outputs (space-time plots).
    """

    bc: Literal["fixed", "periodic"] = "fixed"
    length: float = 2.0 * np.pi
    wave_speed: float = 1.0
    F: float = 1.0
    G1: float = 1.0
    G2: float = 1.0
    s1: float = 2.0
    s2: float = 2.0
    u0: str = "sin(2*pi*x/L)"
    u0_rate: str = "0"
    v0: str = "0"
    v0_rate: str = "0"
    elements: int = 128
    degree: int = 1
    kernel: Literal["exact", "p1", "smooth"] = "smooth"
    dt: float = 0.01
    t_end: float = 10.0
    output_interval: float | None = None
    probes: tuple[float, ...] = ()
    contact: bool = True
    solver: Literal["direct", "schur"] = "direct"
    s_tol: float = 1e-13
    max_iterations: int = 50
    snapshots: bool = True

    def validate(self) -> None:
        """Check the parameters.

        Raises:
            InputError: Naming the first bad parameter and what is expected.
        """

        def positive(name: str) -> None:
            value = getattr(self, name)
            if not (isinstance(value, int | float) and np.isfinite(value) and value > 0):
                raise InputError(f"{name} must be a positive number, got {value!r}")

        if self.bc not in ("fixed", "periodic"):
            raise InputError(f"bc must be 'fixed' or 'periodic', got {self.bc!r}")
        for name in ("length", "wave_speed", "dt"):
            positive(name)
        if not (np.isfinite(self.t_end) and self.t_end >= 0):
            raise InputError(f"t_end must be >= 0, got {self.t_end!r}")
        if 0 < self.t_end < self.dt * (1 - 1e-9):
            raise InputError(
                f"dt {self.dt!r} is larger than t_end {self.t_end!r}: no step would be taken; "
                "give a t_end of at least one dt"
            )
        if abs(self.num_steps * self.dt - self.t_end) > 1e-9 * max(self.t_end, self.dt):
            below = np.floor(self.t_end / self.dt) * self.dt
            raise InputError(
                f"t_end {self.t_end!r} is not a multiple of dt {self.dt!r}; "
                f"give t_end {below:.12g} or {below + self.dt:.12g}, or a dt that divides it"
            )
        for name in ("F", "G1", "G2", "s1", "s2"):
            if not np.isfinite(getattr(self, name)):
                raise InputError(f"{name} must be finite, got {getattr(self, name)!r}")
        for name in ("s1", "s2", *(f"probe {p}" for p in self.probes)):
            value = float(name.split()[1]) if name.startswith("probe") else getattr(self, name)
            if not 0.0 <= value <= self.length:
                raise InputError(f"{name} = {value!r} lies outside the string [0, {self.length!r}]")
        if int(self.elements) != self.elements or self.elements < 1:
            raise InputError(f"elements must be a positive integer, got {self.elements!r}")
        if self.degree not in (1, 2):
            raise InputError(f"degree must be 1 or 2, got {self.degree!r}")
        if self.kernel not in ("exact", "p1", "smooth"):
            raise InputError(f"kernel must be 'exact', 'p1' or 'smooth', got {self.kernel!r}")
        if self.solver not in ("direct", "schur"):
            raise InputError(f"solver must be 'direct' or 'schur', got {self.solver!r}")
        if self.output_interval is not None:
            positive("output_interval")
        ratio = self.output_steps
        if abs(ratio * self.dt - self.interval) > 1e-9 * self.interval:
            raise InputError(
                f"output_interval {self.interval!r} must be a multiple of dt {self.dt!r}"
            )
        if self.max_iterations < 1:
            raise InputError("max_iterations must be >= 1")

    @property
    def interval(self) -> float:
        """The output interval (dt when not given)."""
        return self.dt if self.output_interval is None else float(self.output_interval)

    @property
    def output_steps(self) -> int:
        """Time steps between outputs."""
        return max(1, round(self.interval / self.dt))

    @property
    def num_steps(self) -> int:
        """Number of time steps to reach t_end (t_end is rounded to a multiple of dt)."""
        return round(self.t_end / self.dt)


@dataclass
class StringsResult:
    """Time series at exact multiples k × output_interval (every array on every rank).

    Attributes:
        t: Output times.
        s1: Contact point on string 1.
        s2: Contact point on string 2.
        multiplier: λ (sign of the equations) over the time step ending at t (NaN at t = 0).
        energy: Total discrete energy.
        u_hat1: First Fourier sine coefficient (2/L)∫u sin(2πx/L) dx.
        u_probe: u at the probe points, one column per point.
        probes: The probe points.
        x: Positions of the dof nodes (sorted) for the snapshots (rank 0, else empty).
        u_field: u at ``x`` at every output time (rank 0; empty without snapshots).
        v_field: v at ``x`` at every output time (rank 0; empty without snapshots).
        iterations: Fixed-point iterations of every time step.
        config: The parameters of the run.
    """

    t: FloatArray
    s1: FloatArray
    s2: FloatArray
    multiplier: FloatArray
    energy: FloatArray
    u_hat1: FloatArray
    u_probe: FloatArray
    probes: FloatArray
    x: FloatArray
    u_field: FloatArray
    v_field: FloatArray
    iterations: npt.NDArray[np.int64]
    config: StringsConfig = field(repr=False)

    TIME_SERIES = ("t", "s1", "s2", "multiplier", "energy", "u_hat1", "u_probe")
    """The keys of the ``.npz`` time series."""

    def save(self, path: str | Path, comm: MPI.Comm = MPI.COMM_WORLD) -> None:
        """Write the time series to ``path`` (.npz) and the snapshots to ``<stem>_fields.npz``.

        Only rank 0 writes; the call is collective (a barrier follows).
        """
        path = Path(path)
        if comm.rank == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, **{k: getattr(self, k) for k in self.TIME_SERIES})
            if self.u_field.size:
                np.savez(
                    path.with_name(path.stem + "_fields.npz"),
                    t=self.t,
                    x=self.x,
                    u=self.u_field,
                    v=self.v_field,
                    s1=self.s1,
                    s2=self.s2,
                )
        comm.barrier()


def config_fields() -> tuple[str, ...]:
    """Names of the :class:`StringsConfig` fields (for case files)."""
    return tuple(f.name for f in fields(StringsConfig))
