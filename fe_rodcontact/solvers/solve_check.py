"""Checks after every linear solve, so a garbage solution of a singular system is never accepted.

A direct solver can return from a singular or nearly singular matrix without an error: MUMPS
on several ranks may replace a tiny pivot and hand back a solution of size 1e23. The check
is a KSP post-solve hook: it computes the true residual ‖b − A x‖ and, when it is not finite,
larger than ‖b‖/2 (no progress at all), or larger than both ``rtol``·‖b‖ and the round-off
of a backward-stable solve (ill-conditioned but honest systems, e.g. a late Newton step of a
stiff steel rod, reach only the latter), marks the KSP as diverged; SNES then reports
``DIVERGED_LINEAR_SOLVE`` and the caller rejects the step. The factorisation status
(the PC's failed reason, a zero pivot) is read at the same time and named in the message.
"""

import math

from mpi4py import MPI
from petsc4py import PETSc

__all__ = ["ROUND_OFF", "LinearSolveCheck"]

ROUND_OFF = 1e3 * 2.2e-16
"""A direct solve is backward stable: ‖b − A x‖∞ ≲ ROUND_OFF·‖A‖∞‖x‖∞ whatever the condition."""


def _norm_inf(A: PETSc.Mat) -> float:
    """‖A‖∞, also for a MatNest (an upper bound from its blocks: max over rows of Σ ‖Aᵢⱼ‖∞)."""
    if A.getType() != PETSc.Mat.Type.NEST:
        return float(A.norm(PETSc.NormType.NORM_INFINITY))
    rows, columns = A.getNestSize()
    bound = 0.0
    for i in range(rows):
        blocks = (A.getNestSubMatrix(i, j) for j in range(columns))
        bound = max(bound, sum(_norm_inf(b) for b in blocks if b.handle))
    return bound


class LinearSolveCheck:
    """A KSP post-solve hook that rejects solutions whose true residual is not small.

    Args:
        rtol: Largest accepted ‖b − A x‖ / ‖b‖. Over the statics and dynamics tests the
            largest accepted value was 8e-8 (late Newton iterations, where b is round-off);
            a singular system leaves an O(1) residual (40 for a free rod on 2 ranks). A
            looser solve would still make Newton converge (inexact Newton), so 1e-4 rejects
            only what cannot be a solution.

    Attributes:
        failure: Why the last rejected solve was rejected (``None`` after a good one).
        worst: The largest relative residual of an accepted solve so far.
    """

    def __init__(self, rtol: float = 1e-4):
        self.rtol = rtol
        self.failure: str | None = None
        self.worst = 0.0

    def attach(self, ksp: PETSc.KSP) -> None:
        """Install the hook on ``ksp``."""
        ksp.setPostSolve(self)

    def __call__(self, ksp: PETSc.KSP, b: PETSc.Vec, x: PETSc.Vec) -> None:
        """Post-solve hook: r = b − A x (collective), then accept or mark the KSP as diverged."""
        self.failure = None
        A, _ = ksp.getOperators()
        # A work vector per call, destroyed here: a PETSc object kept on this hook would be
        # freed by Python's garbage collector at different times on different ranks, and its
        # (collective) destruction would then meet another rank's collective call.
        r = b.duplicate()
        A.mult(x, r)
        r.aypx(-1.0, b)
        inf = PETSc.NormType.NORM_INFINITY
        residual, rhs, size = r.norm(inf), b.norm(inf), x.norm(inf)
        r.destroy()
        round_off = ROUND_OFF * _norm_inf(A) * size  # a backward-stable solve's own residual
        pc_failed = ksp.comm.tompi4py().allreduce(int(ksp.getPC().getFailedReason()), op=MPI.MAX)
        if pc_failed != 0:
            self.failure = (
                f"the factorisation failed (PETSc PC failed reason {pc_failed}: "
                "a zero pivot, the matrix is singular)"
            )
        elif not (math.isfinite(residual) and math.isfinite(size)):
            self.failure = "the linear solve returned inf/NaN (a singular matrix)"
        elif residual > 0.5 * rhs or residual > max(self.rtol * rhs, round_off):
            self.failure = (
                f"the linear solve left a relative residual {residual / max(rhs, 1e-300):.2e} "
                f"> {self.rtol:g} (a singular or nearly singular matrix)"
            )
        else:
            self.worst = max(self.worst, residual / rhs if rhs > 0 else 0.0)
            return
        ksp.setConvergedReason(PETSc.KSP.ConvergedReason.DIVERGED_BREAKDOWN)
