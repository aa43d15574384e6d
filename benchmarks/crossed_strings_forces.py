"""The crossed strings' contact force at several time steps: does it converge with Δt?

Runs `demos/demo_crossed_strings.py` at each ``--dts`` (same elements, same duration) and
reads its ``contacts.csv`` (one row per step). With f the force on the contact and n its
normal, the tangential force is λ_τ = f − (f·n)n and the normal force λ_n = f·n. It prints
and writes (``forces.json`` in ``--out-dir``), per Δt:

- ``alternating_rms``: the step-to-step (Nyquist) part of λ_τ, the rms over the steps of
  |λ_τ,k+1 − 2λ_τ,k + λ_τ,k−1|/4. A force A(−1)ᵏ on a smooth mean gives A; a smooth force
  gives O(Δt²). If this grows as Δt falls, the force does not converge;
- ``mean_rms``: the rms of λ_τ averaged over consecutive windows of ``--window`` seconds (5 ms),
  which a converging force keeps as Δt falls; ``normal_mean_rms`` the same for λ_n;
- ``outside_cone``: the fraction of steps with |λ_τ| > λ_n (cone ratio above 1 at k = 1);
- the energy the consistent start took and the largest relative energy error of the run.

    python benchmarks/crossed_strings_forces.py --dts 1e-3 5e-4 2.5e-4 --t-end 0.1
"""

import argparse
import csv
import json
import runpy
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def force_figures(path: Path, window: float) -> dict[str, float]:
    """The figures of one run's ``contacts.csv`` (see the module docstring)."""
    with path.open() as stream:
        rows = list(csv.DictReader(stream))
    t = np.array([float(r["t"]) for r in rows])
    force = np.array([[float(r[f"force_{c}"]) for c in "xyz"] for r in rows])
    normal = np.array([[float(r[f"normal_{c}"]) for c in "xyz"] for r in rows])
    pressure = np.einsum("nc,nc->n", force, normal)
    tangential = force - pressure[:, None] * normal
    alternating = (tangential[2:] - 2 * tangential[1:-1] + tangential[:-2]) / 4
    dt = float(t[1] - t[0])
    per_window = max(1, round(window / dt))
    blocks = len(t) // per_window
    means = tangential[: blocks * per_window].reshape(blocks, per_window, 3).mean(axis=1)
    normal_means = pressure[: blocks * per_window].reshape(blocks, per_window).mean(axis=1)
    return {
        "dt": dt,
        "steps": len(t),
        "alternating_rms": float(np.sqrt(np.mean(np.sum(alternating**2, axis=1)))),
        "mean_rms": float(np.sqrt(np.mean(np.sum(means**2, axis=1)))),
        "normal_mean_rms": float(np.sqrt(np.mean(normal_means**2))),
        "outside_cone": float(np.mean(np.linalg.norm(tangential, axis=1) > np.abs(pressure))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dts", type=float, nargs="+", default=[1e-3, 5e-4, 2.5e-4])
    parser.add_argument("--t-end", type=float, default=0.1)
    parser.add_argument("--elements", type=int, default=24)
    parser.add_argument("--window", type=float, default=5e-3, help="averaging window [s]")
    parser.add_argument("--out-dir", type=Path, default=Path("results/crossed_strings_forces"))
    args = parser.parse_args()
    figures = []
    for dt in args.dts:
        out = args.out_dir / f"dt_{dt:g}"
        sys.argv = [
            "demo_crossed_strings.py",
            *("--dt", str(dt), "--t-end", str(args.t_end), "--elements", str(args.elements)),
            *("--out-dir", str(out)),
        ]
        runpy.run_path(str(REPO / "demos" / "demo_crossed_strings.py"), run_name="__main__")
        summary = json.loads((out / "summary.json").read_text())
        figures.append(
            {
                **force_figures(out / "contacts.csv", args.window),
                "start_energy_loss": summary.get("start_energy_loss", 0.0),
                "max_relative_energy_error": summary["max_relative_energy_error"],
            }
        )
    print(f"{'dt':>9} {'alternating':>12} {'5-ms mean':>10} {'normal':>8} {'|τ|>n':>6}")
    for f in figures:
        print(
            f"{f['dt']:9.2e} {f['alternating_rms']:12.4g} {f['mean_rms']:10.4g} "
            f"{f['normal_mean_rms']:8.4g} {f['outside_cone']:6.2f}"
        )
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "forces.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
