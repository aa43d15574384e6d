"""Measures of the strings' dynamics: spectrum of û1, spectral lines, divergence of nearby runs.

- :func:`spectrum`: S(ω) of a uniformly sampled signal (Blackman window, mean removed), on
  the axis ω/ω0, normalised to unit total power.
- :func:`spectral_measures`: the fundamental line, the fraction of power outside it and the
  number of peaks above a threshold.
- :func:`lyapunov_estimate`: the largest Lyapunov exponent estimated from the divergence
  d(t) of two runs started ``perturbation`` apart: a least-squares fit of ln d(t) over the
  times before d saturates; compared with a power-law fit of ln d against ln t, so linear
  (integrable, shear-like) growth is not mistaken for exponential growth.
"""

from dataclasses import dataclass, replace

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError
from fe_rodcontact.strings.config import StringsConfig, StringsResult
from fe_rodcontact.strings.model import run_strings

__all__ = [
    "LyapunovEstimate",
    "SpectralMeasures",
    "divergence",
    "lyapunov_estimate",
    "measure_divergence",
    "spectral_measures",
    "spectrum",
]

FloatArray = npt.NDArray[np.float64]


def spectrum(
    t: npt.ArrayLike, signal: npt.ArrayLike, omega0: float
) -> tuple[FloatArray, FloatArray]:
    """Power spectrum of a uniformly sampled signal.

    Args:
        t: Sample times (uniform).
        signal: Samples.
        omega0: Reference angular frequency for the axis.

    Returns:
        ω/ω0 and S(ω) (normalised to sum to one).

    Raises:
        InputError: For fewer than 8 samples or non-uniform times.
    """
    t = np.asarray(t, dtype=np.float64)
    x = np.asarray(signal, dtype=np.float64)
    if t.size < 8 or x.shape != t.shape:
        raise InputError("spectrum needs at least 8 samples of a 1D signal")
    dt = t[1] - t[0]
    if not np.allclose(np.diff(t), dt, rtol=1e-8, atol=0.0):
        raise InputError("spectrum needs uniformly sampled times")
    x = (x - x.mean()) * np.blackman(x.size)
    power = np.abs(np.fft.rfft(x)) ** 2
    total = power.sum()
    power = power / total if total > 0 else power
    omega = 2.0 * np.pi * np.fft.rfftfreq(x.size, dt)
    return omega / omega0, power


@dataclass(frozen=True)
class SpectralMeasures:
    """Spectral measures of a signal.

    Attributes:
        fundamental: ω/ω0 of the strongest line.
        power_outside_fundamental: Fraction of the power outside ±``line_bins`` bins of it.
        num_peaks: Local maxima of S above ``threshold`` × the strongest.
        peaks: ω/ω0 of those peaks, strongest first.
        threshold: The relative threshold used.
    """

    fundamental: float
    power_outside_fundamental: float
    num_peaks: int
    peaks: tuple[float, ...]
    threshold: float


def spectral_measures(
    t: npt.ArrayLike,
    signal: npt.ArrayLike,
    omega0: float,
    threshold: float = 1e-3,
    line_bins: int = 4,
) -> SpectralMeasures:
    """Measure the lines of ``signal``'s spectrum (see :class:`SpectralMeasures`).

    The Blackman window's main lobe is ±3 bins and its side lobes are below 1e-5 of the peak,
    so a pure sine has one peak and almost no power outside ±4 bins.
    """
    ratio, power = spectrum(t, signal, omega0)
    k = int(np.argmax(power))
    band = slice(max(0, k - line_bins), k + line_bins + 1)
    outside = float(1.0 - power[band].sum()) if power.sum() > 0 else 0.0
    interior = (power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:])
    idx = np.flatnonzero(interior) + 1
    idx = idx[power[idx] >= threshold * power[k]]
    idx = idx[np.argsort(power[idx])[::-1]]
    return SpectralMeasures(
        fundamental=float(ratio[k]),
        power_outside_fundamental=max(outside, 0.0),
        num_peaks=int(idx.size),
        peaks=tuple(float(r) for r in ratio[idx]),
        threshold=threshold,
    )


