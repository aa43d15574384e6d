# # Two stretched strings, crossed, pressed together and released: perfect rolling contact
#
# The paper's Fig. 1 with geometrically exact rods: two rubber strings with fixed ends are
# stretched, crossed at right angles and pressed into each other at the crossing, then
# released with sideways pushes. From then on they roll on each other
# without slipping (Gay-Balmaz & Putkaradze): the material points of both strings at the
# contact move together, ṙ_a + ω_a × ρ_a = ṙ_b − ω_b × ρ_b, imposed by Lagrange multipliers
# (three per contact: the contact force) in one Newton solve per step
# (`fe_rodcontact.contact.RollingContact`, `docs/rolling.md`). The contact point wanders
# along both strings, s_a(t), s_b(t), and the sideways motion of one string is passed to the
# other through the rolling constraint alone: ideal rolling does no work, so from the
# consistent start on (below: it makes the pushed string roll) the energy of the two strings
# is conserved to the Newton tolerance.
#
# The demo writes
#
# 1. `snapshots.png`: each string's sideways and vertical position along it (mm, where the
#    motion shows) at four times, with the contact point;
# 2. `contact.png`: the contact point's paths s_a(t), s_b(t), the normal and tangential
#    contact forces (per step, and their means over 5 ms), and the relative error of the
#    energy balance (kinetic + elastic + the energy the start took);
# 3. `spectrum.png`: the spectrum of the first Fourier coefficient of the lower string's
#    sideways displacement, beside the frequency it has without contact (Fig. 2 right);
# 4. `rods.bp` (ParaView: displacement and velocity), `contacts.csv` (every contact quantity
#    per step: s, point, normal, force, slip, gap, tangency) and `summary.json`;
# 5. with `--animation`, `strings.gif`: the two strings seen from above, each one's sideways
#    motion magnified (`--magnify`, 20 by default, stated in the title), the contact point
#    marked on each, a frame every `--frame-interval` (5 ms);
# 6. with `--nodal-series`, `nodal_series.npz`: the nodes' reference coordinates and their
#    displacement, velocity and angular velocity at every step (used by
#    `benchmarks/compare_reduced_model.py`). `--no-contact` runs the same strings without the
#    rolling contact (they pass through each other): the strings alone, for reference.
#
# Run it on two ranks (`mpiexec -n 2 python demos/demo_crossed_strings.py`); the rods are cut
# across the ranks and the contact's two sides may live on different ranks.

# +
import argparse
import json
from pathlib import Path

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.io.plotting import rod_polylines
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.recording import FieldWriter

parser = argparse.ArgumentParser(description="Two crossed strings in perfect rolling contact.")
parser.add_argument("--elements", type=int, default=24, help="elements per string")
parser.add_argument("--dt", type=float, default=1e-3, help="time step [s]")
parser.add_argument("--t-end", type=float, default=0.5, help="final time [s]")
parser.add_argument("--press", type=float, default=0.01, help="press depth at the crossing [m]")
parser.add_argument("--push", type=float, default=0.5, help="sideways push speed [m/s]")
parser.add_argument("--out-dir", type=Path, default=Path("results/crossed_strings"))
parser.add_argument("--no-contact", action="store_true", help="no rolling contact (reference)")
parser.add_argument("--nodal-series", action="store_true", help="write nodal_series.npz")
parser.add_argument(
    "--animation", action="store_true", help="write strings.gif (top view, motion magnified)"
)
parser.add_argument(
    "--frame-interval", type=float, default=0.005, help="time between animation frames [s]"
)
parser.add_argument(
    "--magnify", type=float, default=20.0, help="magnification of the motion in the animation"
)
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
comm.barrier()


def say(*text: object) -> None:
    if comm.rank == 0:
        print(*text, flush=True)


