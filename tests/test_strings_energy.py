"""Exact energy conservation of the midpoint scheme with a moving rolling contact.

Reference: the discrete energy identity E^{n+1} − E^n = −Δt λ (b1·W − F b2·Z) = 0 (see
fe_rodcontact/strings/model.py), so the energy changes only by solver round-off. The
round-off drift is systematic: over one 10^4-step run (fixed ends) the largest relative change
after n steps is 8.1e-14, 1.6e-13, 3.2e-13, 8.1e-13, 1.6e-12 for n = 500, 10^3, 2·10^3,
5·10^3, 10^4, i.e. 1.6e-16 per step, linear in n. So what a run of n steps can detect is a
per-step error above tolerance/n; the tolerance is 1e-13 relative per step, 1e-13·n in all
(1e-9 over 10^4 steps before). Serially n = 2·10^3 (t = 40; the contact points cross element
boundaries 23 and 15 times with fixed ends, 41 and 26 with periodic ends, sweeping 3.5–3.7
and 2.1–2.2 elements): tolerance 2e-10, measured 3.2e-13 with either ends; 10^4 steps, 5× the
CPU, gave 1.6e-12 and 1.4e-12 against 1e-9, the same margin. On 2 ranks n = 500 (each
parallel step costs ≥ 5× more on the 2-core CI machine; the contact points sweep the range of
10^3 steps, 0.85 and 0.51, to within 0.02, crossing element boundaries 6 and 3 times (fixed)
and 9 and 6 times (periodic); with fixed ends s2 starts 0.14 from the ranks' boundary at
x = π): tolerance 5e-11, measured 8.0e-14 (fixed) and 7.6e-14 (periodic); 10^3 steps gave
1.6e-13 against 1e-9 before. Figures: docs/strings.md.
"""

from dataclasses import replace

import numpy as np
import pytest

from fe_rodcontact.strings import StringsConfig, run_strings


@pytest.mark.parametrize("bc", ["fixed", "periodic"])
def test_energy_conserved_over_thousands_of_steps(comm, bc):
    steps = 2_000 if comm.size == 1 else 500
    config = StringsConfig(
        bc=bc,
        elements=24,
        degree=1,
        kernel="smooth",
        dt=0.02,
        t_end=0.02 * steps,
        output_interval=1.0,
        s1=2.0,
        s2=3.0,
        F=0.8,
        G1=1.0,
        G2=0.6,
        v0="0.3*sin(4*pi*x/L)",
        snapshots=False,
    )
    result = run_strings(config, comm)
    drift = np.max(np.abs(result.energy - result.energy[0])) / result.energy[0]
    assert result.t[-1] == pytest.approx(0.02 * steps)
    assert np.ptp(result.s1) > 0.1  # the contact point really moves
    assert drift <= 1e-13 * steps, drift
    if comm.rank == 0:
        print(f"\n{bc}: {steps} steps, relative energy change {drift:.2e}")


def test_energy_conserved_with_p2_exact_and_schur(comm):
    """The identity holds for any weights b and either solver (P2, exact basis, Schur).

    250 steps (t = 5): the contact points cross element boundaries 3 and 4 times, s2 from
    4.0 down to 2.85 across the ranks' boundary at x = π; steps 250 to 500 would add three
    crossings each and 0.02 and 0.04 to their ranges. Largest relative change over every
    step: 3.8e-15 serially, 3.0e-15 on 2 ranks (over 500 steps 4.8e-15 and 5.7e-15; 500
    steps at 1e-11 before). Tolerance 5e-12, the same 2e-14 per step.
    """
    config = StringsConfig(
        bc="fixed", elements=16, degree=2, kernel="exact", solver="schur", dt=0.02,
        t_end=5.0, output_interval=0.5, s1=1.0, s2=4.0, F=1.3, G1=0.7, G2=1.1,
        snapshots=False,
    )  # fmt: skip
    result = run_strings(replace(config), comm)
    drift = np.max(np.abs(result.energy - result.energy[0])) / result.energy[0]
    assert drift <= 5e-12, drift