def divergence(a: StringsResult, b: StringsResult) -> FloatArray:
    """Distance between two runs' observables at each output time.

    d(t)² = Δs1² + Δs2² + Δû1² + Σ Δu(probe)².
    """
    if a.t.shape != b.t.shape or not np.allclose(a.t, b.t):
        raise InputError("the two runs must have the same output times")
    d2 = (a.s1 - b.s1) ** 2 + (a.s2 - b.s2) ** 2 + (a.u_hat1 - b.u_hat1) ** 2
    if a.u_probe.size:
        d2 = d2 + np.sum((a.u_probe - b.u_probe) ** 2, axis=1)
    return np.sqrt(d2)


@dataclass(frozen=True)
class LyapunovEstimate:
    """Largest-Lyapunov-exponent estimate from two nearby runs.

    Attributes:
        exponent: Slope of ln d(t) over the fit window (1/time).
        growth: max d / d0 over the fit window.
        window: (t_start, t_end) of the fit.
        r2_exponential: Coefficient of determination of ln d ~ t.
        r2_power_law: Coefficient of determination of ln d ~ ln t.
        chaotic: growth ≥ ``min_growth`` and the exponential fit beats the power law.
        t: Output times.
        distance: d(t).
    """

    exponent: float
    growth: float
    window: tuple[float, float]
    r2_exponential: float
    r2_power_law: float
    chaotic: bool
    t: FloatArray
    distance: FloatArray


def _r2(x: FloatArray, y: FloatArray) -> tuple[float, float]:
    """Slope and coefficient of determination of the least-squares line y ~ x."""
    slope, intercept = np.polyfit(x, y, 1)
    ss_res = float(np.sum((y - (slope * x + intercept)) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return float(slope), (1.0 - ss_res / ss_tot) if ss_tot > 0 else 0.0


def lyapunov_estimate(
    t: npt.ArrayLike,
    distance: npt.ArrayLike,
    saturation: float = 1e-2,
    min_growth: float = 1e3,
) -> LyapunovEstimate:
    """Fit exponential growth to a divergence curve d(t).

    Args:
        t: Times (t[0] is the start, d[0] the initial distance).
        distance: d(t) > 0.
        saturation: The fit stops at the first time d exceeds this.
        min_growth: Growth factor required (with a better exponential than power-law fit)
            to call the motion chaotic.
    """
    t = np.asarray(t, dtype=np.float64)
    d = np.maximum(np.asarray(distance, dtype=np.float64), 1e-300)
    d0 = d[0] if d[0] > 0 else d[d > 0][0]
    over = np.flatnonzero(d > saturation)
    end = over[0] if over.size else d.size
    sel = np.arange(1, max(end, 3))
    sel = sel[sel < d.size]
    tt, ld = t[sel], np.log(d[sel])
    slope, r2_exp = _r2(tt, ld)
    _, r2_pow = _r2(np.log(tt - t[0]), ld)
    growth = float(d[sel].max() / d0)
    return LyapunovEstimate(
        exponent=slope,
        growth=growth,
        window=(float(tt[0]), float(tt[-1])),
        r2_exponential=r2_exp,
        r2_power_law=r2_pow,
        chaotic=bool(growth >= min_growth and slope > 0 and r2_exp > r2_pow),
        t=t,
        distance=d,
    )


def measure_divergence(
    config: StringsConfig,
    perturbation: float = 1e-8,
    comm: MPI.Comm = MPI.COMM_WORLD,
    **fit: float,
) -> tuple[LyapunovEstimate, StringsResult, StringsResult]:
    """Run ``config`` and a copy with both contact points moved by ``perturbation``.

    Returns:
        The estimate (see :func:`lyapunov_estimate`) and both runs.
    """
    base = run_strings(config, comm)
    shifted = replace(config, s1=config.s1 + perturbation, s2=config.s2 + perturbation)
    other = run_strings(shifted, comm)
    return lyapunov_estimate(base.t, divergence(base, other), **fit), base, other
