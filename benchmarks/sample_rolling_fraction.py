"""The fraction of random rod crossings whose perfect-rolling force lies in the friction cone.

Gay-Balmaz & Putkaradze (Phys. Rev. Lett. 109, 244303 (2012)) estimate that a fraction
0.5k/√(k²+1) of the contacts in a compacted rod configuration roll, assuming the contact force
"is uniformly randomly distributed within a hemisphere of possible forces enforcing contact".
Uniform directions on the hemisphere give 1 − 1/√(1+k²) instead (docs/rolling.md). This script
does not assume a force distribution: it samples random crossings, lets the rolling model
compute the force that no slip needs, and counts the contacts with |λ_t| ≤ k|λ_n| among those
that press (λ_n > 0; a tensile contact would open, it is not a contact of the hemisphere).

The random crossing
-------------------
Two straight free rods of length L = 2, radius R = 0.05, touching (gap 0) at one point:

- **Crossing angle** θ between the axes with density ∝ sin θ on [15°, 165°]: the angle between
  two independent uniformly random directions in space (a compacted configuration has no
  preferred orientation); the 3.4 % of nearly parallel crossings are left out because the
  contact point then runs along the rods at a speed ∝ 1/sin θ.
- **Where** each rod is touched: uniform within ±0.5 of its centre (two elements from its ends).
- **Velocities**: the rigid-body velocities (V, Ω) of each rod are drawn from the Gibbs
  distribution restricted to rolling: Gaussian with covariance M⁻¹ (equipartition, kT = 1)
  and projected in the mass metric onto the three no-slip rows at the contact. This is the
  equilibrium distribution of the constrained velocities; it sets the relative sliding and
  spinning of the rods and the motion of the contact point with no further choice but kT.
- **Press**: a dead load per unit length on rod b, uniform along it, whose total F points
  uniformly at random into the hemisphere towards rod a, and the opposite load on rod a (the
  pair is pressed together, its total force is zero). |F| = P·kT/L.

Three regimes: ``inertia`` (velocities, P = 0: the force only keeps the motion rolling),
``press`` (loads, no velocities) and ``mixed`` (both, P = 5: the median contact forces of the
two alone are then of the same size, 1.63 and 1.56 in the rigid model below, 3000 crossings).

The rods are stiff (EI = 1e7, EA = GA = 1e10, ρA = 1, ρI = R²/4, ρJ = R²/2: solid cylinders)
and the step Δt = 1 ms is longer than their elastic periods (first bending mode
ω₁ = 1.8e4 s⁻¹, ω₁Δt/2 = 9), so the energy–momentum step moves them nearly as rigid bodies
(a mode takes part with the weight 1/(1+(ωΔt/2)²) ≈ 1 %, docs/rolling.md, *Inelastic
impact*; measured: the force changes from step to step by a median 2–3 % of itself, which the
mean over the steps mostly removes; at Δt = 5 ms Newton does not converge from the step's
predictor when the rods spin at the thermal ~20–40 rad/s about their axes). The force the
rolling model needs is then that of two rigid cylinders, which :func:`rigid_contact_force`
computes in closed form (Newton–Euler and the time derivative of the no-slip condition at the
moving contact point). The FE force, averaged over the first three steps (8 P1 elements per
rod), is compared with it crossing by crossing, and the closed form, being cheap (~6 ms a
crossing), also gives the fractions of 10⁴ crossings per regime.

Each run appends one CSV row per crossing (flushed, so an interrupted run keeps what it did);
``--first`` continues a seed's stream of crossings in another run. Usage::

    python benchmarks/sample_rolling_fraction.py --regime inertia --samples 100 --out f.csv
    python benchmarks/sample_rolling_fraction.py --regime inertia --samples 100 --first 100 \
        --out f.csv
    python benchmarks/sample_rolling_fraction.py --regime press --samples 10000 --rigid-only \
        --seed 12 --out rigid.csv
    python benchmarks/sample_rolling_fraction.py --summarise f.csv rigid.csv
"""

import argparse
import csv
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import DistributedForce
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad

__all__ = [
    "REGIMES",
    "Crossing",
    "cone_fractions",
    "explain",
    "fe_contact_force",
    "rigid_contact_force",
    "rolling_system",
    "sample_crossing",
]

FloatArray = npt.NDArray[np.float64]

