"""Compare the crossed-strings rods (Fig. 1) with the paper's reduced two-strings model.

Runs `demos/demo_crossed_strings.py` (Cosserat rods, perfect rolling contact) with and without
the contact, and `fe_rodcontact.strings` (eqs. 16–17) with the parameters mapped from the
rods, with and without the contact, all on the same number of elements per string, time step
and duration. It writes ``comparison.json`` and ``comparison.png`` to ``--out-dir``.

**The mapping** (reference coordinates: x ∈ [0, L] along each string before the stretch ε):

- u(x, t) is string a's sideways (y) displacement, v(y, t) string b's sideways (x) one. Per
  reference length a string has mass ρA and tension T = ε EA, and its spatial slope is
  u_x/(1+ε), so u_tt − c² u_xx = 0 with c² = T/((1+ε)ρA): f₀ = c/(2L), as in the demo.
- G: the contact point lies on a's centreline in y, so on b it sits at the reference point
  s_b with (1+ε)(s_b − L/2) = u(s_a) (b's axial displacement aside): ṡ_b = u_t/(1+ε), and in
  the same way ṡ_a = v_t/(1+ε). With F = 1 this is the reduced model's ṡᵢ = Gᵢ u_t(s₁) with
  G₁ = G₂ = 1/(1+ε). F = 1 (equal strings) is the paper's symmetric choice; the rods do not
  fix it (below).
- Initial data: u = v = 0, u_t = push·sin(πx/L), v_t = −0.6 push·sin(2πx/L) (the demo's),
  s₁ = s₂ = L/2.

**What the rods do that eq. 16 does not.** The rolling rows at a right-angle crossing tie a's
sideways velocity u_t to a's spin about its own axis (u_t = R ω_a,x when b's surface stays
put), not to b's sideways velocity: the tangential contact force spins string a, whose
rotations are free at its ends. Seen from u, the spin is a second "string" attached at the
contact: θ̃ = R θ_a with mass ρJ/R² per length, wave speed c_t = √(GJ/ρJ) and free ends. The
first symmetric mode of u coupled to it solves (each half of u a string fixed at its far
end, each half of θ̃ one free at its far end)

    ρA c cot(ωL/2c) = (ρJ/R²) c_t tan(ωL/2c_t),

printed as ``f_spin_coupled``, for a rigid b. b gives way (its axial motion and tilt at the
contact), which makes the spin line look heavier and lowers the line by at most
``f_spin_lowering_by_b_compliance`` (relative, :func:`b_compliance_lowering`). The
script also gives the string frequency with bending,
f_n = n c/(2L)·√(1 + (nπ/ℓ)² EI(1+ε)/T) (ℓ = (1+ε)L the stretched length; EI(1+ε) the
bending stiffness per stretched length), and the discrete frequency of the first mode of the
reduced model (P1, consistent mass, implicit midpoint).

Frequencies: ``line_frequency`` is the peak of the Hann-windowed, 64× zero-padded spectrum;
``mode_frequency`` fits x_{k+1} + x_{k−1} = 2 cos(ωΔt) x_k by least squares to the first
sine coefficient of a string's sideways displacement, exact for one sampled line. Energies:
each string's sideways energy ½ρA∫u_t² + ½T/(1+ε)∫u_x² on the nodal values (P1 mass and
stiffness) at the step midpoints, the same formula for both models.

Run serially or on 2 ranks (both models are then cut across the ranks):

    python benchmarks/compare_reduced_model.py --elements 16 --dt 2e-3 --t-end 1.0
"""

import argparse
import csv
import gc
import json
import runpy
import sys
import time
from pathlib import Path

from mpi4py import MPI

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq, minimize_scalar

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fe_rodcontact.strings import StringsConfig, run_strings

__all__ = [
    "b_compliance_lowering",
    "fit_frequency",
    "line_amplitude",
    "line_frequency",
    "main",
    "mode_frequency",
    "reduced_config",
    "run_reduced",
    "run_rods",
    "spin_coupled_amplitude",
    "spin_coupled_frequency",
    "string_frequency",
    "string_sideways_energy",
]

FloatArray = npt.NDArray[np.float64]
DEMO = Path(__file__).resolve().parents[1] / "demos" / "demo_crossed_strings.py"


