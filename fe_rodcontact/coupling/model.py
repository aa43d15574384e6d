"""Potential contact of rods with bodies that move with their own dynamics, in one solve.

:class:`RodBodyPotential` is a contact model whose obstacle is a
:class:`~fe_rodcontact.coupling.obstacle.DynamicObstacle` (a rigid body). The body's step
unknowns z (6 for a rigid body: Δp_o and θ) are appended to the rods' unknowns like the
multipliers of rolling contact: the bordered Newton solve
(:class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton`) solves rods and body together,
rank 0 owning the body's rows, every rank computing the body's numbers redundantly (the same
operations on the same, broadcast values).

**Where the law acts.** The conservative law W(g) per unit length acts at the Gauss points
(``points_per_element`` of them) of every element of the rods' centreline representation
(the scene's: the B-spline or the finite-element interpolation), r(s) = Σ w_k x_k, with the
weight ω = Gauss weight × element length: the contact energy is Σ ω W(g(r)) — a quadrature
of ∫ W ds. No contact point is searched for; the search only reports.

**Cut-off.** With ``cutoff`` m the law is Ŵ(g) = W(min(g, m)) − W(m)
(:class:`~fe_rodcontact.coupling.surfaces.CutLaw`), zero beyond m: a step then takes only
the points whose gap at its start is below 2m (its *active* points: the others have no
force and no energy at either end). After each solve, a point left out whose end gap is
below m joins, and the step is solved again (:meth:`RodBodyPotential.move_points`), so the
cut-off changes the law, not the conservation. Without it (the default) every point takes
part in every step, and far from the body every element adds its coupling to the body's
rows.

**The step.** At each point the force ``a`` of :mod:`~fe_rodcontact.coupling.surfaces` acts on
the body and −a on the rod point (−w_k a on its nodes): rod rows ``f = Σ ω w_k a`` (the
residual's sign), body rows

    c(x, z) = balance(z)/h − Σ ω (a, ȳ × a),

the body's energy–momentum step (:mod:`~fe_rodcontact.bodies.rigid`) with the rods' force and
moment about p_o. The Newton tangent K = ∂f/∂x, G = ∂f/∂z, C = ∂c/∂x, D = ∂c/∂z is exact
(the surfaces' derivatives, :mod:`~fe_rodcontact.coupling.surfaces`). At a converged solve
the kinetic and elastic energy of the rods, the body's kinetic and gravity energy and Σ ω W
are conserved to the Newton tolerance, and linear and angular momentum of rods + body to
round-off and the Newton tolerance.

**Energy account.** The body's work on the rods, the decrease of its kinetic + gravity energy
since the start, is reported as ``obstacle_work``, so that the problem's ``total_energy`` is
that of rods and body together (less the body's energy at the start). ``body_energy``,
``body_linear_momentum_i`` and ``body_angular_momentum_i`` (about the origin) are in the time
series.
"""