RADIUS = 0.05
LENGTH = 2.0
SECTION = Section(
    EA=1e10,
    GA1=1e10,
    GA2=1e10,
    EI1=1e7,
    EI2=1e7,
    GJ=1e7,
    rhoA=1.0,
    rhoI1=RADIUS**2 / 4,
    rhoI2=RADIUS**2 / 4,
    rhoJ=RADIUS**2 / 2,
    radius=RADIUS,
)
SMALLEST_ANGLE = np.deg2rad(15.0)
OFFSET = 0.5
REGIMES = {"inertia": (1.0, 0.0), "press": (0.0, 1.0), "mixed": (1.0, 5.0)}
"""Regime: (kT of the velocities, press P in units of kT/L)."""
KS = (0.2, 0.5, 1.0, 2.0)
PETSC_OPTIONS: dict[str, object] = {}


@dataclass(frozen=True)
class Crossing:
    """Two free straight rods touching at one point.

    Rod a runs along e_a through the contact's centreline point (0, 0, 0), rod b along e_b
    through (0, 0, 2R); the contact point is (0, 0, R) and the normal from a to b is z.

    Attributes:
        angle: Crossing angle θ (e_b = (cos θ, sin θ, 0)).
        offsets: Position of the contact along each rod, from its centre.
        velocity: Rigid-body velocity V of each rod's centre, shape (2, 3).
        spin: Angular velocity Ω of each rod (spatial), shape (2, 3).
        load: Total dead load on each rod (spread uniformly along it), shape (2, 3).
    """

    angle: float
    offsets: tuple[float, float]
    velocity: FloatArray
    spin: FloatArray
    load: FloatArray

    @property
    def axes(self) -> FloatArray:
        """Unit axis of each rod, shape (2, 3)."""
        return np.array([[1.0, 0.0, 0.0], [np.cos(self.angle), np.sin(self.angle), 0.0]])

    @property
    def centres(self) -> FloatArray:
        """Centre X of each rod, shape (2, 3)."""
        touch = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 2 * RADIUS]])
        return touch - np.asarray(self.offsets)[:, None] * self.axes


def _skew(v: FloatArray) -> FloatArray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _mass(axis: FloatArray) -> FloatArray:
    """The 6×6 rigid-body mass of a rod about its centre: m I and the inertia tensor."""
    m = SECTION.rhoA * LENGTH
    axial = SECTION.rhoJ * LENGTH
    transverse = SECTION.rhoI1 * LENGTH + m * LENGTH**2 / 12
    inertia = transverse * np.eye(3) + (axial - transverse) * np.outer(axis, axis)
    out = np.zeros((6, 6))
    out[:3, :3] = m * np.eye(3)
    out[3:, 3:] = inertia
    return out


def sample_crossing(rng: np.random.Generator, regime: str) -> Crossing:
    """Draw one random crossing of the given regime (see the module docstring).

    Args:
        rng: The random generator.
        regime: One of :data:`REGIMES`.

    Returns:
        The crossing.
    """
    kT, press = REGIMES[regime]
    limit = np.cos(SMALLEST_ANGLE)
    angle = float(np.arccos(rng.uniform(-limit, limit)))
    offsets = (float(rng.uniform(-OFFSET, OFFSET)), float(rng.uniform(-OFFSET, OFFSET)))
    crossing = Crossing(angle, offsets, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)))
    axes, centres = crossing.axes, crossing.centres
    contact = np.array([0.0, 0.0, RADIUS])
    masses = [_mass(axes[0]), _mass(axes[1])]
    # q = (V_a, Ω_a, V_b, Ω_b) ~ N(0, kT M⁻¹), projected onto A q = 0 in the M metric.
    inverse = np.zeros((12, 12))
    for i in range(2):
        inverse[6 * i : 6 * i + 6, 6 * i : 6 * i + 6] = np.linalg.inv(masses[i])
    chol = np.linalg.cholesky(inverse)
    q = np.sqrt(kT) * chol @ rng.standard_normal(12)
    rows = np.hstack(
        [
            np.eye(3),
            -_skew(contact - centres[0]),
            -np.eye(3),
            _skew(contact - centres[1]),
        ]
    )  # u_a − u_b at the contact point, u = V + Ω × (p − X)
    delassus = rows @ inverse @ rows.T
    q = q - inverse @ rows.T @ np.linalg.solve(delassus, rows @ q)
    direction = rng.standard_normal(3)
    direction /= np.linalg.norm(direction)
    direction[2] = -abs(direction[2])  # rod b is pushed towards rod a (−z)
    force = press * 1.0 / LENGTH * direction
    return Crossing(
        angle,
        offsets,
        np.array([q[0:3], q[6:9]]),
        np.array([q[3:6], q[9:12]]),
        np.array([-force, force]),
    )


