"""A consistent start: the initial velocities (and generalized-α's a₀) on the contact rows.

**Velocities.** The rows of the contact models, B q̇ = V (rolling: the material points of both
sides of a contact move together, no slip and no approach; V is an obstacle surface's
velocity), need not hold for the initial velocities a user gives: a string pushed sideways
without spin slips on the one it touches. A scheme whose rows hold the step's mean velocity
(energy–momentum) would then keep that slip, alternating, in the end velocities of every step,
and the contact force would carry an impulse that alternates at the step frequency and grows
like 1/Δt. So before the first step, q̇ is projected onto the velocities the rows allow, by the
perfectly inelastic impulse −Bᵀμ at the contacts (μ in the contact models' sign):

    M Δq̇ = −Bᵀμ,   B (q̇ + Δq̇) = 0,

with M the mass matrix of the rods (supports held: no impulse on prescribed dofs). The rows of
an obstacle that moves (V ≠ 0) are left out: a contact that closes on it at the start is the
first step's perfectly inelastic impact. Δq̇ is the least change in the kinetic-energy metric
(Gauss's principle); it removes the energy ½ Δq̇ᵀ M Δq̇ = ½ μ·B q̇ ≥ 0, and, as an impact's
impulse, conserves linear and angular momentum (the rows' forces are equal and opposite, with
lever arms that meet). The energy goes to the models' impact losses
(:meth:`ContactModel.start_impulse
<fe_rodcontact.contact.model.ContactModel.start_impulse>`), so that kinetic + elastic − work +
losses stays what it was; :class:`StartProjection` reports it. A contact of a unilateral model
whose impulse would pull (rods that move apart at t₀) is left out of the projection
(:meth:`ContactModel.start_release <fe_rodcontact.contact.model.ContactModel.start_release>`),
and the projection is solved again without it.

**Accelerations.** Generalized-α starts from a₀ that satisfies the rows too, M a + Gλ = F,
Gᵀa = 0 (:meth:`GeneralizedAlpha._start_accelerations
<fe_rodcontact.stepping.generalized_alpha.GeneralizedAlpha._start_accelerations>`).

Both are one projection (:meth:`StartSystem.project`): with G = Bᵀ at the start configuration
and Y = M⁻¹G (one solve per multiplier with M factorised once), a change −Yμ with
GᵀYμ = −r. The rows are those of the first step at Δq = 0, on the step's increment
(c = BΔq − ΔtV, so V = −c/Δt); their coupling G is the same on the end velocity.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mpi4py import MPI
from petsc4py import PETSc

import dolfinx.fem
import dolfinx.fem.petsc
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.model import ContactModel, StepContext
from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solvers.linearisation import PointLinearisation
from fe_rodcontact.solvers.options import default_newton_options

__all__ = ["StartProjection", "StartRows", "StartSystem", "project_velocities"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class StartProjection:
    """What the consistent start did to the initial velocities.

    Attributes:
        rows: The contact rows it held (three per rolling contact).
        left_out: Rows of unilateral contacts left out: their impulse would have pulled.
        mismatch: The largest component of B q̇ − V before, a velocity (the initial slip).
        residual: The same after (round-off).
        energy_loss: The kinetic energy it took from the rods (before less after).
        impulse: The multipliers μ of the rows (force × time; 0 on rows left out).
        change: Δq̇ on this rank's owned dofs, six per node (v, then the spatial ω).
    """

    rows: int
    left_out: int
    mismatch: float
    residual: float
    energy_loss: float
    impulse: FloatArray
    change: FloatArray


@dataclass(frozen=True)
class StartRows:
    """The contact models' rows at the start configuration, on this rank's owned dofs.

    Attributes:
        coupling: (owned dofs, m) G = Bᵀ, zero on the dofs the supports hold.
        held: The owned dofs the supports hold.
        held_coupling: (held, m) G on those dofs (their prescribed velocities count in Bq̇).
        target: (m,) V, the velocity the rows ask for (an obstacle surface's).
        sizes: The multipliers of each point model.
    """

    coupling: FloatArray
    held: IntArray
    held_coupling: FloatArray
    target: FloatArray
    sizes: tuple[int, ...]

    @property
    def size(self) -> int:
        """The number of rows."""
        return len(self.target)

    @staticmethod
    def build(
        contact: ContactScene,
        context: StepContext,
        rod: CosseratRod,
        bcs: Sequence[dolfinx.fem.DirichletBC],
    ) -> "StartRows":
        """The rows of the first step at Δq = 0 (the rods' state must hold uₙ and τ = 0).

        Args:
            contact: The scene (its models begin the step from the start configuration).
            context: The first step, with its rows on the increment (``end_velocity=None``).
            rod: The rods.
            bcs: The supports' conditions.
        """
        assert context.end_velocity is None and context.dt > 0
        contact.begin_step(context)
        parts = []
        for model in contact.point_models:
            if not model.velocity_rows:  # unknowns of their own (a body's step): no rows
                parts.append((PointLinearisation.empty(), 0))
                continue
            parts.append((model.linearise(np.zeros(model.num_multipliers)), model.num_multipliers))
        m = sum(size for _, size in parts)
        V = rod.function_space
        owned = V.dofmap.index_map.size_local * 6
        first = V.dofmap.index_map.local_range[0] * 6
        coupling = np.zeros((owned, m))
        target = np.zeros(m)
        shift = 0
        for linearised, size in parts:
            rows, cols, values = linearised.coupling
            mine = (rows >= first) & (rows < first + owned)
            np.add.at(coupling, (rows[mine] - first, cols[mine] + shift), values[mine])
            target[shift : shift + size] = -linearised.constraint / context.dt  # c = −Δt V
            shift += size
        held = [bc.dof_indices()[0][: bc.dof_indices()[1]] for bc in bcs]
        dofs = np.unique(np.concatenate(held)) if held else np.zeros(0, dtype=np.int32)
        dofs = dofs[dofs < owned]
        held_coupling = coupling[dofs].copy()
        coupling[dofs] = 0.0  # held dofs take no constraint force
        return StartRows(coupling, dofs, held_coupling, target, tuple(s for _, s in parts))

    def rates(self, comm: MPI.Comm, vector: FloatArray) -> FloatArray:
        """B x for a vector x of the owned dofs (all its dofs, held ones too)."""
        local = self.coupling.T @ vector + self.held_coupling.T @ vector[self.held]
        return np.asarray(comm.allreduce(local))

    def split(self, values: FloatArray) -> list[FloatArray]:
        """``values`` (one per row) cut into those of each point model."""
        return np.split(values, np.cumsum(self.sizes)[:-1])


class StartSystem:
    """The rods' mass matrix at t₀ with the supports held, factorised once, and its projection.

    Args:
        mass: The mass form of the scheme (both arguments on the rods' space).
        bcs: The supports' conditions (their values held at zero by the caller).
        rod: The rods.
        prefix: The options prefix of its linear solver.
    """

    def __init__(
        self,
        mass: ufl.Form,
        bcs: Sequence[dolfinx.fem.DirichletBC],
        rod: CosseratRod,
        prefix: str,
    ):
        self._rod = rod
        self._bcs = list(bcs)
        self._form = dolfinx.fem.form(mass)
        self.matrix = dolfinx.fem.petsc.assemble_matrix(self._form, bcs=self._bcs)
        self.matrix.assemble()
        self.solver = PETSc.KSP().create(rod.mesh.comm)
        self.solver.setOperators(self.matrix)
        self.solver.setOptionsPrefix(prefix)
        newton = default_newton_options(rod.mesh.comm)
        options = PETSc.Options()
        options.prefixPush(prefix)
        keys = ("ksp_type", "pc_type", "pc_factor_mat_solver_type")
        for key in keys:
            options[key] = newton[key]
        self.solver.setFromOptions()
        for key in keys:
            del options[key]
        options.prefixPop()
        self._inverse: FloatArray | None = None  # M⁻¹G
        self._coupling: FloatArray | None = None

    @property
    def comm(self) -> MPI.Comm:
        """The rods' communicator."""
        return self._rod.mesh.comm

    def solve(self, forces: ufl.Form) -> tuple[dolfinx.fem.Function, bool]:
        """The solution of M x = F (zero on the held dofs), and whether the solve succeeded."""
        vector = dolfinx.fem.petsc.assemble_vector(dolfinx.fem.form(forces))
        dolfinx.fem.petsc.apply_lifting(vector, [self._form], bcs=[self._bcs])
        vector.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        for bc in self._bcs:
            bc.set(vector.array_w)
        solution = dolfinx.fem.Function(self._rod.function_space)
        self.solver.solve(vector, solution.x.petsc_vec)
        solution.x.scatter_forward()
        vector.destroy()
        return solution, self.solver.getConvergedReason() > 0

    def project(
        self, rows: StartRows, residual: FloatArray, keep: BoolArray | None = None
    ) -> tuple[FloatArray, FloatArray]:
        """The least change Δ (metric M) that adds ``residual`` to the rows: GᵀΔ = r.

        Δ = −M⁻¹Gμ with GᵀM⁻¹G μ = −r: μ are the rows' multipliers in the models' sign (the
        force on the rods is −Gμ).

        Args:
            rows: The rows (G).
            residual: r, one per row.
            keep: The rows that hold (default all); the others get μ = 0.

        Returns:
            Δ on the owned dofs, and μ (one per row).
        """
        comm = self.comm
        if self._coupling is not rows.coupling:
            self._coupling, self._inverse = rows.coupling, self._weights(rows.coupling)
        assert self._inverse is not None
        keep = np.ones(rows.size, dtype=bool) if keep is None else keep
        multipliers = np.zeros(rows.size)
        if not np.any(keep):
            return np.zeros(len(rows.coupling)), multipliers
        coupling, inverse = rows.coupling, self._inverse
        if not np.all(keep):
            coupling, inverse = coupling[:, keep], inverse[:, keep]
        schur = comm.allreduce(coupling.T @ inverse)
        # Least squares: redundant rows (a rod lying on a plane) make GᵀM⁻¹G singular, but
        # r lies in its range, so the minimum-norm μ still gives GᵀΔ = r.
        multipliers[keep] = np.linalg.lstsq(schur, -residual[keep])[0]
        return -(inverse @ multipliers[keep]), multipliers

    def _weights(self, coupling: FloatArray) -> FloatArray:
        """Y = M⁻¹G, one solve per column (NaN where M cannot be solved)."""
        rhs, y = self.matrix.createVecRight(), self.matrix.createVecRight()
        inverse = np.zeros(coupling.shape)
        for j in range(coupling.shape[1]):
            rhs.array[:] = coupling[:, j]
            self.solver.solve(rhs, y)
            inverse[:, j] = y.array if self.solver.getConvergedReason() > 0 else np.nan
        rhs.destroy()
        y.destroy()
        return inverse

    def destroy(self) -> None:
        """Free the solver and the matrix (collective)."""
        self.solver.destroy()
        self.matrix.destroy()


def project_velocities(
    system: StartSystem,
    rows: StartRows,
    models: Sequence[ContactModel],
    velocities: FloatArray,
    apply: Callable[[FloatArray], None],
    kinetic_energy: Callable[[], float],
) -> StartProjection:
    """Project the initial velocities onto the rows; the models get the impulse and the loss.

    Rows of contacts that a model releases (:meth:`ContactModel.start_release`) are left out,
    and the projection is solved again without them, until none is released. The energy
    taken is the kinetic energy before less after; each model gets the share ½μₖ·(Bq̇ − V)ₖ
    of its rows (the shares add up to ½Δq̇ᵀMΔq̇). The rows of a moving obstacle (V ≠ 0) are
    left out: such a contact closing at the start is the first step's impact.

    Args:
        system: The mass matrix and its projection.
        rows: The rows at the start.
        models: The scene's point models (in the order of the rows).
        velocities: q̇ on the owned dofs (nodal v and spatial ω, six per node).
        apply: Adds a change of q̇ (owned dofs) to the scheme's velocities.
        kinetic_energy: The rods' kinetic energy now.

    Raises:
        InputError: When the rods' mass matrix cannot take the impulse (no rotary inertia).
    """
    comm = system.comm
    moving = rows.target != 0  # a moving obstacle's rows: left to the first step's impact
    residual = np.where(moving, 0.0, rows.target - rows.rates(comm, velocities))
    mismatch = float(np.max(np.abs(residual), initial=0.0))
    if mismatch == 0.0:  # nothing to do (a start from rest, or one that rolls exactly)
        return StartProjection(
            rows.size, 0, 0.0, 0.0, 0.0, np.zeros(rows.size), np.zeros_like(velocities)
        )
    keep = ~moving
    for _ in range(rows.size):
        change, impulse = system.project(rows, residual, keep)
        leaving = np.concatenate(
            [np.zeros(0, dtype=bool)]
            + [
                np.asarray(model.start_release(part), dtype=bool)
                for model, part in zip(models, rows.split(impulse), strict=True)
            ]
        )
        leaving &= keep
        if not comm.allreduce(bool(np.any(leaving)), op=MPI.LOR):
            break
        keep &= ~leaving
    finite = bool(np.all(np.isfinite(change)) and np.all(np.isfinite(impulse)))
    raise_collectively(
        comm,
        None
        if comm.allreduce(finite, op=MPI.LAND)
        else "the initial velocities slip or approach at a contact, and the rods' mass matrix "
        "cannot take the start's impulse (no rotary inertia?): give the sections rhoI1, rhoI2 "
        "and rhoJ > 0, or initial velocities that satisfy the contact rows.",
        InputError,
    )
    before = kinetic_energy()
    apply(change)
    loss = before - kinetic_energy()
    after = rows.target - rows.rates(comm, velocities + change)
    shares = [-0.5 * float(mu @ r) for mu, r in zip(rows.split(impulse), rows.split(residual))]
    total = sum(shares)
    for model, mu, share in zip(models, rows.split(impulse), shares, strict=True):
        model.start_impulse(mu, loss * share / total if total > 0 else 0.0)
    return StartProjection(
        rows=int(np.sum(keep)),
        left_out=int(rows.size - np.sum(keep)),
        mismatch=mismatch,
        residual=float(np.max(np.abs(after[keep]), initial=0.0)),
        energy_loss=loss,
        impulse=impulse,
        change=change,
    )
