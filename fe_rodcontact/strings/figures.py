"""Figures like the paper's Fig. 2 and the sound of û1 (rank 0 writes; call on rank 0 only).

- :func:`plot_space_time`: u(x, t) and v(x, t) as colour maps with the contact points drawn
  over them.
- :func:`plot_spectrum`: S(ω) of û1(t) against ω/ω0, ω0 = 2πc/L, for several runs (e.g. with
  and without contact).
- :func:`write_wav`: û1(t) as a 16-bit mono WAV file, time-scaled so that ω0 sounds at a
  chosen pitch (the paper's supplementary sound).
"""

import wave
from collections.abc import Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from fe_rodcontact.errors import InputError
from fe_rodcontact.strings.analysis import spectrum
from fe_rodcontact.strings.config import StringsResult

__all__ = [
    "describe_run",
    "fundamental_frequency",
    "plot_space_time",
    "plot_spectrum",
    "write_wav",
]


def fundamental_frequency(result: StringsResult) -> float:
    """ω0 = 2πc/L of the run."""
    return 2.0 * np.pi * result.config.wave_speed / result.config.length


def describe_run(result: StringsResult) -> str:
    """A one-line description of a run for figure titles (ends, coupling, contact)."""
    c = result.config
    coupling = f"F = {c.F:g}, G1 = {c.G1:g}, G2 = {c.G2:g}" if c.contact else "no contact"
    return f"two strings, {c.bc} ends, L = {c.length:g}, c = {c.wave_speed:g}, {coupling}"


def plot_space_time(result: StringsResult, path: str | Path, title: str = "") -> Path:
    """Draw u(x, t) and v(x, t) with the contact points s1(t), s2(t) in red.

    Raises:
        InputError: If the run recorded no snapshots (or this is not rank 0).
    """
    if result.u_field.size == 0:
        raise InputError("the run has no field snapshots (snapshots=False, or not rank 0)")
    path = Path(path)
    fig, axes = plt.subplots(1, 2, figsize=(9, 5), sharey=True, constrained_layout=True)
    extent = (result.x[0], result.x[-1], result.t[0], result.t[-1])
    limit = float(max(np.abs(result.u_field).max(), np.abs(result.v_field).max(), 1e-300))
    for ax, field, s, name in (
        (axes[0], result.u_field, result.s1, "u"),
        (axes[1], result.v_field, result.s2, "v"),
    ):
        image = ax.imshow(
            field,
            origin="lower",
            aspect="auto",
            extent=extent,
            cmap="RdBu_r",
            vmin=-limit,
            vmax=limit,
            interpolation="nearest",
        )
        if result.config.contact:
            ax.plot(s, result.t, color="red", lw=1.0, label="contact point")
            ax.legend(loc="upper right", fontsize=8)
        ax.set_xlabel("x" if name == "u" else "y")
        ax.set_title(f"{name}(x, t)")
    axes[0].set_ylabel("t")
    fig.colorbar(image, ax=axes, shrink=0.8, label="displacement u(x, t), v(y, t)")
    fig.suptitle(title or describe_run(result))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_spectrum(
    results: Mapping[str, StringsResult], path: str | Path, max_ratio: float = 8.0, title: str = ""
) -> Path:
    """Plot S(ω) of û1 against ω/ω0 for each labelled run."""
    path = Path(path)
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    for label, result in results.items():
        ratio, power = spectrum(result.t, result.u_hat1, fundamental_frequency(result))
        keep = (ratio > 0) & (ratio <= max_ratio)
        ax.semilogy(ratio[keep], np.maximum(power[keep], 1e-18), lw=1.0, label=label)
    ax.set_xlabel("ω / ω0")
    ax.set_ylabel("S(ω) (normalised)")
    ax.set_ylim(1e-14, 2.0)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(title="û1(t), first mode of u")
    first = next(iter(results.values()), None)
    ax.set_title(title or (f"Spectrum of û1: {describe_run(first)}" if first else "Spectrum"))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_wav(
    result: StringsResult,
    path: str | Path,
    pitch: float = 220.0,
    sample_rate: int = 44100,
) -> Path:
    """Write û1(t) as sound, the fundamental ω0 mapped to ``pitch`` Hz.

    One period 2π/ω0 of the simulation lasts 1/pitch seconds; the signal is linearly
    interpolated to ``sample_rate``, its mean removed and scaled to 90 % of full range.

    Raises:
        InputError: For a non-positive pitch or sample rate, or too short a signal.
    """
    if pitch <= 0 or sample_rate <= 0:
        raise InputError("pitch and sample rate must be positive")
    if result.t.size < 2:
        raise InputError("need at least two outputs to write a sound")
    path = Path(path)
    f0 = fundamental_frequency(result) / (2.0 * np.pi)  # simulation periods per time unit
    scale = f0 / pitch  # real seconds per simulation time unit
    duration = (result.t[-1] - result.t[0]) * scale
    n = max(2, int(duration * sample_rate))
    sim_times = result.t[0] + np.arange(n) / sample_rate / scale
    signal = np.interp(sim_times, result.t, result.u_hat1)
    signal = signal - signal.mean()
    peak = np.abs(signal).max()
    samples = np.zeros(n, dtype="<i2")
    if peak > 0:
        samples = np.round(0.9 * 32767 * signal / peak).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(int(sample_rate))
        out.writeframes(samples.tobytes())
    return path
