"""Potential contact between rods and of a rod with itself, at the closest points.

At a contact found by the search (:class:`~fe_rodcontact.contact.ContactSearch`) between rod a
at s_a and rod b at s_b, with the weights w_k of the two points in the search's centreline
representation (:mod:`~fe_rodcontact.contact.geometry.stencils`), D = x̃_b − x̃_a = Σ sₖwₖ xₖ (sₖ =
−1 on
the nodes of a, +1 on those of b) is linear in the nodal positions, and the gap is
g = |D| − R_a − R_b. A conservative law of :mod:`~fe_rodcontact.contact.laws` stores the energy
W(g) at a point contact, and weight × W(g) at a line-contact Gauss point (the law is then a
density per unit length; ``line_law`` may give another one). The force acts along D at the
contact point c = x̃_a + R_a/(R_a+R_b) D.

**Cut-off.** The search only returns contacts with g ≤ ``margin``; the energy of a contact is
therefore taken as Ŵ(g) = W(min(g, m)) − W(m) with m the margin, continuous when a contact
enters or leaves the search (the force jumps by W'(m) there: choose a margin where the law is
negligible; the linear penalty law activated at g ≤ m has Ŵ = W).

**Energy–momentum step.** With the contact points σ fixed during a solve, Dₙ and Dₙ₊₁ are the
two ends of the step, and the force on b is the discrete gradient

    F = −Q n̂,   Q = (Ŵ(g̃ₙ₊₁) − Ŵ(g̃ₙ))/(g̃ₙ₊₁ − g̃ₙ)  (Ŵ'(g) for equal gaps),
    n̂ = (Dₙ + Dₙ₊₁)/(|Dₙ| + |Dₙ₊₁|),   g̃ = |D| − R_a − R_b − e,

so that n̂·(Dₙ₊₁ − Dₙ) = |Dₙ₊₁| − |Dₙ| and the work of the pair of forces on the step's increment
is exactly −(Ŵ(g̃ₙ₊₁) − Ŵ(g̃ₙ)). The lever arms R_a/(R_a+R_b) D̄ and −R_b/(R_a+R_b) D̄ add up to
D̄ = ½(Dₙ + Dₙ₊₁) ∥ F, so the normal force has no moment and linear and angular momentum are
conserved. e is the *excess* of the step's points: the contact points move during a step, and
σ is put on the segment between the closest points σₙ and σₙ₊₁ of the two configurations where
|D| exceeds its minimum by the same amount e at tₙ and at tₙ₊₁ (as the rolling contact does);
then g̃ₙ and g̃ₙ₊₁ are the true least gaps, and the discrete gradient conserves kinetic + elastic +
the contact energy Σ Ŵ(g_min) that the time series reports. :meth:`RodRodPotential.move_points`
searches the end configuration after each solve and moves the points until they settle
(``settle=True``, default); ``settle=False`` keeps the closest points of tₙ (no re-solves; the
energy error is then O(Δσ²) per step, see docs/contact.md). A contact that enters the search
during a step joins it at its end-of-step closest points, one that leaves it keeps its start
points (its energy is zero at the end either way).

**Dissipation.** Damping (Tatone) and regularised Coulomb friction act at c with the relative
velocity of the material points of the two sections there, spin included:

    v = (ΔD + D̄ × T)/Δt,   T = α τ̄_a + (1 − α) τ̄_b,   α = R_a/(R_a+R_b),

(τ̄ the step's rotation increment at the point), the normal n = D̄/|D̄|, the gap at D̄, and, for
friction, the normal force Q of the step. The force F_d on b (−F_d on a) acts at c: moments
αD̄ × F_d on a's and (1 − α)D̄ × F_d on b's rotation rows; its work on the step is F_d·v Δt ≤ 0,
recorded as ``dissipated_energy``.

**Tangent.** Newton gets the exact derivative of these forces in (uₙ₊₁, τ) at fixed points σ
and excess e (both fixed during a solve): quadratic convergence within a solve.

**Statics.** With ``scheme="static"`` the force is the gradient −Ŵ'(g) D/|D| at the current
configuration, with its exact tangent; :meth:`move_points` moves the points to the closest
points of the current configuration (drive it with
:class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton`, see ``tests/test_rod_potential.py``).
"""

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry.contacts import MODE_LINE, RawContacts
from fe_rodcontact.contact.geometry.matching import match_contacts, wrapped
from fe_rodcontact.contact.geometry.placement import PointPlacement
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactSet
from fe_rodcontact.contact.laws.dissipative import CoulombFrictionLaw, DampingLaw
from fe_rodcontact.contact.laws.normal import NormalLaw
from fe_rodcontact.contact.laws.registry import first_overflow
from fe_rodcontact.contact.model import Binding, ContactModel, EndContacts, StepContext
from fe_rodcontact.contact.potential.admissible import closed_gap_problem
from fe_rodcontact.contact.potential.point_forces import (
    PointContacts,
    PointForces,
    PointLaws,
    cut_energy,
    cut_gradient,
    point_forces,
    point_linearisation,
)
from fe_rodcontact.contact.records import records_from_arrays, records_to_arrays
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["SCHEMES", "RodRodPotential"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SCHEMES = ("energy-momentum", "static")
"""Where the force is evaluated: the discrete gradient of a step, or the current gradient."""


class RodRodPotential(ContactModel):
    """Potential contact between rods and of rods with themselves, at the closest points.

    Add it to the pairs of rods (or ``"rods"``, ``"self"``) it acts on; its cut-off is the
    scene's search margin (the contacts are those the search finds).

    Args:
        law: Conservative law at point contacts (RepulsiveLaw, AdhesiveLaw, LinearPenaltyLaw,
            SmoothPenaltyLaw), positive force = repulsive.
        damping: Optional normal damping (Tatone) with the relative velocity at the contact.
        friction: Optional regularised Coulomb friction, normal force from ``law``.
        line_law: Law per unit length at line-contact points (default: ``law`` used as a
            density).
        settle: Move the step's points to the equal-excess points (see the module docs).
        settle_tolerance: Change of the points (relative to the longest element) below which
            they have settled.

    Raises:
        InputError: For laws of the wrong kind.
    """

    at_points = True
    target_kinds = ("pair", "self")

    def __init__(
        self,
        law: NormalLaw,
        *,
        damping: DampingLaw | None = None,
        friction: CoulombFrictionLaw | None = None,
        line_law: NormalLaw | None = None,
        settle: bool = True,
        settle_tolerance: float = 1e-10,
    ):
        super().__init__()
        message = None
        if not isinstance(law, NormalLaw) or (
            line_law is not None and not isinstance(line_law, NormalLaw)
        ):
            what = type(law if not isinstance(law, NormalLaw) else line_law).__name__
            message = (
                f"RodRodPotential's law and line_law must be conservative laws (NormalLaw, e.g. "
                f"RepulsiveLaw), got {what}; damping and friction are keyword arguments."
            )
        elif damping is not None and not isinstance(damping, DampingLaw):
            message = (
                f"RodRodPotential's damping must be a DampingLaw, got {type(damping).__name__}."
            )
        elif friction is not None and not isinstance(friction, CoulombFrictionLaw):
            message = (
                "RodRodPotential's friction must be a CoulombFrictionLaw, got "
                f"{type(friction).__name__}."
            )
        if message is not None:
            raise InputError(message)
        self._law = law
        self._line_law = law if line_law is None else line_law
        self._damping = damping
        self._friction = friction
        self._laws = PointLaws(self._law, self._line_law, damping, friction, margin=np.inf)
        self._settle = arguments.flag("settle", settle)
        self._settle_tolerance = arguments.positive("settle_tolerance", settle_tolerance)
        self._static = False
        self._active: PointContacts | None = None
        self._start = RawContacts.empty()
        self._t = 0.0
        self._dt = 1.0
        self.dissipated_energy = 0.0
        """Energy removed by damping and friction so far (never decreasing)."""
        self.records: list[dict[str, float]] = []
        self._step_fields: tuple[list[tuple], dict[str, FloatArray]] | None = None
        """Per accepted step: contacts, least gap, largest normal and friction force, slip,
        dissipation."""

    def bind(self, binding: Binding) -> None:
        """The rods' lengths, closedness and element sizes; the cut-off is the scene's margin."""
        super().bind(binding)
        rods = binding.rod.rods
        laws = {"law": self._law, "line_law": self._line_law, "damping": self._damping}
        problem = first_overflow(laws, binding.margin, " (the search margin)")
        raise_collectively(rods.comm, problem and f"RodRodPotential's {problem}")
        self._rod = binding.rod
        self._comm: MPI.Comm = rods.comm
        self._radii = binding.radii
        self._margin = binding.margin
        self._laws = PointLaws(
            self._law, self._line_law, self._damping, self._friction, binding.margin
        )
        self._stencils = binding.stencils
        self._h = binding.element_lengths
        self._lengths = np.asarray(rods.lengths, dtype=float)
        self._closed = np.asarray(rods.closed, dtype=bool)
        self._placement = PointPlacement(binding.rod, self._stencils, (), self._h)

    def check_scheme(self, scheme: str) -> str | None:
        """The energy–momentum step (discrete gradient) or statics (without dissipation)."""
        if scheme == "generalized-alpha":
            return (
                "RodRodPotential cannot run with integrator='generalized-alpha': its forces are "
                "the energy-momentum step's discrete gradient. Use "
                "integrator='energy-momentum'."
            )
        if scheme == "static" and (self._damping is not None or self._friction is not None):
            return (
                "RodRodPotential's damping and friction need a time step: statics has none; "
                "leave them out of a StaticProblem."
            )
        return None

    @property
    def newton_options(self) -> dict[str, object]:
        """SNES options the step needs: a backtracking line search with Coulomb friction.

        The regularised Coulomb force turns within the slip speed ε_v and full Newton steps
        overshoot it. Measured on the crossed strings of ``demo_rolling_vs_potential.py``
        (penalty 1e5 N/m, ε_v = 1e-2 m/s, Δt ≤ 1 ms): μ = 0.5 over 0.05 s took 50 steps with
        ``bt``, 69 with ``l2`` and 456 with full steps; μ = 1 and 10 over 0.1 s took 100 and 157
        steps with ``bt``, 214 and a failure (stalled at the smallest step) with ``l2``.
        """
        return {"snes_linesearch_type": "bt"} if self._friction is not None else {}

    @property
    def moves_points(self) -> bool:  # type: ignore[override]
        """Statics, and settling steps, move the points to the end configuration's."""
        return self._settle or self._static

    @property
    def margin(self) -> float:
        """Search margin and cut-off of the laws."""
        return self._margin

    @property
    def num_multipliers(self) -> int:
        """No multipliers: forces only."""
        return 0

    @property
    def active(self) -> RawContacts:
        """The contact points of the current solve."""
        return RawContacts.empty() if self._active is None else self._active.contacts

    def check_end(self, contacts: RawContacts, t: float) -> None:
        """A singular law refuses an end configuration with a gap ≤ 0 (the step is cut)."""
        line = contacts.mode == MODE_LINE
        singular = np.where(line, self._line_law.singular, self._law.singular)
        names = type(self._law if self._law.singular else self._line_law).__name__
        problem = closed_gap_problem(contacts, singular, names, self.binding.names, t)
        raise_collectively(self._comm, problem, ContactError)

    def check_start(self, contacts: ContactSet) -> None:
        """The starting configuration: g > 0 for the power laws."""
        found = contacts.contacts
        message = None
        for law in (self._law, self._line_law):
            if law.singular and len(found) and np.min(found.gap) <= 0:
                row = int(np.argmin(found.gap))
                names = self._rod.rods.names
                message = (
                    f"at the start, rod {names[int(found.rod_a[row])]!r} (s = "
                    f"{found.s_a[row]:.6g}) and rod {names[int(found.rod_b[row])]!r} (s = "
                    f"{found.s_b[row]:.6g}) have gap {found.gap[row]:.6g} <= 0; the "
                    f"{type(law).__name__} is singular there. Start the rods apart."
                )
        raise_collectively(self._comm, message)

    def _build(self, contacts: RawContacts, excess: FloatArray) -> PointContacts:
        st = self._stencils
        a = st.material_points(contacts.rod_a, contacts.element_a, contacts.s_a)
        b = st.material_points(contacts.rod_b, contacts.element_b, contacts.s_b)
        ra, rb = self._radii[contacts.rod_a], self._radii[contacts.rod_b]
        alpha = ra / (ra + rb)
        k = a.nodes.shape[1] if len(contacts) else 0
        nodes = np.concatenate([a.nodes, b.nodes], axis=1).reshape(len(contacts), 2 * k)
        weights = np.concatenate([a.weights, b.weights], axis=1).reshape(len(contacts), 2 * k)
        sign = np.concatenate([-np.ones(k), np.ones(k)])
        share = np.concatenate(
            [np.repeat(alpha[:, None], k, axis=1), np.repeat(1 - alpha[:, None], k, axis=1)],
            axis=1,
        ).reshape(len(contacts), 2 * k)
        line = contacts.mode == MODE_LINE
        return PointContacts(
            contacts=contacts,
            excess=np.asarray(excess, dtype=float),
            nodes=nodes.astype(np.int64),
            weights=weights,
            signed=weights * sign,
            share=share,
            scale=np.where(line, contacts.weight, 1.0),
            line=line,
            reach=ra + rb,
        )

    # -- the step --------------------------------------------------------------------------------
    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """The contacts of the step's start configuration are its first points."""
        self._t, self._dt = context.t, context.dt
        self._static = context.statics
        self._start = contacts.contacts
        self._active = self._build(self._start, np.zeros(len(self._start)))

    def _gather(self, nodes: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(xₙ, xₙ₊₁, τ) at nodes (statics: xₙ = xₙ₊₁ = x)."""
        st = self._stencils
        reference = st.reference_positions(nodes)
        state = st.gather(nodes, self._rod.state.x.array, 6)
        new = reference + state[..., :3]
        if self._static:
            return new, new, state[..., 3:]
        old = reference + st.gather(nodes, self._rod.displacement.x.array, 3)
        return old, new, state[..., 3:]

    def _forces(self, active: PointContacts) -> PointForces:
        """Forces, their derivatives and the dissipation at the current state."""
        return point_forces(
            active, self._gather(active.nodes), self._laws, static=self._static, dt=self._dt
        )

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Contact forces and their tangent at the rod's current state (no multipliers)."""
        assert self._active is not None, "begin_step() before linearise()"
        forces = self._forces(self._active)
        return point_linearisation(self._active, forces, self._laws.dissipative)

    # -- moving the points -------------------------------------------------------------------------
    def move_points(self, multipliers: FloatArray, end_contacts: EndContacts) -> bool:
        """Move the step's points to where the scheme wants them (see the module docs).

        Returns:
            Whether the points or the set of contacts changed (then the step is solved again).
        """
        assert self._active is not None
        if self._static:
            found = end_contacts()
            return self._replace(found, np.zeros(len(found)))
        if not self._settle:
            return False
        end = end_contacts()
        start = self._start
        reach = 2 * np.maximum(self._h[start.rod_a], self._h[start.rod_b])
        matches = match_contacts(
            start, end, lengths=self._lengths, closed=self._closed, limit_a=reach, limit_b=reach
        )
        matched = start.take(matches.old)
        end_a, end_b = matches.ends(end)
        end_a = np.where(matched.mode == MODE_LINE, matched.s_a, end_a)  # a material point of a
        sa, sb, excess = self._placement.equal_excess_points(
            matched, end_a, end_b, self._t, self._dt
        )
        start_only = np.setdiff1d(np.arange(len(start)), matches.old)
        end_only = np.setdiff1d(np.arange(len(end)), matches.new)
        contacts = RawContacts.concatenate(
            [self._placement.moved(matched, sa, sb), start.take(start_only), end.take(end_only)]
        )
        excess = np.concatenate([excess, np.zeros(len(start_only) + len(end_only))])
        return self._replace(contacts, excess)

    def _replace(self, contacts: RawContacts, excess: FloatArray) -> bool:
        """Make ``contacts`` the active points; whether they differ from the current ones."""
        assert self._active is not None
        old = self._active.contacts
        same = (
            len(old) == len(contacts)
            and np.array_equal(old.kind, contacts.kind)
            and np.array_equal(old.rod_a, contacts.rod_a)
            and np.array_equal(old.rod_b, contacts.rod_b)
            and np.array_equal(old.mode, contacts.mode)
        )
        if same and len(contacts):
            h = np.maximum(self._h[contacts.rod_a], self._h[contacts.rod_b])
            shift = np.maximum(
                np.abs(
                    wrapped(contacts.s_a - old.s_a, contacts.rod_a, self._lengths, self._closed)
                ),
                np.abs(
                    wrapped(contacts.s_b - old.s_b, contacts.rod_b, self._lengths, self._closed)
                ),
            )
            same = bool(np.max(shift / h) <= self._settle_tolerance)
        if same:
            return False
        self._active = self._build(contacts, excess)
        return True

    def contact_forces(self) -> dict[str, FloatArray]:
        """Forces and gaps of the active contacts at the current state (collective).

        Returns:
            ``normal_force`` (positive when pressing; line points: times their weight) and the
            gaps ``gap_old``, ``gap_new`` (g̃ₙ, g̃ₙ₊₁; statics: both the current one).
        """
        assert self._active is not None, "prepare() first"
        s = self._forces(self._active)
        return {"normal_force": s.normal_force, "gap_old": s.gap_old, "gap_new": s.gap_new}

    # -- after the step ---------------------------------------------------------------------------
    def commit(self, t: float) -> None:
        """Record the accepted step (the state still holds uₙ and uₙ₊₁): dissipation, forces.

        The slip is the speed of b's material point at the contact relative to a's, spin of the
        sections included, tangential part, over the step ((ΔD + D̄ × T)/Δt, as the friction
        law sees it): the quantity that rolling contact holds at zero.
        """
        assert self._active is not None
        s = self._forces(self._active)
        self._step_fields = (
            self._active.contacts.material_keys(),
            {
                "normal_force": s.normal_force,
                "tangential_force": s.tangential_force,
                "slip_velocity": s.slip,
            },
        )
        step_dissipation = float(np.sum(s.dissipation))
        self.dissipated_energy += step_dissipation
        self.records.append(
            {
                "t": t,
                "contacts": float(len(self._active.contacts)),
                "min_gap": float(np.min(s.gap_new, initial=np.inf)),
                "max_normal_force": float(np.max(s.normal_force, initial=0.0)),
                "max_tangential_force": float(np.max(s.tangential_force, initial=0.0)),
                "max_slip": float(np.max(s.slip, initial=0.0)),
                "dissipation": step_dissipation,
            }
        )

    def contact_fields(self, contacts: ContactSet) -> dict[str, FloatArray]:
        """The forces and slip of the last accepted step at its contacts (the start: the law's).

        A contact of the step's end configuration gets the step's normal force (the discrete
        gradient with the damping), friction force and slip; one it did not act on (the start,
        before any step) gets the law's force at its gap, and NaN tangential force and slip.
        """
        found = contacts.contacts
        line = found.mode == MODE_LINE
        normal = np.full(len(found), np.nan)  # NaN: a singular law at a closed gap
        for law, rows in ((self._law, ~line), (self._line_law, line)):
            rows = rows & ((found.gap > 0) if law.singular else True)
            gap = found.gap[rows]
            normal[rows] = -cut_gradient(law, self._margin, gap, gap)[0]
        normal[line] *= found.weight[line]
        out = {
            "normal_force": normal,
            "tangential_force": np.full(len(found), np.nan),
            "slip_velocity": np.full(len(found), np.nan),
        }
        if self._step_fields is not None:
            keys, values = self._step_fields
            rows = {key: i for i, key in enumerate(keys)}
            for i, key in enumerate(found.material_keys()):
                if key in rows:
                    for name, column in values.items():
                        out[name][i] = column[rows[key]]
        return out

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The energy dissipated so far and the records."""
        return {
            "dissipated_energy": np.array([self.dissipated_energy]),
            **records_to_arrays(self.records),
        }

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue with the dissipated energy and the records of the checkpoint."""
        self.dissipated_energy = float(arrays["dissipated_energy"][0])
        self.records = records_from_arrays(arrays)

    def energy(self, contacts: RawContacts) -> float:
        """Σ Ŵ(g) (line points: weight × Ŵ) of ``contacts``."""
        line = contacts.mode == MODE_LINE
        point_energy = cut_energy(self._law, self._margin, contacts.gap[~line])
        line_energy = cut_energy(self._line_law, self._margin, contacts.gap[line])
        return float(np.sum(point_energy) + np.sum(contacts.weight[line] * line_energy))

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """Contact energy of the committed configuration, dissipated energy, contacts.

        The energy is NaN where rods interpenetrate with a singular law: a configuration no
        step can reach (its forces are NaN, Newton fails) and :meth:`check_start` refuses
        before the first step; it shows up here only for an initial state not yet checked.
        """
        found = contacts.contacts
        line = found.mode == MODE_LINE
        bad = found.gap <= 0
        broken = (self._law.singular and np.any(bad & ~line)) or (
            self._line_law.singular and np.any(bad & line)
        )
        out = {
            "contact_energy": float("nan") if broken else self.energy(found),
            "rod_contacts": float(len(found)),
            "rod_min_gap": float(np.min(found.gap, initial=self._margin)),
        }
        if self._damping is not None or self._friction is not None:
            out["dissipated_energy"] = self.dissipated_energy
        return out