def _rotation(vector: FloatArray) -> FloatArray:
    """exp([v]×) (Rodrigues)."""
    angle = float(np.linalg.norm(vector))
    if angle == 0.0:
        return np.eye(3)
    k = _skew(vector / angle)
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def _contact_point(centres: FloatArray, axes: FloatArray) -> FloatArray:
    """Midpoint of the closest points of the two axis lines (equal radii)."""
    d = centres[1] - centres[0]
    c = float(axes[0] @ axes[1])
    s, t = np.linalg.solve(np.array([[1.0, -c], [c, -1.0]]), [d @ axes[0], d @ axes[1]])
    return 0.5 * (centres[0] + s * axes[0] + centres[1] + t * axes[1])


def rolling_system(crossing: Crossing) -> tuple[FloatArray, FloatArray]:
    """The contact's compliance W and the relative acceleration a that rolling must undo.

    Without a contact force the material points at the contact would accelerate apart by
    a = d/dt(u_a − u_b) (loads and the velocity-squared terms of the motion); a force μ on rod b
    (−μ on rod a) changes that by −Wμ, so that rolling needs Wμ = a (see
    :func:`rigid_contact_force`). W is symmetric positive definite: the inverse effective mass
    of the two rods at the contact point.

    Args:
        crossing: The crossing.

    Returns:
        W (3×3) and a.
    """
    axes, centres = crossing.axes, crossing.centres
    V, W = crossing.velocity, crossing.spin
    h = 1e-6

    def point(t: float) -> FloatArray:
        moved = centres + t * V
        turned = np.array([_rotation(t * W[i]) @ axes[i] for i in range(2)])
        return _contact_point(moved, turned)

    p = point(0.0)
    p_dot = (point(h) - point(-h)) / (2 * h)
    masses = [_mass(axes[0]), _mass(axes[1])]

    def mismatch(mu: FloatArray) -> FloatArray:
        out = np.zeros(3)
        for i, sign in ((0, -1.0), (1, 1.0)):
            m, inertia = masses[i][0, 0], masses[i][3:, 3:]
            arm = p - centres[i]
            force = crossing.load[i] + sign * mu
            torque = np.cross(arm, sign * mu) - np.cross(W[i], inertia @ W[i])
            v_dot = force / m
            w_dot = np.linalg.solve(inertia, torque)
            rate = v_dot + np.cross(w_dot, arm) - np.cross(W[i], V[i]) + np.cross(W[i], p_dot)
            out = out + (-sign) * rate  # u_a − u_b
        return out

    base = mismatch(np.zeros(3))
    matrix = np.column_stack([mismatch(e) - base for e in np.eye(3)])
    return -matrix, base


def rigid_contact_force(crossing: Crossing) -> FloatArray:
    """The force μ on rod b (−μ on rod a) that keeps two rigid cylinders rolling, at t = 0.

    Newton–Euler for each rod under its load and ∓μ at the contact point p, and the time
    derivative of the no-slip condition w(p(t)) = 0 with w(x) = u_a(x) − u_b(x) the difference
    of the rigid velocity fields u(x) = V + Ω × (x − X):

        ∂w/∂t(p) + (Ω_a − Ω_b) × ṗ = 0,   ∂u/∂t(x) = V̇ + Ω̇ × (x − X) − Ω × V.

    The contact point's velocity ṗ is a central difference of the closest points of the
    rigidly moved axes.

    Args:
        crossing: The crossing.

    Returns:
        μ, the force on rod b; its z component is the normal force (positive: pressing).
    """
    compliance, acceleration = rolling_system(crossing)
    return np.linalg.solve(compliance, acceleration)


def _constant(value: float) -> Callable[[float], float]:
    """The history t ↦ value."""
    return lambda t: float(value)


