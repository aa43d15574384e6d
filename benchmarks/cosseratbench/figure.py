"""The README's figure: each experiment's trajectory from a results folder against its reference.

    python benchmarks/cosseratbench/figure.py --results results/cosseratbench --out fig.png

Reads the default runs (``EXPERIMENT/default/fe_rodcontact/trajectory.npz``) that exist.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dynamics_runs import TWIST
from references import cantilever_curve, elastic_catenary
from statics_runs import CANTILEVER, CATENARY


def _load(results: Path, name: str) -> dict[str, np.ndarray] | None:
    path = results / name / "default" / "fe_rodcontact" / "trajectory.npz"
    return dict(np.load(path)) if path.exists() else None


def main() -> None:
    """Draw up to four panels, one per experiment found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results/cosseratbench")
    parser.add_argument("--out", default="benchmarks/cosseratbench/figure.png")
    args = parser.parse_args()
    results = Path(args.results)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))

    data = _load(results, "cantilever")
    if data is not None:
        c = CANTILEVER
        bending = c["youngs_modulus"] * np.pi * c["radius"] ** 4 / 4
        curve = cantilever_curve(c["tip_force"], c["length"], bending)
        ax = axes[0, 0]
        ax.plot(curve[:, 0], 1e3 * curve[:, 2], "k-", lw=1, label="Euler–Bernoulli")
        ax.plot(data["rod0"][-1, :, 0], 1e3 * data["rod0"][-1, :, 2], "o", ms=3, label="ours")
        ax.set(title="cantilever (20 el.)", xlabel="x [m]", ylabel="z [mm]")
        ax.legend()

    data = _load(results, "catenary")
    if data is not None:
        c = CATENARY
        area = np.pi * c["radius"] ** 2
        curve = elastic_catenary(
            c["length"], c["span"], c["density"] * area * c["gravity"], c["youngs_modulus"] * area
        )
        ax = axes[0, 1]
        ax.plot(curve[:, 0], curve[:, 2], "k-", lw=1, label="elastic catenary")
        ax.plot(data["rod0"][0, :, 0], data["rod0"][0, :, 2], ":", color="grey", label="start")
        ax.plot(data["rod0"][-1, :, 0], data["rod0"][-1, :, 2], "o", ms=3, label="ours")
        ax.set(title="catenary (50 el.)", xlabel="x [m]", ylabel="z [m]", aspect="equal")
        ax.legend()

    data = _load(results, "pendulum")
    if data is not None:
        ax = axes[1, 0]
        ax.plot(data["times"], 1e3 * data["rod0"][:, -1, 0], "-", lw=1)
        ax.set(title="pendulum: free end (50 el.)", xlabel="t [s]", ylabel="x [mm]")

    data = _load(results, "twist")
    if data is not None:
        ax = axes[1, 1]
        for i, level in enumerate(TWIST["levels"]):
            x = data[f"rod{i}"]
            offset = x - np.array([0.0, i * TWIST["spacing"], 0.0])
            sideways = np.linalg.norm(offset[..., 1:], axis=2).max(axis=1)
            ax.semilogy(data["times"], sideways, label=f"{level:.2f} × Greenhill")
        ax.axvline(TWIST["ramp"] + TWIST["settle"], color="grey", lw=0.5)
        ax.set(title="twist: sideways distance (50 el.)", xlabel="t [s]", ylabel="[m]")
        ax.legend(fontsize=7)

    fig.tight_layout()
    fig.savefig(args.out, dpi=110)


if __name__ == "__main__":
    main()
