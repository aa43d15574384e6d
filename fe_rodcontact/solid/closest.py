"""Distance from points to segments: the closest point, the gradient and the Hessian.

The distance r(x, a, b) from a point x to the segment [a, b] is r = |x − c| with the closest
point c = a + t (b − a), t = clamp((x − a)·e/|e|², 0, 1), e = b − a. Where the distance is
differentiable (r > 0), its gradient in (x, a, b) follows from the envelope theorem (the
derivative of the minimum over t is the partial derivative at the minimiser):

    ∂r/∂x = n,   ∂r/∂a = −(1 − t) n,   ∂r/∂b = −t n,   n = (x − c)/r.

The Hessian (9 × 9 per point) is the central difference of this exact gradient with the step
h = 10⁻⁶ ℓ (ℓ = |e| + r): its error is O(h²) from truncation and O(ε/h) from round-off, about
10⁻¹⁰ relative, below what Newton's quadratic phase reaches. The Hessian jumps across the
boundaries between the regions t = 0, 0 < t < 1, t = 1 (the distance is C¹ there, not C²),
where any tangent is one-sided.
"""

import numpy as np
import numpy.typing as npt

__all__ = ["SegmentDistance", "segment_distance", "segment_distance_hessian"]

FloatArray = npt.NDArray[np.float64]

_RELATIVE_STEP = 1e-6


class SegmentDistance:
    """Closest points on segments, for n points at once.

    Attributes:
        distance: (n,) r.
        parameter: (n,) t in [0, 1].
        normal: (n, 3) (x − c)/r, from the segment to the point.
        gradient: (n, 9) ∂r/∂(x, a, b).
    """

    def __init__(self, distance: FloatArray, parameter: FloatArray, normal: FloatArray):
        self.distance = distance
        self.parameter = parameter
        self.normal = normal
        t = parameter[:, None]
        self.gradient = np.concatenate([normal, -(1.0 - t) * normal, -t * normal], axis=1)


def segment_distance(x: FloatArray, a: FloatArray, b: FloatArray) -> SegmentDistance:
    """Distance, closest-point parameter, normal and gradient from points x to segments [a, b].

    Args:
        x: (n, 3) points.
        a: (n, 3) first ends.
        b: (n, 3) second ends.
    """
    e = b - a
    length2 = np.einsum("ij,ij->i", e, e)
    t = np.einsum("ij,ij->i", x - a, e) / np.where(length2 > 0, length2, 1.0)
    t = np.clip(t, 0.0, 1.0)
    d = x - a - t[:, None] * e
    r = np.linalg.norm(d, axis=1)
    n = d / np.where(r > 0, r, 1.0)[:, None]
    return SegmentDistance(r, t, n)


def segment_distance_hessian(x: FloatArray, a: FloatArray, b: FloatArray) -> FloatArray:
    """The Hessian of r in (x, a, b), (n, 9, 9), by central differences of the exact gradient.

    Args:
        x: (n, 3) points.
        a: (n, 3) first ends.
        b: (n, 3) second ends.
    """
    z = np.concatenate([x, a, b], axis=1)
    scale = np.linalg.norm(b - a, axis=1) + segment_distance(x, a, b).distance
    h = _RELATIVE_STEP * scale
    hessian = np.empty((len(z), 9, 9))
    for j in range(9):
        plus, minus = z.copy(), z.copy()
        plus[:, j] += h
        minus[:, j] -= h
        g_plus = segment_distance(plus[:, :3], plus[:, 3:6], plus[:, 6:]).gradient
        g_minus = segment_distance(minus[:, :3], minus[:, 3:6], minus[:, 6:]).gradient
        hessian[:, :, j] = (g_plus - g_minus) / (2.0 * h)[:, None]
    return 0.5 * (hessian + np.swapaxes(hessian, 1, 2))