def line_frequency(signal: FloatArray, dt: float, pad: int = 64) -> float:
    """Frequency of the highest peak of the Hann-windowed, zero-padded spectrum [Hz]."""
    x = (signal - signal.mean()) * np.hanning(signal.size)
    power = np.abs(np.fft.rfft(x, pad * signal.size))
    frequencies = np.fft.rfftfreq(pad * signal.size, dt)
    return float(frequencies[1 + np.argmax(power[1:])])


def mode_frequency(signal: FloatArray, dt: float) -> float:
    """Frequency of a one-line signal x_k = A sin(ω k Δt + φ) [Hz].

    Least squares for x_{k+1} + x_{k−1} = 2 cos(ωΔt) x_k: exact for one sampled line (no
    offset), whatever the record length.
    """
    x = signal[1:-1]
    ratio = np.dot(x, signal[2:] + signal[:-2]) / (2.0 * np.dot(x, x))
    return float(np.arccos(np.clip(ratio, -1.0, 1.0)) / (2.0 * np.pi * dt))


def fit_frequency(signal: FloatArray, dt: float, lower: float, upper: float) -> float:
    """Frequency of the sinusoid + offset that fits ``signal`` best in [lower, upper] [Hz].

    Least squares over A sin ωt + B cos ωt + C for each ω (a scan of 400 frequencies, then a
    bounded refinement): for a dominant line in a record of a few periods, where the
    spectrum's peak is biased by the window.
    """
    t = dt * np.arange(signal.size)

    def residual(f: float) -> float:
        omega = 2 * np.pi * f
        basis = np.column_stack([np.sin(omega * t), np.cos(omega * t), np.ones_like(t)])
        fit = np.linalg.lstsq(basis, signal, rcond=None)[0]
        return float(np.sum((basis @ fit - signal) ** 2))

    grid = np.linspace(lower, upper, 400)
    best = int(np.argmin([residual(f) for f in grid]))
    result = minimize_scalar(
        residual, bounds=(grid[max(best - 1, 0)], grid[min(best + 1, 399)]), method="bounded"
    )
    return float(result.x) if result.success else float(grid[best])


def line_amplitude(signal: FloatArray, dt: float, frequency: float) -> float:
    """Amplitude of the sinusoid at ``frequency`` in the least-squares fit with an offset."""
    t = dt * np.arange(signal.size)
    omega = 2 * np.pi * frequency
    basis = np.column_stack([np.sin(omega * t), np.cos(omega * t), np.ones_like(t)])
    fit = np.linalg.lstsq(basis, signal, rcond=None)[0]
    return float(np.hypot(fit[0], fit[1]))


def string_frequency(n: int, strings: dict[str, float], bending: bool = True) -> float:
    """Frequency of mode n of a stretched string with pinned ends, with bending if asked [Hz]."""
    length, stretch, tension = strings["length"], strings["stretch"], strings["tension"]
    c = np.sqrt(tension / ((1 + stretch) * strings["rhoA"]))
    f = n * c / (2 * length)
    if bending:
        k = n * np.pi / ((1 + stretch) * length)
        f *= np.sqrt(1 + k**2 * strings["EI1"] * (1 + stretch) / tension)
    return float(f)


def discrete_string_frequency(n: int, c: float, length: float, elements: int, dt: float) -> float:
    """Mode n of the P1 string (consistent mass, fixed ends) under the implicit midpoint rule."""
    h = length / elements
    kh = n * np.pi * h / length
    omega_h = np.sqrt(6 * c**2 * (1 - np.cos(kh)) / (h**2 * (2 + np.cos(kh))))
    return float(2 / dt * np.arctan(omega_h * dt / 2) / (2 * np.pi))


def spin_coupled_frequency(strings: dict[str, float]) -> float:
    """First symmetric mode of string a's sideways motion rolling on a fixed string b [Hz].

    The rolling ties u_t at the contact (the middle) to R ω_a,x: the spin line (mass ρJ/R²,
    speed √(GJ/ρJ), free ends) loads u there. Lowest root of
    ρA c cot(ωL/2c) = (ρJ/R²) c_t tan(ωL/2c_t).
    """
    length, radius = strings["length"], strings["radius"]
    c = np.sqrt(strings["tension"] / ((1 + strings["stretch"]) * strings["rhoA"]))
    c_t = np.sqrt(strings["GJ"] / strings["rhoJ"])
    spin_mass = strings["rhoJ"] / radius**2

    def mismatch(omega: float) -> float:
        return strings["rhoA"] * c / np.tan(omega * length / (2 * c)) - spin_mass * c_t * np.tan(
            omega * length / (2 * c_t)
        )

    upper = min(np.pi * c / length, np.pi * c_t / length) * (1 - 1e-9)
    return float(brentq(mismatch, 1e-6 * upper, upper) / (2 * np.pi))