from typing import ClassVar

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry.tracking import ContactSet
from fe_rodcontact.contact.laws.normal import (
    AdhesiveLaw,
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.contact.laws.validation import GapError
from fe_rodcontact.contact.model import Binding, ContactModel, EndContacts, StepContext
from fe_rodcontact.coupling.obstacle import DynamicObstacle
from fe_rodcontact.coupling.surfaces import CutLaw
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["RodBodyPotential"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _skews(v: FloatArray) -> FloatArray:
    """[v]× for each row of v (n, 3) → (n, 3, 3)."""
    out = np.zeros((len(v), 3, 3))
    out[:, 0, 1], out[:, 0, 2] = -v[:, 2], v[:, 1]
    out[:, 1, 0], out[:, 1, 2] = v[:, 2], -v[:, 0]
    out[:, 2, 0], out[:, 2, 1] = -v[:, 1], v[:, 0]
    return out


class RodBodyPotential(ContactModel):
    """A conservative law between the rods and a body with its own dynamics (one solve).

    Add it to one :class:`~fe_rodcontact.coupling.obstacle.DynamicObstacle` of a scene.

    Args:
        law: The conservative law per unit length (RepulsiveLaw, AdhesiveLaw,
            LinearPenaltyLaw, SmoothPenaltyLaw).
        points_per_element: Gauss points per element where the law acts.
        cutoff: Optional gap m > 0 where the law is cut off (see the module docs); choose it
            where the law's force is negligible (the force jumps by W'(m) there).

    Raises:
        InputError: For a law of the wrong kind, a bad number of points or cut-off.
    """

    at_points = True
    target_kinds = ("obstacle",)
    velocity_rows: ClassVar[bool] = False
    start_tolerance = float("inf")  # its own check_start looks at every point

    def __init__(self, law: NormalLaw, *, points_per_element: int = 3, cutoff: float | None = None):
        super().__init__()
        if not isinstance(law, RepulsiveLaw | AdhesiveLaw | LinearPenaltyLaw | SmoothPenaltyLaw):
            raise InputError(
                "RodBodyPotential's law must be a conservative law (RepulsiveLaw, AdhesiveLaw, "
                f"LinearPenaltyLaw, SmoothPenaltyLaw), got {type(law).__name__}."
            )
        self._law = law
        self._cutoff = (
            np.inf if cutoff is None else arguments.positive("RodBodyPotential: cutoff", cutoff)
        )
        self._cut = CutLaw(law, self._cutoff)
        self._order = arguments.integer(
            "RodBodyPotential: points_per_element", points_per_element, minimum=1
        )
        self._z = np.zeros(6)
        self._h = 1.0
        self._active: IntArray = np.zeros(0, dtype=np.int64)
        self._start = np.zeros((0, 3))
        self._old = np.zeros((0, 3))
        self._start_energy = 0.0
        self.joined = 0
        """Points that joined a step after a solve (with a cut-off), so far."""

    # -- set-up ------------------------------------------------------------------------------
    def bind(self, binding: Binding) -> None:
        """The body (one dynamic obstacle) and the Gauss points of the rods' elements."""
        super().bind(binding)
        rods = binding.rod.rods
        own = [binding.obstacles[i] for i in binding.own_obstacles]
        message = None
        if len(own) != 1 or not isinstance(own[0], DynamicObstacle):
            names = ", ".join(repr(o.name) for o in own)
            message = (
                f"RodBodyPotential acts on one body (a DynamicObstacle such as "
                f"RigidBodyObstacle), got {names}; add one RodBodyPotential per body."
            )
        raise_collectively(rods.comm, message)
        body = own[0]
        assert isinstance(body, DynamicObstacle)
        self._body = body
        stencils = binding.stencils
        xi, gauss = np.polynomial.legendre.leggauss(self._order)
        xi, gauss = 0.5 * (xi + 1.0), 0.5 * gauss
        rod_index, element, s, weight = [], [], [], []
        for i in range(len(rods.names)):
            s0, s1 = stencils.element_spans(i)
            count = len(s0)
            rod_index.append(np.full(count * self._order, i))
            element.append(np.repeat(np.arange(count), self._order))
            s.append((s0[:, None] + xi[None, :] * (s1 - s0)[:, None]).ravel())
            weight.append((gauss[None, :] * (s1 - s0)[:, None]).ravel())
        points = stencils.material_points(
            np.concatenate(rod_index), np.concatenate(element), np.concatenate(s)
        )
        self._nodes = points.nodes.astype(np.int64)
        self._weights = points.weights
        self._length = np.concatenate(weight)
        self._radius = binding.radii[np.concatenate(rod_index)]
        self._stencils = stencils
        self._start_energy = body.energy()

    def check_scheme(self, scheme: str) -> str | None:
        """Only the energy–momentum step (the forces are its discrete gradient)."""
        if scheme == "energy-momentum":
            return None
        return (
            f"RodBodyPotential cannot run with scheme {scheme!r}: the body's step is the "
            "energy-momentum step; use integrator='energy-momentum'."
        )

    @property
    def num_multipliers(self) -> int:
        """The body's step unknowns."""
        return self._body.unknowns

    @property
    def moves_points(self) -> bool:  # type: ignore[override]
        """The solve's body unknowns are taken in :meth:`move_points` (nothing moves)."""
        return True

    @property
    def active_points(self) -> int:
        """The points of the current step (all of them without a cut-off)."""
        return len(self._active)

    @property
    def points(self) -> int:
        """All points where the law may act."""
        return len(self._length)

    # -- positions -------------------------------------------------------------------------------
    def _positions(
        self, values: FloatArray, block: int, points: IntArray | None = None
    ) -> FloatArray:
        """r(s) = Σ w_k (X_k + u_k) at the points (all, or ``points``), from a nodal array."""
        st = self._stencils
        nodes = self._nodes if points is None else self._nodes[points]
        weights = self._weights if points is None else self._weights[points]
        nodal = st.reference_positions(nodes) + st.gather(nodes, values, block)[..., :3]
        return np.einsum("pk,pki->pi", weights, nodal)

    def _committed(self) -> FloatArray:
        return self._positions(self.binding.rod.displacement.x.array, 3)

    def _activate(self, points: IntArray) -> None:
        """Make ``points`` (sorted indices) the step's active points."""
        self._active = points
        self._old = self._start[points]

    # -- the run ---------------------------------------------------------------------------------
    def check_start(self, contacts: ContactSet) -> None:
        """Every point has a positive gap (power laws are singular at g ≤ 0)."""
        gap = self._gaps(self._committed())
        message = None
        if self._law.singular and len(gap) and gap.min() <= 0:
            message = (
                f"at the start, the rods have gap {gap.min():.6g} <= 0 to body "
                f"{self._body.name!r}; the {type(self._law).__name__} is singular there. "
                "Start the rods clear of the body."
            )
        raise_collectively(self.binding.rod.mesh.comm, message)

    def _gaps(self, points: FloatArray, which: IntArray | None = None) -> FloatArray:
        """Gaps of positions of the points (all, or ``which``) to the body where it is now."""
        phi = self._body.distance(points, 0.0)[0]
        return phi - (self._radius if which is None else self._radius[which])

    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """The points at the step's start and the body's first guess."""
        self._h = context.dt
        self._start = self._committed()
        near = self._gaps(self._start) < 2 * self._cutoff
        self._activate(np.flatnonzero(near))
        self._z = self._body.guess(context.dt)

    def initial_multipliers(self) -> FloatArray:
        """The body's guess of the step (its last accelerations extrapolated)."""
        return self._z.copy()

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Rod forces, the body's rows and the exact tangent at the current iterate."""
        z, h, active = multipliers, self._h, self._active
        new = self._positions(self.binding.rod.state.x.array, 6, active)
        radius = self._radius[active]
        # an iterate through the body (g ≤ 0, a singular law): NaN forces, Newton fails and
        # the step is cut (the same on every rank: the points are everyone's)
        closed = False
        try:
            pair = self._body.pair_forces(self._cut, radius, self._old, new, z)
        except GapError:
            closed = True
            pair = self._body.pair_forces(self._cut, radius, self._old, self._old, 0 * z)
        omega, w = self._length[active], self._weights[active]
        a = omega[:, None] * pair.force  # (n, 3)
        if closed:
            a = np.full_like(a, np.nan)
        da = omega[:, None, None] * pair.d_force_dy  # ∂a/∂y₁ (n, 3, 3)
        dat = omega[:, None, None] * pair.d_force_dtheta
        centre = self._body.position
        mid = 0.5 * (self._old + new) - centre - 0.5 * z[:3]  # ȳ
        moment = np.cross(mid, a)
        # ∂(ȳ × a)/∂y₁ = −½[a]× + [ȳ]× A
        ymid = _skews(mid)
        dm = -0.5 * _skews(a) + ymid @ da
        dmt = ymid @ dat
        n, k = len(active), self._nodes.shape[1]
        trans = 6 * self._nodes[active][:, :, None] + np.arange(3)  # (n, k, 3)
        force_values = w[:, :, None] * a[:, None, :]
        # K = ∂f/∂x: rows (p, j, α), cols (p, i, β): w_j w_i A_αβ
        shape = (n, k, k, 3, 3)
        rows = np.broadcast_to(trans[:, :, None, :, None], shape).ravel()
        cols = np.broadcast_to(trans[:, None, :, None, :], shape).ravel()
        kv = (w[:, :, None, None, None] * w[:, None, :, None, None] * da[:, None, None]).ravel()
        # G = ∂f/∂z: rows (p, j, α), cols β (Δp: −A, θ: ∂a/∂θ)
        gshape = (n, k, 3, 6)
        grows = np.broadcast_to(trans[:, :, :, None], gshape).ravel()
        gcols = np.broadcast_to(np.arange(6), gshape).ravel()
        dz = np.concatenate([-da, dat], axis=2)  # (n, 3, 6)
        gv = (w[:, :, None, None] * dz[:, None]).ravel()
        # body rows c = balance/h − Σ (a, ȳ × a); C = ∂c/∂x, D = ∂c/∂z
        cshape = (n, k, 6, 3)
        crows = np.broadcast_to(np.arange(6)[:, None], cshape).ravel()
        ccols = np.broadcast_to(trans[:, :, None, :], cshape).ravel()
        dc = -np.concatenate([da, dm], axis=1)  # (n, 6, 3)
        cv = (w[:, :, None, None] * dc[:, None]).ravel()
        d_rows = np.concatenate([dz, np.concatenate([-dm, dmt], axis=2)], axis=1)  # ∂(a, m)/∂z
        jacobian = self._body.balance_jacobian(z, h) / h - d_rows.sum(axis=0)
        rank0 = self.binding.rod.mesh.comm.rank == 0
        constraint = self._body.balance(z, h) / h - np.concatenate([a.sum(0), moment.sum(0)])
        drow, dcol = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0)
        return PointLinearisation(
            force_rows=trans.ravel().astype(np.int64),
            force_values=force_values.ravel(),
            constraint=constraint if rank0 else empty_f,
            stiffness=(rows.astype(np.int64), cols.astype(np.int64), kv),
            coupling=(grows.astype(np.int64), gcols.astype(np.int64), gv),
            constraint_jacobian=(crows.astype(np.int64), ccols.astype(np.int64), cv),
            multiplier_jacobian=(drow.ravel(), dcol.ravel(), jacobian.ravel())
            if rank0
            else (empty_i, empty_i, empty_f),
        )

    def move_points(self, multipliers: FloatArray, end_contacts: EndContacts) -> bool:
        """Keep the solve's body step; with a cut-off, add the points it brought within reach.

        Returns:
            Whether points joined (the step is then solved again).
        """
        self._z = np.asarray(multipliers, dtype=float).copy()
        if np.isinf(self._cutoff):
            return False
        rest = np.setdiff1d(np.arange(len(self._length)), self._active)
        if len(rest) == 0:
            return False
        end = self._positions(self.binding.rod.state.x.array, 6, rest)
        # the body's end placement: a point's gap after the body moved by the solve's step
        try:
            pair = self._body.pair_forces(
                self._cut, self._radius[rest], self._start[rest], end, self._z
            )
            joining = rest[pair.gap_new < self._cutoff]
        except GapError:  # a point left out ended inside the body: all join (Newton fails)
            joining = rest
        if len(joining) == 0:
            return False
        self._activate(np.union1d(self._active, joining))
        self.joined += len(joining)
        return True

    def commit(self, t: float) -> None:
        """The body moves by the accepted step."""
        self._body.finish(self._z, self._h)

    # -- output ----------------------------------------------------------------------------------
    def contact_energy(self) -> float:
        """Σ ω W(g) at the committed configuration (NaN through the body, a singular law).

        A configuration with g ≤ 0 no step reaches; it shows here only for a start not yet
        checked (:meth:`check_start` refuses it).
        """
        gap = self._gaps(self._committed())
        if self._law.singular and np.any(gap <= 0):
            return float("nan")
        return float(self._length @ self._cut.energy(gap))

    def obstacle_work(self) -> float:
        """The body's work on the rods: the decrease of its kinetic + gravity energy so far.

        With it the problem's total energy is that of rods and body together.
        """
        return self._start_energy - self._body.energy()

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """Contact energy, the body's kinetic energy and momenta (about the origin)."""
        linear, angular = self._body.momenta()
        out = {
            "contact_energy": self.contact_energy(),
            "body_energy": self._body.energy(),
        }
        for i in range(3):
            out[f"body_linear_momentum_{i}"] = float(linear[i])
            out[f"body_angular_momentum_{i}"] = float(angular[i])
        return out

    # -- state -----------------------------------------------------------------------------------
    def snapshot(self) -> object:
        """The body's state."""
        return self._body.snapshot()

    def restore(self, saved: object) -> None:
        """Back to the body's state of :meth:`snapshot`."""
        assert isinstance(saved, tuple)
        self._body.restore(saved)

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The body's state arrays and its energy at the start."""
        out: dict[str, npt.NDArray[np.generic]] = {
            f"body_state_{i}": np.asarray(a) for i, a in enumerate(self._body.snapshot())
        }
        out["body_start_energy"] = np.array([self._start_energy])
        return out

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from the body's state of a checkpoint."""
        count = sum(1 for key in arrays if key.startswith("body_state_"))
        self._body.restore(tuple(np.asarray(arrays[f"body_state_{i}"]) for i in range(count)))
        self._start_energy = float(arrays["body_start_energy"][0])