# -
# ## The strings
#
# Rubber (E = 2 MPa, ρ = 1100 kg/m³) of radius 5 mm and length 1 m, stretched by 10 %:
# tension T = ε E A ≈ 15.7 N, wave speed c = √(T(1+ε)/ρA) ≈ 14 m/s, so a string alone has its
# first mode at f₀ = c/(2L(1+ε)) ≈ 6.4 Hz. Their stress-free lines cross with an overlap of
# 2p (p = press depth); the initial shapes bend them apart by a half sine of amplitude p, so
# that at the crossing they just touch and push on each other. The ends are pinned
# (positions held at the stretched length, rotations free).

# +
L, radius, stretch = 1.0, 0.005, 0.1
E, density = 2e6, 1100.0
section = Section.circular(radius=radius, E=E, nu=0.49, density=density)
p = args.press
tension = stretch * section.EA
if args.elements % 2:
    raise SystemExit("--elements must be even: the strings cross at a node.")
# The smooth (cubic B-spline) centreline of a bent string passes (x₋ − 2x₀ + x₊)/6 inside the
# node x₀: at the crossing each string's curve lies p(1 − cos πh/L)/3 inside its node, so
# string b is lifted by twice that for the curves to touch exactly.
h = L / args.elements
inset = 2 * p * (1 - np.cos(np.pi * h / L)) / 3
# Stretched: length L(1+ε), mass per length ρA/(1+ε); f₀ = c / (2 L (1+ε)).
f0 = np.sqrt(tension * (1 + stretch) / section.rhoA) / (2 * L * (1 + stretch))
rods = create_rod_mesh(
    comm,
    [
        straight((-L / 2, 0, p), (L / 2, 0, p), name="a"),
        straight((0, -L / 2, 2 * radius - p + inset), (0, L / 2, 2 * radius - p + inset), name="b"),
    ],
    elements=args.elements,
)
rod = CosseratRod(rods, section)
supports = []
for name, axis in (("a", 0), ("b", 1)):
    for end, sign in (("start", -1), ("end", 1)):
        shift = [0.0, 0.0, 0.0]
        shift[axis] = sign * stretch * L / 2
        supports.append(Support(name, end, rotation_components=(), displacement=tuple(shift)))
rolling = RollingContact(touch_tolerance=1e-6, friction_coefficient=1.0)
scene = ContactScene(rod)  # radii from the section
scene.add(("a", "b"), rolling)
problem = DynamicProblem(
    rod,
    supports,
    petsc_options_prefix="crossed_",
    contact=None if args.no_contact else scene,
)


def initial_shape(x: np.ndarray) -> np.ndarray:
    lower = np.isclose(x[2], p)  # string a is stress-free at z = p, string b near z = 2R − p
    along = np.where(lower, x[0], x[1])
    bump = p * np.cos(np.pi * along / L)
    return np.vstack(
        [
            np.where(lower, stretch * x[0], 0.0),
            np.where(lower, 0.0, stretch * x[1]),
            np.where(lower, -bump, bump),
        ]
    )


problem.set_initial_displacement(initial_shape)


# String a is pushed sideways (y) in its first mode, string b along x in its second mode
# (asymmetric): the contact point then wanders along both strings. Pushed without spin,
# a's surface slips on b at t = 0 (by the push, 0.5 m/s at the crossing), which the rolling
# rows do not allow: before the first step the problem projects the initial velocities onto
# those that roll, by the perfectly inelastic impulse at the contact that spins a up
# (`DynamicProblem.start_projection`, `docs/rolling.md`, *A consistent start*). It takes
# energy, recorded as an impact loss; from then on the strings roll and the energy is
# conserved. Started with the slip, the tangential force would carry an impulse that
# alternates from step to step and doubles each time Δt is halved.
def initial_velocity(x: np.ndarray) -> np.ndarray:
    lower = np.isclose(x[2], p)
    sideways_a = args.push * np.cos(np.pi * x[0] / L)
    sideways_b = 0.6 * args.push * np.sin(2 * np.pi * x[1] / L)
    return np.vstack([np.where(lower, 0.0, sideways_b), np.where(lower, sideways_a, 0.0), 0 * x[0]])