def b_compliance_lowering(strings: dict[str, float]) -> float:
    """Bound on how much b's compliance lowers :func:`spin_coupled_frequency` (relative).

    b's surface at the contact gives way along y by its axial motion (a point force on its
    axis at the middle: static stiffness 4EA/L) and its tilt (a point couple on a taut string
    with a bending boundary layer: 2√(EI T), through the lever R). In series with them the
    spin line's dynamic mass M_dyn = 2(ρJ/R²) c_t tan(ωL/2c_t)/ω looks heavier by
    ω² M_dyn/k; the frequency drops by at most half that.
    """
    length, radius = strings["length"], strings["radius"]
    omega = 2 * np.pi * spin_coupled_frequency(strings)
    c_t = np.sqrt(strings["GJ"] / strings["rhoJ"])
    dynamic_mass = 2 * strings["rhoJ"] / radius**2 * c_t * np.tan(omega * length / (2 * c_t))
    dynamic_mass /= omega
    axial = 4 * strings["EA"] / length
    tilt = 2 * np.sqrt(strings["EI1"] * strings["tension"]) / radius**2
    return float(0.5 * omega**2 * dynamic_mass * (1 / axial + 1 / tilt))


def spin_coupled_amplitude(strings: dict[str, float]) -> float:
    """Amplitude at L/2 of the mode of :func:`spin_coupled_frequency` after the push [m].

    On each half, x from the end: u = sin(kx)/sin(kL/2), Rθ_a = cos(k_t x)/cos(k_t L/2),
    both 1 at the contact. The first step's impulse projects the push u_t = push·sin(πx/L)
    (no spin) onto the rolling motions in the mass metric, which gives this mode the share
    q̇ = ∫ρA u push sin(πx/L) / (∫ρA u² + ∫(ρJ/R²)(Rθ_a)²), and the amplitude q̇/ω.
    """
    length, radius, push = strings["length"], strings["radius"], strings["push"]
    c = np.sqrt(strings["tension"] / ((1 + strings["stretch"]) * strings["rhoA"]))
    c_t = np.sqrt(strings["GJ"] / strings["rhoJ"])
    omega = 2 * np.pi * spin_coupled_frequency(strings)
    x = np.linspace(0.0, length / 2, 4001)
    u = np.sin(omega * x / c) / np.sin(omega * length / (2 * c))
    spin = np.cos(omega * x / c_t) / np.cos(omega * length / (2 * c_t))
    mass = strings["rhoA"] * np.trapezoid(u**2, x)
    mass += strings["rhoJ"] / radius**2 * np.trapezoid(spin**2, x)
    share = strings["rhoA"] * np.trapezoid(u * push * np.sin(np.pi * x / length), x) / mass
    return float(share / omega)


def string_sideways_energy(
    x: FloatArray, displacement: FloatArray, dt: float, strings: dict[str, float]
) -> FloatArray:
    """Sideways energy ½ρA∫u_t² + ½T/(1+ε)∫u_x² at the step midpoints (P1 on the nodes).

    Args:
        x: Sorted reference coordinates of the nodes (uniform).
        displacement: Sideways displacement, one row per step, one column per node.
        dt: Time step.
        strings: The strings' parameters (the demo's summary).
    """
    h = x[1] - x[0]
    velocity = np.diff(displacement, axis=0) / dt
    middle = 0.5 * (displacement[1:] + displacement[:-1])
    a, b = velocity[:, :-1], velocity[:, 1:]
    kinetic = 0.5 * strings["rhoA"] * h / 3 * np.sum(a**2 + a * b + b**2, axis=1)
    slope = np.diff(middle, axis=1) / h
    stiffness = strings["tension"] / (1 + strings["stretch"])
    return kinetic + 0.5 * stiffness * h * np.sum(slope**2, axis=1)


