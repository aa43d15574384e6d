"""The fraction of random rolling crossings in the friction cone (sample_rolling_fraction.py).

Sources and tolerances:

- Closed form: two free solid cylinders (rods of length L, mass m = ρA L, spin inertia
  J = ρJ L, transverse inertia I⊥ = ρI L + m L²/12) crossing at right angles at their centres,
  pressed by the opposite dead loads ∓F and at rest. Their relative acceleration at the contact
  point is 2F/m, and the contact's compliance is W = (1/m)(2 I) + (R²/J + R²/I⊥)(I − n nᵀ):
  each rod yields tangentially by spinning about its own axis, not normally. No slip then needs
  λ = W⁻¹(2F/m): λ_n = F_n and λ_t = F_t / (1 + m(R²/J + R²/I⊥)/2) = F_t/2.003743. The
  rolling model's force (mean of 3 steps of 1 ms; stiff rods: their elastic modes put a
  step-to-step content of ±6 % on the normal force here) matches it to 3e-2 in the normal
  force (measured 1.4e-2) and 2e-2 in the tangential one (measured 4e-3); a contact equally
  compliant in all directions would give λ_t = F_t, twice as much.
- The rolling model's force for a random crossing with velocities and press equals the
  rigid-cylinder closed form to 5e-2 (measured 5.8e-3 here; over the 1500 crossings of the
  full runs, 500 per regime: median 5e-3 to 8e-3, max 6.6e-2).
- Statistics: the closed form's fractions of 300 crossings per regime (seed 99, not the full
  runs' seeds) agree with the full runs' fractions (10⁴ crossings) within 4 combined binomial
  standard errors (measured ≤ 1.6), lie in [0, 1] and do not decrease with k. For the regimes
  with velocities they exclude both 1 − 1/√(1+k²) and 0.5k/√(k²+1) at k = 1 and 2 by more than
  3 standard errors (measured ≥ 8.8); the full runs lie ≥ 8 standard errors from both there.
"""

import sys

import numpy as np
import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

from sample_rolling_fraction import (
    KS,
    Crossing,
    cone_fractions,
    fe_contact_force,
    rigid_contact_force,
    sample_crossing,
)

# Full runs of benchmarks/sample_rolling_fraction.py --rigid-only (closed form; seeds 11, 12, 13):
# the number of pressing contacts and their fractions in the cone for k = 0.2, 0.5, 1, 2.
REFERENCE = {
    "inertia": (5241, (0.1500, 0.4264, 0.6548, 0.8042)),
    "mixed": (7428, (0.1117, 0.3765, 0.6274, 0.8121)),
    "press": (9955, (0.0493, 0.2180, 0.4569, 0.6939)),
}


def test_pressed_perpendicular_crossing_halves_the_tangential_force(comm):
    load = np.array([0.3, -0.2, -0.5])  # on rod b (towards rod a), −load on rod a
    crossing = Crossing(np.pi / 2, (0.0, 0.0), np.zeros((2, 3)), np.zeros((2, 3)), [-load, load])
    shrink = 2.003743  # 1 + m(R²/J + R²/I⊥)/2 with m = 2, J = R², I⊥ = R²/2 + 2/3, R = 0.05
    expected = np.array([-load[0] / shrink, -load[1] / shrink, -load[2]])  # the force on rod b
    assert rigid_contact_force(crossing) == pytest.approx(expected, rel=1e-6)
    forces = fe_contact_force(comm, crossing)
    normal, tangential = np.mean(forces[:, :2], axis=0)
    assert normal == pytest.approx(-load[2], rel=3e-2)
    assert tangential == pytest.approx(np.hypot(*load[:2]) / shrink, rel=2e-2)


def test_rolling_model_force_is_the_rigid_closed_form(comm):
    crossing = sample_crossing(np.random.default_rng(7), "mixed")  # velocities and press
    fe = np.mean(fe_contact_force(comm, crossing)[:, 2:], axis=0)  # records hold −μ
    mu = rigid_contact_force(crossing)
    assert np.linalg.norm(fe + mu) <= 5e-2 * np.linalg.norm(mu)


@pytest.mark.parametrize("regime", sorted(REFERENCE))
def test_fractions_reproduce_the_full_run(regime):
    rng = np.random.default_rng(99)
    forces = np.array([rigid_contact_force(sample_crossing(rng, regime)) for _ in range(300)])
    p, se, n = cone_fractions(forces[:, 2], np.hypot(forces[:, 0], forces[:, 1]))
    assert n > 100
    assert np.all((p >= 0) & (p <= 1)) and np.all(np.diff(p) >= 0)
    count, reference = REFERENCE[regime]
    ref = np.asarray(reference)
    combined = np.sqrt(se**2 + ref * (1 - ref) / count)
    assert np.all(np.abs(p - ref) <= 4 * combined)
    if regime != "press":  # k = 1 and 2: the full run lies ≥ 8 standard errors from both
        ks = np.asarray(KS)
        far = ks >= 1
        for formula in (1 - 1 / np.sqrt(1 + ks**2), 0.5 * ks / np.sqrt(ks**2 + 1)):
            assert np.all(np.abs(p - formula)[far] > 3 * se[far])