problem.set_initial_velocity(initial_velocity)
say(
    f"two strings, {args.elements} elements each, T = {tension:.3g} N, f0 = {f0:.3g} Hz, "
    f"{comm.size} rank(s)"
)

# -
# ## Time stepping
#
# Energy–momentum steps; each step solves the rods and the contact force together and moves
# the contact points until they settle. Snapshots of the centrelines are kept for the pictures
# and the first Fourier coefficient of string a's sideways displacement for the spectrum.

# +
fields = FieldWriter(
    comm,
    args.out_dir / "rods.bp",
    [rod.displacement, problem.integrator.velocity],
    every=max(1, int(0.01 / args.dt)),
)
reference = rod.gather_nodal_coordinates()
snapshot_times = np.linspace(0, args.t_end, 4)
snapshots: list[tuple[float, list[np.ndarray]]] = [(0.0, rod_polylines(rod))]
harmonic: list[tuple[float, float]] = []
nodal: dict[str, list] = {"t": [], "displacement": [], "velocity": [], "angular_velocity": []}


def record_nodal(p_: DynamicProblem) -> None:
    nodal["t"].append(p_.time)
    nodal["displacement"].append(rod.gather_nodal(rod.displacement))
    nodal["velocity"].append(rod.gather_nodal(p_.integrator.velocity))
    nodal["angular_velocity"].append(rod.gather_nodal(p_.integrator.nodal_angular_velocity))


frame_every = max(1, round(args.frame_interval / args.dt))
frames: list[tuple[float, list[np.ndarray]]] = [(0.0, rod_polylines(rod))] if args.animation else []


def observe(p_: DynamicProblem) -> None:
    if args.nodal_series:
        record_nodal(p_)
    if args.animation and p_.steps % frame_every == 0:
        frames.append((p_.time, rod_polylines(rod)))
    u = rod.gather_nodal(rod.displacement)
    on_a = np.isclose(reference[:, 2], p)
    x, y = reference[on_a, 0], u[on_a, 1]
    order = np.argsort(x)
    shape = np.sin(np.pi * (x[order] + L / 2) / L)
    harmonic.append((p_.time, 2 / L * np.trapezoid(y[order] * shape, x[order])))
    if len(snapshots) < len(snapshot_times) and p_.time >= snapshot_times[len(snapshots)] - 1e-9:
        snapshots.append((p_.time, rod_polylines(rod)))


if args.nodal_series:
    record_nodal(problem)
problem.solve(args.t_end, TimeStepping(dt=args.dt), progress=True, fields=fields, on_step=observe)
if args.nodal_series and comm.rank == 0:
    np.savez(
        args.out_dir / "nodal_series.npz",
        reference=reference,
        **{key: np.asarray(value) for key, value in nodal.items()},
    )
if not args.no_contact:
    rolling.write_records(args.out_dir / "contacts.csv")
series = problem.series.arrays()
start = problem.start_projection
start_loss = start.energy_loss if start is not None else 0.0
say(
    "consistent start: initial slip "
    f"{start.mismatch if start is not None else 0.0:.3g} m/s, energy taken {start_loss:.4g} J"
)
# The balance: kinetic + elastic energy + the energy the start took (an impact loss).
energy = series["kinetic_energy"] + series["elastic_energy"]
if "impact_energy_loss" in series:
    energy = energy + np.nan_to_num(series["impact_energy_loss"])