def run_rods(
    comm: MPI.Comm, out_dir: Path, elements: int, dt: float, t_end: float, contact: bool
) -> dict[str, object]:
    """Run the crossed-strings demo and return its sideways series (on every rank).

    Returns:
        ``t``, ``xa``/``ua`` (string a's nodes and y-displacements), ``xb``/``vb`` (string b's
        nodes and x-displacements), ``spin_a`` (R ω_a,x at the nodes, step means), ``s_a``,
        ``s_b``, ``point_y`` (per step, contact only), ``summary`` (the demo's).
    """
    argv = [str(DEMO), "--elements", str(elements), "--dt", repr(dt), "--t-end", repr(t_end)]
    argv += ["--out-dir", str(out_dir), "--nodal-series"]
    argv += [] if contact else ["--no-contact"]
    saved = sys.argv
    sys.argv = argv
    try:
        runpy.run_path(str(DEMO), run_name="__main__")
    finally:
        sys.argv = saved
    # The demo's PETSc objects are garbage now; destroying them is collective, so collect
    # them here on every rank rather than wherever the next allocation triggers it.
    gc.collect()
    comm.barrier()
    summary = json.loads((out_dir / "summary.json").read_text())
    series = np.load(out_dir / "nodal_series.npz")
    reference = series["reference"]
    strings = summary["strings"]
    on_a = np.isclose(reference[:, 2], strings["press"])
    nodes_a = np.flatnonzero(on_a)[np.argsort(reference[on_a, 0])]
    nodes_b = np.flatnonzero(~on_a)[np.argsort(reference[~on_a, 1])]
    half = strings["length"] / 2
    omega = series["angular_velocity"]
    out: dict[str, object] = {
        "t": series["t"],
        "xa": reference[nodes_a, 0] + half,
        "ua": series["displacement"][:, nodes_a, 1],
        "xb": reference[nodes_b, 1] + half,
        "vb": series["displacement"][:, nodes_b, 0],
        # the nodal ω carries the midpoint rule's undamped (−1)ⁿ part: step means
        "spin_a": strings["radius"] * 0.5 * (omega[1:, nodes_a, 0] + omega[:-1, nodes_a, 0]),
        "summary": summary,
    }
    if contact:
        with (out_dir / "contacts.csv").open() as stream:
            rows = list(csv.DictReader(stream))
        for key in ("s_a", "s_b", "point_y"):
            out[key] = np.array([float(r[key]) for r in rows])
    return out


def reduced_config(
    strings: dict[str, float], elements: int, dt: float, t_end: float, contact: bool
) -> StringsConfig:
    """The reduced model with the rods' parameters (the mapping of the module docstring)."""
    length, stretch, push = strings["length"], strings["stretch"], strings["push"]
    return StringsConfig(
        bc="fixed",
        length=length,
        wave_speed=float(np.sqrt(strings["tension"] / ((1 + stretch) * strings["rhoA"]))),
        F=1.0,
        G1=1 / (1 + stretch),
        G2=1 / (1 + stretch),
        s1=length / 2,
        s2=length / 2,
        u0="0",
        u0_rate=f"{push!r}*sin(pi*x/L)",
        v0="0",
        v0_rate=f"-{0.6 * push!r}*sin(2*pi*x/L)",
        elements=elements,
        degree=1,
        kernel="smooth",
        dt=dt,
        t_end=t_end,
        output_interval=dt,
        contact=contact,
        snapshots=True,
    )


def run_reduced(comm: MPI.Comm, config: StringsConfig) -> dict[str, object]:
    """Run the reduced model; the fields are gathered to rank 0 and broadcast."""
    result = run_strings(config, comm)
    fields = comm.bcast((result.x, result.u_field, result.v_field), root=0)
    return {
        "t": result.t,
        "xa": fields[0],
        "ua": fields[1],
        "xb": fields[0],
        "vb": fields[2],
        "s_a": result.s1,
        "s_b": result.s2,
        "energy": result.energy,
    }


def _node(x: FloatArray, where: float) -> int:
    index = int(np.argmin(np.abs(x - where)))
    if not np.isclose(x[index], where):
        raise SystemExit(f"no node at x = {where}: give --elements a multiple of 4")
    return index