def fe_contact_force(
    comm: MPI.Comm, crossing: Crossing, *, elements: int = 8, dt: float = 1e-3, steps: int = 3
) -> FloatArray:
    """The force the rolling model needs at each step, for this crossing.

    Args:
        comm: Communicator.
        crossing: The crossing.
        elements: P1 elements per rod.
        dt: Time step.
        steps: Number of steps.

    Returns:
        Per step: normal force (positive: pressing), tangential force magnitude, and the force
        on rod b (x, y, z), shape (steps, 5).
    """
    axes, centres = crossing.axes, crossing.centres
    curves = [
        straight(tuple(c - 0.5 * LENGTH * e), tuple(c + 0.5 * LENGTH * e))
        for c, e in zip(centres, axes)
    ]
    rods = create_rod_mesh(comm, curves, elements=elements)
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact(friction_coefficient=1.0)
    scene = ContactScene(rod)
    scene.add("rods", rolling)
    # Unit loads scaled by constant histories: the forms, and their JIT, are the same for all
    # crossings (a load vector of literals would compile a new form for each one).
    loads = [
        TimedLoad(DistributedForce(tuple(axis), rods=(i,)), _constant(crossing.load[i][j] / LENGTH))
        for i in range(2)
        for j, axis in enumerate(np.eye(3))
    ]
    problem = DynamicProblem(
        rod,
        [],
        loads,
        petsc_options_prefix="fraction_",
        contact=scene,
        petsc_options=PETSC_OPTIONS,
    )

    def which(x: FloatArray) -> npt.NDArray[np.bool_]:
        return x[2] > RADIUS

    def velocity(x: FloatArray) -> FloatArray:
        out = np.zeros_like(x)
        for i, on in ((0, ~which(x)), (1, which(x))):
            field = (
                crossing.velocity[i][:, None]
                + np.cross(crossing.spin[i], (x - crossing.centres[i][:, None]).T).T
            )
            out[:, on] = field[:, on]
        return out

    def spin(x: FloatArray) -> FloatArray:
        return np.where(which(x), crossing.spin[1][:, None], crossing.spin[0][:, None]) + 0 * x

    problem.set_initial_velocity(velocity, spin)
    problem.solve(steps * dt, TimeStepping(dt=dt, adaptive=False))
    out = [
        [r["normal_force"], r["tangential_force"], r["force_x"], r["force_y"], r["force_z"]]
        for r in rolling.records
    ]
    return np.array(out)


def cone_fractions(
    normal: FloatArray, tangential: FloatArray, ks: tuple[float, ...] = KS
) -> tuple[FloatArray, FloatArray, int]:
    """Fraction of pressing contacts with |λ_t| ≤ k λ_n, its binomial standard error.

    Args:
        normal: Normal forces (positive: pressing).
        tangential: Tangential force magnitudes.
        ks: Friction coefficients.

    Returns:
        Fractions and standard errors per k, and the number of pressing contacts.
    """
    pressing = normal > 0
    n = int(np.sum(pressing))
    ratio = tangential[pressing] / normal[pressing]
    p = np.array([np.mean(ratio <= k) if n else np.nan for k in ks])
    return p, np.sqrt(p * (1 - p) / max(n, 1)), n


COLUMNS = (
    "regime", "seed", "index", "fe_normal", "fe_tangential", "fe_x", "fe_y", "fe_z",
    "rigid_x", "rigid_y", "rigid_z", "error", "spread", "angle", "offset_a", "offset_b",
)  # fmt: skip
"""Per crossing: the FE force (mean of the steps; normal, tangential, and the force on rod b),
the closed form's force on rod b, |FE − closed form|/|closed form|, the largest step's distance
from the mean over |closed form|, and the crossing's geometry."""


def _table(title: str, normal: FloatArray, tangential: FloatArray) -> None:
    p, se, n = cone_fractions(normal, tangential)
    print(f"{title}: {len(normal)} crossings, {n} pressing ({n / len(normal):.3f})")
    print("   k   measured ± se     1−1/√(1+k²)   0.5k/√(k²+1)")
    for k, f, e in zip(KS, p, se):
        hemisphere, seed = 1 - 1 / np.sqrt(1 + k * k), 0.5 * k / np.sqrt(k * k + 1)
        print(f"{k:5.1f}   {f:.4f} ± {e:.4f}    {hemisphere:.4f}        {seed:.4f}")


def summarise(paths: list[str]) -> None:
    """Print the fractions of the crossings in the CSV files written by :func:`main`."""
    rows, seen = [], set()
    for path in paths:
        with open(path, newline="") as handle:
            for row in csv.DictReader(handle):
                key = (row["regime"], row["seed"], row["index"], row["fe_normal"] == "nan")
                if key not in seen:  # a crossing solved again (continued runs) counts once
                    seen.add(key)
                    rows.append(row)
    for regime in sorted({r["regime"] for r in rows}):
        chosen = [r for r in rows if r["regime"] == regime]
        data = {c: np.array([float(r[c]) for r in chosen]) for c in COLUMNS[3:]}
        print(f"== {regime} ==")
        if np.all(np.isfinite(data["fe_normal"])):
            print(
                f"FE vs closed form |Δλ|/|λ|: median {np.median(data['error']):.2e}, max "
                f"{np.max(data['error']):.2e}; step spread median {np.median(data['spread']):.2e}"
            )
            _table("FE (rolling model)", data["fe_normal"], data["fe_tangential"])
            fe_in = data["fe_tangential"] <= np.outer(KS, data["fe_normal"])
            rigid_t = np.hypot(data["rigid_x"], data["rigid_y"])
            rigid_in = rigid_t <= np.outer(KS, data["rigid_z"])
            print(
                "crossings on different sides of the cone (FE, closed form), per k:",
                np.sum(fe_in != rigid_in, axis=1).tolist(),
            )
        _table("closed form", data["rigid_z"], np.hypot(data["rigid_x"], data["rigid_y"]))
        pressing = data["rigid_z"] > 0
        angle = np.degrees(np.arctan2(np.hypot(data["rigid_x"], data["rigid_y"]), data["rigid_z"]))
        print(
            "closed form: angle of the pressing forces from the normal, quartiles "
            f"{np.percentile(angle[pressing], [25, 50, 75]).round(1).tolist()} deg"
        )