energy_error = np.abs(energy - energy[0]) / energy[0]
records = rolling.records
summary = {
    "steps": int(problem.steps),
    "ranks": comm.size,
    "elements_per_string": args.elements,
    "dt": args.dt,
    "first_mode_without_contact_hz": float(f0),
    "max_relative_energy_error": float(energy_error.max()),
    "initial_slip": float(start.mismatch) if start is not None else 0.0,
    "start_energy_loss": float(start_loss),
    "start_energy_fraction": float(start_loss / energy[0]),
    "max_slip_velocity": float(np.nanmax(series["max_slip"][1:]))
    if "max_slip" in series
    else float("nan"),
    "max_gap_change": float(np.ptp([r["gap"] for r in records]) if records else float("nan")),
    "contact_travel_a": float(np.ptp([r["s_a"] for r in records])) if records else 0.0,
    "contact_travel_b": float(np.ptp([r["s_b"] for r in records])) if records else 0.0,
    "newton_iterations_per_step": float(np.mean(series["iterations"][1:])),
    "contact": not args.no_contact,
    "strings": {
        "length": L,
        "radius": radius,
        "stretch": stretch,
        "tension": tension,
        "press": p,
        "push": args.push,
        **{k: getattr(section, k) for k in ("EA", "EI1", "GJ", "rhoA", "rhoI1", "rhoJ")},
    },
}
say(json.dumps(summary, indent=2))
if comm.rank == 0:
    (args.out_dir / "summary.json").write_text(json.dumps(summary, indent=2))

# -
# ## Pictures