def measure(run: dict[str, object], strings: dict[str, float], dt: float) -> dict[str, object]:
    """Frequencies, amplitudes, contact paths and energies of one run."""
    length = strings["length"]
    xa, ua, xb, vb = (np.asarray(run[k]) for k in ("xa", "ua", "xb", "vb"))
    modal_a = 2 / length * np.trapezoid(ua * np.sin(np.pi * xa / length), xa, axis=1)
    f1 = string_frequency(1, strings, bending=False)
    middle = ua[:, _node(xa, length / 2)]
    fitted = fit_frequency(middle, dt, 0.5 * f1, 1.5 * f1)
    out: dict[str, object] = {
        "a_mode1_line": line_frequency(modal_a, dt),
        "a_centre_fit": fitted,
        "a_centre_fit_amplitude": line_amplitude(middle, dt, fitted),
    }
    if "s_b" not in run or not np.ptp(np.asarray(run["s_b"])):
        out["a_mode1_frequency"] = mode_frequency(modal_a, dt)  # one line: free strings only
    for name, x, field in (("a", xa, ua), ("b", xb, vb)):
        for label, where in (("centre", 0.5), ("quarter", 0.25)):
            signal = field[:, _node(x, where * length)]
            out[f"{name}_{label}_line"] = line_frequency(signal, dt)
            out[f"{name}_{label}_amplitude"] = float(np.ptp(signal) / 2)
    energy_a = string_sideways_energy(xa, ua, dt, strings)
    energy_b = string_sideways_energy(xb, vb, dt, strings)
    total0 = energy_a[0] + energy_b[0]
    out["energy_fraction_b_max"] = float(np.max(energy_b / total0))
    out["energy_fraction_b_mean"] = float(np.mean(energy_b / total0))
    out["sideways_energy_change_max"] = float(np.max(np.abs(energy_a + energy_b - total0)) / total0)
    out["energy_a"] = energy_a / total0
    out["energy_b"] = energy_b / total0
    if "s_b" in run:
        for key in ("s_a", "s_b"):
            contact_path = np.asarray(run[key])
            out[f"{key}_amplitude"] = float(np.ptp(contact_path) / 2)
            out[f"{key}_line"] = line_frequency(contact_path, dt)
    if "spin_a" in run:
        spin = np.asarray(run["spin_a"])
        velocity = np.diff(middle) / dt
        spin_middle = spin[:, _node(xa, length / 2)]
        out["rolling_ratio"] = float(np.dot(spin_middle, velocity) / np.dot(velocity, velocity))
        rho_j = strings["rhoJ"] / strings["radius"] ** 2
        h = xa[1] - xa[0]
        spin_energy = 0.5 * rho_j * h * np.sum(0.5 * (spin[:, 1:] ** 2 + spin[:, :-1] ** 2), axis=1)
        out["spin_energy_fraction_max"] = float(np.max(spin_energy / total0))
        out["spin_energy"] = spin_energy / total0
    if "point_y" in run:
        s_b = np.asarray(run["s_b"]) - length / 2
        point_y = np.asarray(run["point_y"])
        out["contact_point_ds_b_dy"] = float(np.dot(s_b, point_y) / np.dot(point_y, point_y))
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the four cases, write comparison.json and comparison.png, return the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=16, help="elements per string (×4)")
    parser.add_argument("--dt", type=float, default=2e-3, help="time step [s]")
    parser.add_argument("--t-end", type=float, default=1.0, help="duration [s]")
    parser.add_argument("--out-dir", type=Path, default=Path("results/compare_reduced_model"))
    parser.add_argument("--no-figure", action="store_true", help="skip comparison.png")
    args = parser.parse_args(argv)
    if args.elements % 4:
        parser.error("--elements must be a multiple of 4 (nodes at L/4 and L/2)")
    comm = MPI.COMM_WORLD
    runs: dict[str, dict[str, object]] = {}
    seconds: dict[str, float] = {}
    for name, contact in (("rods_contact", True), ("rods_free", False)):
        start = time.perf_counter()
        out = args.out_dir / name
        runs[name] = run_rods(comm, out, args.elements, args.dt, args.t_end, contact)
        seconds[name] = time.perf_counter() - start
    strings = runs["rods_free"]["summary"]["strings"]  # type: ignore[index]
    for name, contact in (("reduced_contact", True), ("reduced_free", False)):
        start = time.perf_counter()
        config = reduced_config(strings, args.elements, args.dt, args.t_end, contact)
        runs[name] = run_reduced(comm, config)
        seconds[name] = time.perf_counter() - start
    c = float(np.sqrt(strings["tension"] / ((1 + strings["stretch"]) * strings["rhoA"])))
    mapping = {
        "wave_speed_c": c,
        "F": 1.0,
        "G1": 1 / (1 + strings["stretch"]),
        "G2": 1 / (1 + strings["stretch"]),
        "f1_string": string_frequency(1, strings, bending=False),
        "f1_string_with_bending": string_frequency(1, strings),
        "f2_string_with_bending": string_frequency(2, strings),
        "f1_discrete_reduced": discrete_string_frequency(
            1, c, strings["length"], args.elements, args.dt
        ),
        "f_spin_coupled": spin_coupled_frequency(strings),
        "a_centre_amplitude_spin_coupled": spin_coupled_amplitude(strings),
        "f_spin_lowering_by_b_compliance": b_compliance_lowering(strings),
        "a_centre_amplitude_free": strings["push"]
        / (2 * np.pi * string_frequency(1, strings, bending=False)),
        "torsion_wave_speed": float(np.sqrt(strings["GJ"] / strings["rhoJ"])),
    }
    measured = {name: measure(run, strings, args.dt) for name, run in runs.items()}
    summary = {
        "ranks": comm.size,
        "elements": args.elements,
        "dt": args.dt,
        "t_end": args.t_end,
        "frequency_resolution": 1 / args.t_end,
        "strings": strings,
        "mapping": mapping,
        "seconds": seconds,
        "measured": {
            name: {k: v for k, v in m.items() if not isinstance(v, np.ndarray)}
            for name, m in measured.items()
        },
    }
    if comm.rank == 0:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / "comparison.json").write_text(json.dumps(summary, indent=2))
        print(json.dumps({k: summary[k] for k in ("mapping", "measured", "seconds")}, indent=2))
        if not args.no_figure:
            _figure(args.out_dir / "comparison.png", runs, measured, mapping, strings, args.dt)
    comm.barrier()
    return summary