def explain(regime: str, crossings: int, seed: int) -> None:
    """Print what shapes the force directions: the compliance W and the demand a (Wμ = a).

    W in units of 2/m (two rods that could not rotate: W = 2/m I), its normal entry and the
    eigenvalues of its tangential block; and the directions of a itself (what the force would
    be if W were isotropic), counted like the forces.
    """
    rng = np.random.default_rng(seed)
    systems = [rolling_system(sample_crossing(rng, regime)) for _ in range(crossings)]
    unit = 2 / (SECTION.rhoA * LENGTH)
    normal = np.array([w[2, 2] for w, _ in systems]) / unit
    tangential = np.array([np.linalg.eigvalsh(w[:2, :2]) for w, _ in systems]) / unit
    print(
        f"{regime}: W/(2/m) medians: normal {np.median(normal):.3f}, tangential "
        f"{np.median(tangential[:, 0]):.3f} and {np.median(tangential[:, 1]):.3f}"
    )
    a = np.array([acc for _, acc in systems])
    _table("the demand a (the force if W were isotropic)", a[:, 2], np.hypot(a[:, 0], a[:, 1]))
    mu = np.array([np.linalg.solve(w, acc) for w, acc in systems])
    _table("the force μ = W⁻¹a", mu[:, 2], np.hypot(mu[:, 0], mu[:, 1]))


def main() -> None:
    """Sample crossings of one regime, solve them, and write one CSV row per crossing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regime", choices=sorted(REGIMES), default="inertia")
    parser.add_argument("--samples", type=int, default=100, help="crossings of this run")
    parser.add_argument("--first", type=int, default=0, help="skip this many of the stream")
    parser.add_argument("--rigid-only", action="store_true", help="closed form only, no FE")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--out", default="rolling_fraction.csv", help="CSV (rank 0, appended)")
    parser.add_argument("--summarise", nargs="+", default=None, help="only print these CSVs")
    parser.add_argument("--explain", type=int, default=0, help="only print W and a of N")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    if args.summarise or args.explain:
        if comm.rank == 0:
            if args.summarise:
                summarise(args.summarise)
            else:
                explain(args.regime, args.explain, args.seed)
        return
    rng = np.random.default_rng(args.seed)
    for _ in range(args.first):
        sample_crossing(rng, args.regime)
    new = comm.rank == 0 and not Path(args.out).exists()
    handle = open(args.out, "a", newline="") if comm.rank == 0 else None
    writer = csv.writer(handle) if handle else None
    if writer and new:
        writer.writerow(COLUMNS)
    start = time.perf_counter()
    for index in range(args.first, args.first + args.samples):
        crossing = sample_crossing(rng, args.regime)
        mu = rigid_contact_force(crossing)
        fe = np.full(5, np.nan)
        error = spread = np.nan
        if not args.rigid_only:
            forces = fe_contact_force(comm, crossing, dt=args.dt, steps=args.steps)
            fe = np.mean(forces, axis=0)  # the stiff modes' step-to-step content averages out
            scale = float(np.linalg.norm(mu))
            error = float(np.linalg.norm(fe[2:] + mu)) / scale  # records hold −μ
            spread = float(np.max(np.linalg.norm(forces[:, 2:] - fe[2:], axis=1))) / scale
        if writer and handle:
            writer.writerow(
                [args.regime, args.seed, index, *fe[:2], *(-fe[2:]), *mu, error, spread,
                 crossing.angle, *crossing.offsets]
            )  # fmt: skip
            handle.flush()
    if handle:
        handle.close()
        print(f"{args.samples} crossings in {time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
