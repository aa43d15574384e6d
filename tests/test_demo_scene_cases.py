"""The demos' scenes as case files, run small by ``fe-rodcontact dynamics`` (serially and on 2
ranks), each checked on a physical number of its scene.

- ``ring_rolls_down_slope.toml`` (``demo_rod_on_plane.py --scene ring``): a ring rolls down a
  slope like a rigid hoop;
- ``rolling_figure_eight.toml`` (``demo_rolling_self_contact.py``, the figure eight): a free
  closed rod rolling on itself keeps its energy and momenta, which start as its fields give;
- ``crossed_strings_potential.toml`` with ``crossed_strings.toml`` (the two sides of
  ``demo_rolling_vs_potential.py``): with μ = 10 the potential strings stick and follow the
  rolling ones; without friction they slide away from them.
"""

import tomllib

import numpy as np
import pytest
from case_texts import consistent_kinetic_energy, write_case
from conftest import REPO

from fe_rodcontact.cli import main

CASES = REPO / "demos" / "cases"


def run_case(comm, folder, name, replace=(), tag=""):
    """Run ``demos/cases/<name>.toml`` with the text replacements; its series."""
    text = (CASES / f"{name}.toml").read_text()
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    case = write_case(folder / f"{name}{tag}.toml", text, comm)
    out = folder / f"{name}{tag}_out"
    assert main(["dynamics", str(case), "--out", str(out), "--quiet"]) == 0
    return np.load(out / "series.npz")


def test_ring_rolls_down_slope_case(comm, shared_tmp):
    """The ring rolls like a rigid hoop: centre acceleration g sin θ/(1 + k) and spin rate
    a/ρ (ρ = R + r, k = I/(m ρ²), I = m R² + ρI₁ 2πR with the sections' own rotary inertia).

    The centre's velocity is the momentum over m; the spin is the angular momentum about the
    centre over I, the centre integrated from the momentum by the trapezoidal rule (what the
    midpoint step does). Both fitted over t ≥ t_end/4. Tolerance 1 %: the damping's rolling
    resistance takes 0.5 % of the work of gravity, which slows the centre by about 0.25 %, and
    the start's transient adds as much (measured at 16 elements, Δt = 2e-3, 0.1 s: −0.19 % and
    +0.01 %); the sliding ring's acceleration, g (sin θ − μ cos θ), differs by 50 %. The rule of
    degree 10 along the rods is the case's (the default, 6, gives +0.7 % and +0.9 %)."""
    data = run_case(
        comm,
        shared_tmp,
        "ring_rolls_down_slope",
        [
            ("elements = 32", "elements = 16"),
            ("t_end = 0.5", "t_end = 0.1"),
            ("dt = 1e-3", "dt = 2e-3"),
        ],
    )
    theta, gravity, ring_radius, wire, density = np.radians(25), 9.81, 0.1, 0.005, 1000.0
    normal = np.array([-np.sin(theta), 0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0, -np.sin(theta)])
    mass = density * np.pi * wire**2 * 2 * np.pi * ring_radius
    inertia = mass * ring_radius**2 + density * np.pi * wire**4 / 4 * 2 * np.pi * ring_radius
    rho = ring_radius + wire
    k = inertia / (mass * rho**2)
    expected = gravity * np.sin(theta) / (1 + k)
    t, momentum = data["t"], data["linear_momentum"]
    steps = np.diff(t)[:, None] * (momentum[1:] + momentum[:-1]) / (2 * mass)
    centre = (rho + 1e-3) * normal + np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])
    spin = (data["angular_momentum"] - np.cross(centre, momentum)) @ np.cross(normal, down)
    spin /= inertia
    window = t >= t[-1] / 4
    acceleration = np.polyfit(t[window], (momentum @ down / mass)[window], 1)[0]
    spin_rate = np.polyfit(t[window], spin[window], 1)[0]
    assert acceleration == pytest.approx(expected, rel=0.01)
    assert spin_rate == pytest.approx(expected / rho, rel=0.01)
    balance = data["total_energy"] + data["dissipated_energy"]
    assert np.abs(balance - balance[0]).max() < 1e-9 * data["external_work"][-1]