def _figure(
    path: Path,
    runs: dict[str, dict[str, object]],
    measured: dict[str, dict[str, object]],
    mapping: dict[str, float],
    strings: dict[str, float],
    dt: float,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    length = strings["length"]
    figure, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    for name, run in runs.items():
        xa, ua = np.asarray(run["xa"]), np.asarray(run["ua"])
        signal = ua[:, _node(xa, length / 2)]
        x = (signal - signal.mean()) * np.hanning(signal.size)
        power = np.abs(np.fft.rfft(x, 16 * signal.size))
        axes[0].semilogy(np.fft.rfftfreq(16 * signal.size, dt), power / power.max(), label=name)
    for key, style in (("f1_string_with_bending", "--"), ("f_spin_coupled", ":")):
        axes[0].axvline(mapping[key], color="k", ls=style, label=key)
    axes[0].set(xlabel="f [Hz]", ylabel="|û| (a, middle)", xlim=(0, 20), ylim=(1e-4, 2))
    axes[0].set_title("sideways motion of a at L/2")
    axes[0].legend(fontsize=7)
    for name, colour in (("rods_contact", "tab:blue"), ("reduced_contact", "tab:green")):
        t = np.asarray(runs[name]["t"])
        for key, style in (("s_b", "-"), ("s_a", "--")):
            contact_path = np.asarray(runs[name][key])
            steps = contact_path.size
            axes[1].plot(t[-steps:], contact_path - length / 2, color=colour, ls=style)
            axes[1].plot([], [], color=colour, ls=style, label=f"{name}: {key} − L/2")
    axes[1].set(xlabel="t [s]", ylabel="[m]", title="contact point")
    axes[1].legend(fontsize=7)
    for name, colour in (("rods_contact", "tab:blue"), ("reduced_contact", "tab:green")):
        t = np.asarray(runs[name]["t"])
        middle = 0.5 * (t[1:] + t[:-1])
        axes[2].plot(middle, measured[name]["energy_b"], color=colour, label=f"{name}: string b")
    spin = measured["rods_contact"].get("spin_energy")
    if spin is not None:
        t = np.asarray(runs["rods_contact"]["t"])
        axes[2].plot(
            0.5 * (t[1:] + t[:-1]), spin, color="tab:blue", ls=":", label="rods: spin of a"
        )
    axes[2].set(xlabel="t [s]", ylabel="/ initial sideways energy", title="energy taken from a")
    axes[2].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