# +
if comm.rank == 0:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.array([r["t"] for r in records])
    # The strings are 1 m long and move by millimetres: drawn in 3D at one scale the motion is
    # invisible. Each panel shows one string's centreline across its length (the two
    # coordinates normal to it, in mm) at the four times, and the contact point on it.
    figure, panels = plt.subplots(2, 2, figsize=(12, 6.4), sharex="col", squeeze=False)
    colours = plt.get_cmap("viridis")(np.linspace(0, 0.9, len(snapshots)))
    for column, (name, along, across) in enumerate((("a", 0, 1), ("b", 1, 0))):
        for row, (component, what) in enumerate(((across, "sideways"), (2, "vertical"))):
            axes = panels[row, column]
            for (time, lines), colour in zip(snapshots, colours, strict=True):
                line = lines[column]
                axes.plot(line[:, along], 1e3 * line[:, component], color=colour,
                          label=f"t = {time:.3f} s")  # fmt: skip
                near = [r for r in records if abs(r["t"] - time) < 0.5 * args.dt]
                for r in near:
                    point = (r["point_x"], r["point_y"], r["point_z"])
                    axes.plot(point[along], 1e3 * point[component], "o", color=colour, ms=5)
            axis_name = "xyz"
            axes.set(
                title=f"string {name}: {what} position {axis_name[component]}",
                ylabel=f"{axis_name[component]} [mm]",
            )
            if row == 1:
                axes.set_xlabel(f"{axis_name[along]} along string {name} [m]")
    handles, labels = panels[0, 0].get_legend_handles_labels()
    dot = plt.Line2D([], [], marker="o", ls="", color="grey", label="contact point (surfaces)")
    figure.legend([*handles, dot], [*labels, dot.get_label()], loc="upper center",
                  ncol=len(labels) + 1, bbox_to_anchor=(0.5, 0.945), frameon=False)  # fmt: skip
    figure.suptitle(
        f"Crossed strings rolling on each other ({args.t_end:g} s in steps of {args.dt:g} s, "
        f"{comm.size} rank(s)): the centrelines at four times"
    )
    figure.tight_layout(rect=(0, 0, 1, 0.91))
    figure.savefig(args.out_dir / "snapshots.png", dpi=120)
    plt.close(figure)  # the demo may run several times in one process (benchmarks)

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    axes[0].plot(t, [r["s_a"] - L / 2 for r in records], label="s_a − L/2")
    axes[0].plot(t, [r["s_b"] - L / 2 for r in records], label="s_b − L/2")
    axes[0].set(xlabel="t [s]", ylabel="contact point [m]", title="contact paths")
    axes[0].legend()
    # Per step (thin) and over 5 ms (the means converge with Δt; the steps also carry the
    # ringing that the start's impulse leaves at the contact, docs/rolling.md).
    window = max(1, round(0.005 / args.dt))
    for key, colour, name in (
        ("normal_force", "tab:blue", "normal"),
        ("tangential_force", "tab:orange", "tangential"),
    ):
        values = np.array([r[key] for r in records])
        axes[1].plot(t, values, color=colour, lw=0.5, alpha=0.4)
        if len(values) >= window:
            mean = np.convolve(values, np.ones(window) / window, mode="valid")
            axes[1].plot(t[window - 1 :] - 0.5 * (window - 1) * args.dt, mean, color=colour)
        axes[1].plot([], [], color=colour, label=f"{name} (5-ms mean)")
    axes[1].set(xlabel="t [s]", ylabel="force [N]", title="contact force λ")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)  # off the forces
    axes[2].semilogy(series["t"][1:], np.maximum(energy_error[1:], 1e-17))
    axes[2].set(xlabel="t [s]", ylabel="|E + loss − E₀|/E₀", title="energy")
    figure.tight_layout()
    figure.savefig(args.out_dir / "contact.png", dpi=120)
    plt.close(figure)

    times, values = np.array(harmonic).T
    frequencies = np.fft.rfftfreq(len(values), d=args.dt)
    spectrum = np.abs(np.fft.rfft((values - values.mean()) * np.hanning(len(values))))
    figure, axis = plt.subplots(figsize=(6, 3.6))
    axis.semilogy(frequencies, np.maximum(spectrum, 1e-16), label="with rolling contact")
    axis.axvline(f0, color="k", ls="--", label=f"alone: f₀ = {f0:.2f} Hz")
    axis.set(xlabel="frequency [Hz]", ylabel="|û₁|", xlim=(0, 10 * f0), title="first harmonic")
    axis.legend()
    figure.tight_layout()
    figure.savefig(args.out_dir / "spectrum.png", dpi=120)
    plt.close(figure)

    if args.animation:
        from matplotlib.animation import FuncAnimation, PillowWriter

        # Top view: string a along x, its sideways motion y magnified; string b along y, its
        # sideways motion x magnified. The contact point is drawn on each string (its place
        # in each string's magnified picture).
        m = args.magnify
        figure, axis = plt.subplots(figsize=(6, 6.4))
        (line_a,) = axis.plot([], [], color="tab:blue", lw=2, label="string a")
        (line_b,) = axis.plot([], [], color="tab:orange", lw=2, label="string b")
        (marks,) = axis.plot([], [], "ko", ms=6, label="contact point (on each string)")
        reach = 0.55 * L * (1 + stretch)
        axis.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal")
        axis.set(xlabel=f"x [m] (string b: sideways × {m:g})",
                 ylabel=f"y [m] (string a: sideways × {m:g})")  # fmt: skip
        axis.legend(loc="upper left", bbox_to_anchor=(0, -0.12), ncol=3, fontsize=8)

        def draw_frame(k: int) -> list:
            time, (a, b) = frames[k]
            line_a.set_data(a[:, 0], m * a[:, 1])
            line_b.set_data(m * b[:, 0], b[:, 1])
            near = [r for r in records if abs(r["t"] - time) < 0.5 * args.dt]
            xs = [c for r in near for c in (r["point_x"], m * r["point_x"])]
            ys = [c for r in near for c in (m * r["point_y"], r["point_y"])]
            marks.set_data(xs, ys)
            axis.set_title(
                f"Crossed strings rolling, seen from above, t = {time:.3f} s\n"
                f"(sideways motion magnified × {m:g})"
            )
            return [line_a, line_b, marks]

        draw_frame(0)  # the title's room, for the layout
        figure.tight_layout()
        animation = FuncAnimation(figure, draw_frame, frames=len(frames), blit=False)
        animation.save(args.out_dir / "strings.gif", writer=PillowWriter(fps=10), dpi=80)
        plt.close(figure)
    print(f"wrote {args.out_dir.resolve()}")