def test_rolling_figure_eight_case(comm, shared_tmp):
    """The free figure eight rolling on itself (10 steps of 5 ms).

    Its linear momentum at t = 0 is that of the case's velocity field, ∫ ρA v_h ds of its P1
    interpolant (exact per element: h (v_i + v_j)/2), computed here from the vertices (to
    round-off, 1e-12 relative); no load acts, so it and the angular momentum stay constant, and
    the energy with the start's impact loss (1e-10 relative: the Newton tolerance's order,
    measured 1e-15); the strands touch from the start at one point that does not slip
    (≤ 1e-10 m/s, measured 1e-16)."""
    data = run_case(comm, shared_tmp, "rolling_figure_eight", [("t_end = 0.3", "t_end = 0.05")])
    case = tomllib.loads((CASES / "rolling_figure_eight.toml").read_text())
    vertices = np.array(case["rods"][0]["vertices"])
    half = vertices[0, 2]  # vertex 0 lies h above the crossing
    weight = ((1 - vertices[:, 2] / half) / 2) ** 4
    closed = np.append(weight, weight[0])
    lengths = np.linalg.norm(np.diff(np.vstack([vertices, vertices[:1]]), axis=0), axis=1)
    rho_a = 1000.0 * np.pi * 0.02**2
    along = rho_a * 0.2 / np.sqrt(2) * np.sum(lengths * (closed[:-1] + closed[1:]) / 2)
    assert data["linear_momentum"][0] == pytest.approx([along, along, 0.0], rel=1e-12, abs=1e-15)
    for key in ("linear_momentum", "angular_momentum"):
        change = np.abs(data[key] - data[key][0]).max()
        assert change <= 1e-10 * np.abs(data[key]).max(), key
    energy = data["total_energy"] + np.nan_to_num(data["impact_energy_loss"])
    assert np.abs(energy - energy[0]).max() <= 1e-10 * data["kinetic_energy"][0]
    assert np.all(data["contacts"] == 1)
    assert np.nanmax(data["max_slip"][1:]) <= 1e-10


def test_crossed_strings_potential_against_rolling(comm, shared_tmp):
    """The crossed strings with potential contact (20 ms): the same start as the rolling case
    (kinetic energy of the two strings' own fields, P1 interpolants with the consistent mass,
    to 1e-12), the energy balance E + dissipated = E₀ (1e-8: the demo's tolerance, measured
    5e-15), friction that dissipates, and μ = 10 sticking: the angular momentum about x (string
    b's sideways push against the supports) stays within 0.2 of the frictionless run's distance
    from the rolling run's at t = 20 ms (the demo's factor; measured 0.057)."""
    short = [("t_end = 0.5", "t_end = 0.02")]
    rolling = run_case(comm, shared_tmp, "crossed_strings", short)
    sticky = run_case(comm, shared_tmp, "crossed_strings_potential", short)
    frictionless = [*short, ("rod_friction = {", "# rod_friction = {")]
    sliding = run_case(comm, shared_tmp, "crossed_strings_potential", frictionless, "_0")
    s = np.linspace(-0.5, 0.5, 25)
    rho_a = 1100.0 * np.pi * 0.005**2
    start = consistent_kinetic_energy(rho_a, s, 0.5 * np.cos(np.pi * s))
    start += consistent_kinetic_energy(rho_a, s, 0.3 * np.sin(2 * np.pi * s))
    for data in (sticky, sliding):
        assert data["kinetic_energy"][0] == pytest.approx(start, rel=1e-12)
        balance = data["total_energy"] + dissipated(data)
        assert np.abs(balance - balance[0]).max() <= 1e-8 * balance[0]
        assert np.all(data["rod_contacts"][1:] >= 1)
    assert dissipated(sticky)[-1] > 0
    assert np.all(dissipated(sliding) == 0)
    reference = rolling["angular_momentum"][-1, 0]
    stuck = abs(sticky["angular_momentum"][-1, 0] - reference)
    slid = abs(sliding["angular_momentum"][-1, 0] - reference)
    assert stuck < 0.2 * slid


def dissipated(data):
    """The energy damping and friction took (none written when the case has neither)."""
    return data["dissipated_energy"] if "dissipated_energy" in data else 0 * data["t"]
