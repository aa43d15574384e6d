"""Newton's method for the small dense systems of a body's time step.

A body's step has 6 (rigid), 9 (rigid and rolling) or 12 (affine) unknowns. The bodies give
the Jacobian in closed form: their inertia terms, the contact laws' tangents
(:meth:`~fe_rodcontact.bodies.plane_contact.SurfaceContact.step_stiffness`) and the material's
elasticity tensor, some of their smaller terms to first order in the step's rotation. An
inexact Jacobian only slows the last iterations; the converged step satisfies the residual to
``tolerance`` × its scale, which is what the balance laws of the step need. An iterate where
a power law meets a gap ≤ 0 (:class:`~fe_rodcontact.contact.laws.GapError`) or the body
inverts is pulled back halfway towards the last one, and so is one that makes the residual
grow (up to ten times: the regularised Coulomb law is steep where the slip changes
sign, and a full Newton step can jump across it back and forth).
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.laws import GapError
from fe_rodcontact.errors import ConvergenceError

__all__ = ["solve_step"]

FloatArray = npt.NDArray[np.float64]


def solve_step(
    residual: Callable[[FloatArray], FloatArray],
    jacobian: Callable[[FloatArray], FloatArray],
    guess: FloatArray,
    unknown_scales: FloatArray,
    residual_scales: FloatArray,
    tolerance: float = 1e-14,
    max_iterations: int = 30,
) -> tuple[FloatArray, int]:
    """Solve ``residual(z) = 0`` from ``guess`` by Newton; return z and the iterations.

    The Jacobian is kept (the chord method) while each iteration shrinks the residual at
    least twentyfold, and taken afresh when one does not.

    Converged when every ``|r_i| ≤ tolerance · residual_scales_i``; or when the residual is
    within 1e3 times that and an iteration shrank it by less than 10 % (stalled at the
    round-off of large contact forces in an impact, or of a discrete gradient), or when an
    update is below ``tolerance`` relative to ``max(|z_j|, unknown_scales_j)`` in every entry
    and the residual within 1e3 times that.

    Raises:
        ConvergenceError: No convergence in ``max_iterations``.
        GapError: The guess itself penetrates.
    """
    z = np.array(guess, dtype=float)
    r = residual(z)
    matrix: FloatArray | None = None
    last = np.inf
    for iteration in range(1, max_iterations + 1):
        size = float(np.max(np.abs(r) / residual_scales))
        if size <= tolerance or (size <= 1e3 * tolerance and size > 0.9 * last):
            return z, iteration - 1  # converged, or stalled at round-off just above
        if matrix is None or size > 0.05 * last:
            matrix = jacobian(z)
        last = size
        try:
            dz = np.linalg.solve(matrix, -r)
        except np.linalg.LinAlgError as error:
            raise ConvergenceError(f"body step: singular Jacobian ({error})") from error
        for _ in range(40):
            try:
                r_new = residual(z + dz)
                break
            except (GapError, ConvergenceError):  # a penetrating (or inverted) iterate
                dz = 0.5 * dz
        else:
            raise ConvergenceError("body step: every iterate penetrates; cut the step")
        for _ in range(10):  # backtrack while the residual grows (steep friction laws)
            if float(np.max(np.abs(r_new) / residual_scales)) <= size:
                break
            trial = 0.5 * dz
            try:
                r_trial = residual(z + trial)
            except (GapError, ConvergenceError):
                break
            dz, r_new = trial, r_trial
        z = z + dz
        r = r_new
        small = np.abs(dz) <= tolerance * np.maximum(np.abs(z), unknown_scales)
        if np.all(small) and np.all(np.abs(r) <= 1e3 * tolerance * residual_scales):
            return z, iteration
    raise ConvergenceError(
        f"body step: Newton did not converge in {max_iterations} iterations (residual "
        f"{np.max(np.abs(r) / residual_scales):.3g} of its scale); cut the step"
    )
