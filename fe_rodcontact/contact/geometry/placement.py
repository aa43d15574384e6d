"""Where a step's rolling contact points lie on the rods, and how they move between solves.

Used by :class:`~fe_rodcontact.contact.rolling.model.RollingContact`. A step starts from a guess
(:meth:`PointPlacement.guess`: the points at tₙ moved on by the last step's motion). After each
solve, :meth:`~fe_rodcontact.contact.rolling.model.RollingContact.move_points` puts them at the
equal-excess points (:meth:`PointPlacement.equal_excess_points`): on the segment between the
closest points at tₙ and at tₙ₊₁, where the distance exceeds its least value by as much at tₙ as
at tₙ₊₁, so that the step's exact |Dₙ₊₁| = |Dₙ| carries over to the true gap.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, MODE_LINE, RawContacts
from fe_rodcontact.contact.geometry.matching import wrapped
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["PointPlacement"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
NodalPositions = tuple[IntArray, FloatArray]
"""Sorted global node indices and their positions."""


class PointPlacement:
    """Places the contact points of a step on the rods (the same on every rank).

    Args:
        rod: The rods: their lengths and closedness, the displacement at tₙ and the state
            (u, τ) at the end of the step.
        stencils: The centreline representation of the contact points.
        obstacles: The obstacles (``rod_b`` of a contact with an obstacle indexes them).
        element_lengths: The largest element length of each rod.
    """

    def __init__(
        self,
        rod: CosseratRod,
        stencils: CentrelineStencils,
        obstacles: tuple[Obstacle, ...],
        element_lengths: FloatArray,
    ):
        self._rod = rod
        self._stencils = stencils
        self._obstacles = obstacles
        self._h = element_lengths

    def shifts(self, contacts: RawContacts, s_a: FloatArray, s_b: FloatArray) -> FloatArray:
        """How far each of ``contacts``' points moves to (s_a, s_b), relative to rod a's element.

        The larger of the moves on the two rods; along a closed rod, the shorter way round.
        """
        lengths, closed = np.asarray(self._rod.rods.lengths), np.asarray(self._rod.rods.closed)
        rods_b = contacts.partner_rod
        return (
            np.maximum(
                np.abs(wrapped(s_a - contacts.s_a, contacts.rod_a, lengths, closed)),
                np.abs(wrapped(s_b - contacts.s_b, rods_b, lengths, closed)),
            )
            / self._h[contacts.rod_a]
        )

    def moved(self, contacts: RawContacts, s_a: FloatArray, s_b: FloatArray) -> RawContacts:
        """``contacts`` moved to material coordinates (s_a, s_b), elements located again."""
        st = self._stencils
        obstacle = contacts.kind == KIND_OBSTACLE
        element_a, s_a = st.locate(contacts.rod_a, s_a)
        element_b, s_b_wrapped = st.locate(np.where(obstacle, 0, contacts.rod_b), s_b)
        fields = {f: getattr(contacts, f) for f in RawContacts.fields()}
        fields.update(
            s_a=s_a,
            s_b=np.where(obstacle, contacts.s_b, s_b_wrapped),
            element_a=element_a,
            element_b=np.where(obstacle, contacts.element_b, element_b),
        )
        return RawContacts(**fields)

    def guess(
        self, start: RawContacts, ids: IntArray, previous: dict[int, tuple[float, float]]
    ) -> RawContacts:
        """The step's first contact points: σₙ moved on by the last step's σ − σₙ₋₁.

        The settled points of a step lie about half way between its two closest points, so
        σₙ + (σₙ − σ_prev) is within O(Δt²) of this step's: one or two solves fewer per step.

        Args:
            start: The contacts at tₙ (their closest points σₙ).
            ids: Their identities.
            previous: The last accepted step's points (s_a, s_b) by identity.
        """
        shift_a, shift_b = np.zeros(len(ids)), np.zeros(len(ids))
        for j, i in enumerate(ids):
            last = previous.get(int(i))
            if last is None or start.mode[j] == MODE_LINE:
                continue
            shift_a[j] = start.s_a[j] - last[0]
            shift_b[j] = start.s_b[j] - last[1]
        h_a, h_b = self._h[start.rod_a], self._h[start.partner_rod]
        far = (np.abs(shift_a) > h_a) | (np.abs(shift_b) > h_b)  # a wrap or a jump: no guess
        shift_a[far], shift_b[far] = 0.0, 0.0
        if not np.any(shift_a) and not np.any(shift_b):
            return start
        obstacle = start.kind == KIND_OBSTACLE
        return self.moved(
            start, start.s_a + shift_a, np.where(obstacle, start.s_b, start.s_b + shift_b)
        )

    def equal_excess_points(
        self,
        start: RawContacts,
        end_a: FloatArray,
        end_b: FloatArray,
        t: float,
        dt: float,
        fixed: BoolArray | None = None,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """σ on [σₙ, σₙ₊₁] where the distance exceeds its minimum equally at tₙ and tₙ₊₁.

        Args:
            start: The contacts at tₙ (their closest points σₙ).
            end_a: The same contacts' closest points on rod a at tₙ₊₁ (end configuration).
            end_b: Their closest points on rod b (ignored for obstacles).
            t: tₙ.
            dt: The step.
            fixed: Contacts whose points stay where they are.

        Returns:
            The points' material coordinates on rod a and on rod b, and the excess e of each:
            the distance at σ less the least distance, the same at tₙ and tₙ₊₁ (0 for fixed
            points).
        """
        sigma_a, sigma_b = start.s_a.copy(), start.s_b.copy()
        excess = np.zeros(len(start))
        point = np.ones(len(start), dtype=bool) if fixed is None else ~fixed
        if not np.any(point):
            return sigma_a, sigma_b, excess
        rows = np.flatnonzero(point)
        c = start.take(rows)
        lengths = np.array(self._rod.rods.lengths)
        closed = np.array(self._rod.rods.closed)
        obstacle = c.kind == KIND_OBSTACLE
        rods_b = np.where(obstacle, 0, c.rod_b)
        da = wrapped(end_a[rows] - c.s_a, c.rod_a, lengths, closed)
        db = np.where(obstacle, 0.0, wrapped(end_b[rows] - c.s_b, rods_b, lengths, closed))
        mid_a, mid_b = c.s_a + 0.5 * da, c.s_b + 0.5 * db
        # Positions of every node the search can reach: the stencils at the points of every
        # element passed over, each taken on both sides of a node (one call per rod side).
        h_a = self._h[c.rod_a]
        h_b = self._h[rods_b]
        spans = int(np.ceil(max(np.max(np.abs(da) / h_a), np.max(np.abs(db) / h_b))))
        fractions = np.linspace(-0.5, 0.5, 2 * spans + 3)[:, None, None]
        nudges = np.array([-1e-6, 0.0, 1e-6])[None, :, None]
        wanted = []
        for rods, mid, delta, h in ((c.rod_a, mid_a, da, h_a), (rods_b, mid_b, db, h_b)):
            s = mid + fractions * delta + nudges * h
            tiled = np.broadcast_to(rods, s.shape).ravel()
            element, s = self._stencils.locate(tiled, s.ravel())
            wanted.append(self._stencils.material_points(tiled, element, s).nodes.ravel())
        nodes = np.concatenate(wanted)
        start_x = self._gather_positions(nodes, self._rod.displacement.x.array, 3)
        end_x = self._gather_positions(nodes, self._rod.state.x.array, 6)
        t0, t1 = t, t + dt
        base0 = self._distances(c, c.s_a, c.s_b, [(start_x, t0)])[0][0]
        base1 = self._distances(c, end_a[rows], end_b[rows], [(end_x, t1)])[0][0]
        lo, hi = np.full(len(c), -0.5), np.full(len(c), 0.5)
        theta = np.zeros(len(c))
        scale: FloatArray = np.maximum(np.abs(base0), 1e-300)
        span = np.maximum(np.abs(da) / h_a, np.abs(db) / h_b)  # elements per unit of θ
        settled = None  # the excess at θ once the root is found
        for _ in range(60):
            sa, sb = mid_a + theta * da, mid_b + theta * db
            (d0, a0, b0), (d1, a1, b1) = self._distances(c, sa, sb, [(start_x, t0), (end_x, t1)])
            f = (d0 - base0) - (d1 - base1)
            slope = (a0 - a1) * da + (b0 - b1) * db
            # Done at round-off of f (1e-15·|D|), or when Newton's correction moves σ by less
            # than 1e-12 of an element (f, the gap change the point leaves, is then below the
            # round-off of the step's solve: 3e-13 R at most on rods crossing at 0.8 m/s).
            # Without the second test, contacts whose f stays at its round-off (2e-17 with
            # |D| = 0.02) were bisected down to a bracket of 1e-14: 11–13 rounds instead of
            # 2 at 100 contacts.
            correction = np.abs(f) * span / np.maximum(slope, 1e-300)
            done = (np.abs(f) <= 1e-15 * scale) | ((slope > 0) & (correction <= 1e-12))
            if np.all(done | (hi - lo < 1e-14)):
                settled = d0 - base0
                break
            lo = np.where(f < 0, theta, lo)
            hi = np.where(f >= 0, theta, hi)
            newton = theta - f / np.where(slope > 0, slope, np.inf)
            inside = (slope > 0) & (newton > lo) & (newton < hi)
            theta = np.where(done, theta, np.where(inside, newton, 0.5 * (lo + hi)))
        sigma_a[point] = mid_a + theta * da
        sigma_b[point] = mid_b + theta * db
        if settled is None:
            placed = self._distances(c, sigma_a[point], sigma_b[point], [(start_x, t0)])[0][0]
            settled = placed - base0
        excess[point] = settled
        return sigma_a, sigma_b, excess

    @staticmethod
    def end_points(
        start: RawContacts, end_a: FloatArray, end_b: FloatArray, fixed: BoolArray
    ) -> tuple[FloatArray, FloatArray]:
        """σₙ₊₁: the end configuration's closest points (rows at tₙ₊₁).

        Args:
            start: The contacts at tₙ.
            end_a: The same contacts' closest points on rod a at tₙ₊₁.
            end_b: Their closest points on rod b (ignored for obstacles).
            fixed: Contacts whose points stay where they are.
        """
        point = ~fixed
        obstacle = start.kind == KIND_OBSTACLE
        return (
            np.where(point, end_a, start.s_a),
            np.where(point & ~obstacle, end_b, start.s_b),
        )

    def _distances(
        self,
        contacts: RawContacts,
        s_a: FloatArray,
        s_b: FloatArray,
        configurations: list[tuple[NodalPositions, float]],
    ) -> list[tuple[FloatArray, FloatArray, FloatArray]]:
        """Distance measure (|D|, or φ for obstacles) at (s_a, s_b) and its s-derivatives.

        Args:
            contacts: The contacts (their rods and kinds).
            s_a: Material coordinates on rod a.
            s_b: Material coordinates on rod b (ignored for obstacles).
            configurations: (nodal positions gathered by the caller, time) of each
                configuration to measure in (the time moves obstacles); the points' stencils
                are built once for all of them.

        Returns:
            (distance, ∂/∂s_a, ∂/∂s_b) in each configuration.
        """
        st = self._stencils
        obstacle = contacts.kind == KIND_OBSTACLE
        element_a, s_a = st.locate(contacts.rod_a, s_a)
        a = st.material_points(contacts.rod_a, element_a, s_a)
        element_b, s_b = st.locate(np.where(obstacle, 0, contacts.rod_b), s_b)
        b = st.material_points(np.where(obstacle, 0, contacts.rod_b), element_b, s_b)
        out = []
        for positions, t in configurations:
            xa = self._positions(a.nodes, positions)
            xb = self._positions(b.nodes, positions)
            ra = np.einsum("nk,nkc->nc", a.weights, xa)
            ta = np.einsum("nk,nkc->nc", a.derivatives, xa)
            rb = np.einsum("nk,nkc->nc", b.weights, xb)
            tb = np.einsum("nk,nkc->nc", b.derivatives, xb)
            distance = np.linalg.norm(rb - ra, axis=1)
            n = (rb - ra) / np.maximum(distance, 1e-300)[:, None]
            d_a = -np.einsum("nc,nc->n", n, ta)
            d_b = np.einsum("nc,nc->n", n, tb)
            for i in np.flatnonzero(obstacle):
                obstacle_at = self._obstacles[int(contacts.rod_b[i])]
                phi, grad, _ = obstacle_at.distance(ra[i][None, :], t)
                distance[i], d_a[i], d_b[i] = float(phi[0]), float(grad[0] @ ta[i]), 0.0
            out.append((distance, d_a, d_b))
        return out

    @staticmethod
    def _positions(nodes: IntArray, positions: NodalPositions) -> FloatArray:
        """The positions of ``nodes`` (any shape) among those gathered in ``positions``."""
        index, values = positions
        where = np.minimum(np.searchsorted(index, nodes), len(index) - 1)
        if not np.array_equal(index[where], nodes):
            raise RuntimeError(
                f"a contact point moved past the nodes gathered for it: {nodes} {index}"
            )
        return values[where]

    def _gather_positions(
        self, nodes: IntArray, displacement: FloatArray, block: int
    ) -> NodalPositions:
        """Positions x₀ + u of the distinct ``nodes`` (``block`` values per node, u first)."""
        unique = np.unique(nodes)
        values = self._stencils.gather(unique, displacement, block)[:, :3]
        return unique, values + self._stencils.reference_positions(unique)
