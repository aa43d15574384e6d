"""Two strings in rolling contact at moving points (paper eqs. 16–19), in DOLFINx.

    u_tt − c² u_xx + λ δ(x − s1) = 0,    v_tt − c² v_yy − λ F δ(y − s2) = 0,
    u_t(s1) = F v_t(s2),                  ṡ1 = G1 u_t(s1),  ṡ2 = G2 u_t(s1).

Discretisation: Lagrange P1/P2 in space (mass M, stiffness K = c² ∫ u' w'), the implicit
midpoint rule in time with the constraint and its point evaluation taken at the midpoint
contact positions s* = (sⁿ + sⁿ⁺¹)/2:

    (uⁿ⁺¹ − uⁿ)/Δt = W,   M (wⁿ⁺¹ − wⁿ)/Δt + K (uⁿ + uⁿ⁺¹)/2 + λ b1(s1*) = 0,
    (same for v with −λ F b2(s2*)),   b1(s1*)·W − F b2(s2*)·Z = 0,
    sᵢⁿ⁺¹ = sᵢⁿ + Δt Gᵢ b1(s1*)·W,

where W, Z are the midpoint velocities and b(s) the constraint weights (basis values or a
smeared kernel). Eliminating uⁿ⁺¹, wⁿ⁺¹ leaves one saddle-point system per step for (W, Z, μ),
μ = Δt λ / 2, with A = M + Δt²/4 K:

    [[A, 0, b1], [0, A, −F b2], [b1ᵀ, −F b2ᵀ, 0]] [W; Z; μ] = [M wⁿ − Δt/2 K uⁿ; (v); 0].

The discrete energy ½ wᵀMw + ½ uᵀKu (+ the same for v) changes by −Δt λ (b1·W − F b2·Z) = 0
per step: it is conserved exactly, whatever s* is, up to the linear solver's round-off. The
s-update is solved by fixed-point iteration on s* (one saddle solve per iteration).
"""

import signal

from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import numpy.typing as npt
import ufl
from dolfinx import fem
from dolfinx.fem import petsc as fem_petsc

from fe_rodcontact.contact.geometry.kernels import get_kernel
from fe_rodcontact.errors import ConvergenceError, InputError, raise_collectively
from fe_rodcontact.expressions import parse_expression
from fe_rodcontact.stepping.interrupt import Interrupted, stop_requested
from fe_rodcontact.strings.config import StringsConfig, StringsResult
from fe_rodcontact.strings.constraints import PointConstraints, PointTerm
from fe_rodcontact.strings.geometry import create_string_mesh
from fe_rodcontact.strings.locators import IntervalLocator
from fe_rodcontact.strings.saddle_point import SaddlePointProblem, block_diagonal

__all__ = ["TwoStrings", "run_strings"]

FloatArray = npt.NDArray[np.float64]


class TwoStrings:
    """The FE model of two strings in rolling contact; drive it with :meth:`step` or :meth:`run`.

    Both strings live on one mesh (they have the same length and ends) as two functions
    ``u`` and ``v`` of one space; the contact points may sit on different ranks.
    """

    def __init__(self, config: StringsConfig, comm: MPI.Comm = MPI.COMM_WORLD):
        """Build the mesh, forms, matrices, initial state and solvers (collective).

        Raises:
            InputError: On every rank, for bad parameters or expressions.
        """
        try:
            config.validate()
            message = None
        except InputError as error:
            message = str(error)
        raise_collectively(comm, message)
        self.config = c = config
        self.comm = comm
        self.mesh, self.geometry = create_string_mesh(comm, c.length, c.elements, c.bc)
        self.V = V = fem.functionspace(self.mesh, ("Lagrange", c.degree))
        self.locator = IntervalLocator(self.mesh, self.geometry)
        self._n = V.dofmap.index_map.size_local
        params = self.locator.dof_parameters(V)

        # boundary conditions (fixed ends)
        self.bcs: list[fem.DirichletBC] = []
        if c.bc == "fixed":
            ends = fem.locate_dofs_geometrical(
                V, lambda x: np.isclose(x[0], 0.0) | np.isclose(x[0], c.length)
            )
            self.bcs = [fem.dirichletbc(0.0, ends, V)]
        self._bc_owned = np.concatenate(
            [bc.dof_indices()[0][bc.dof_indices()[0] < self._n] for bc in self.bcs] or [[]]
        ).astype(np.int32)

        # matrices: M, K (no bcs) for energy and right-hand sides; A with bcs for the solve
        trial, test = ufl.TrialFunction(V), ufl.TestFunction(V)
        mass = trial * test * ufl.dx
        stiffness = c.wave_speed**2 * ufl.inner(ufl.grad(trial), ufl.grad(test)) * ufl.dx
        self.M = fem_petsc.assemble_matrix(fem.form(mass))
        self.M.assemble()
        self.K = fem_petsc.assemble_matrix(fem.form(stiffness))
        self.K.assemble()
        self.A = fem_petsc.assemble_matrix(
            fem.form(mass + (c.dt**2 / 4.0) * stiffness), bcs=self.bcs
        )
        self.A.assemble()

        # state
        self.u, self.w = fem.Function(V, name="u"), fem.Function(V, name="u_t")
        self.v, self.z = fem.Function(V, name="v"), fem.Function(V, name="v_t")
        self._W, self._Z = fem.Function(V), fem.Function(V)
        names = {"L": c.length, "c": c.wave_speed}
        for fn, text, label in (
            (self.u, c.u0, "u0"),
            (self.w, c.u0_rate, "u0_rate"),
            (self.v, c.v0, "v0"),
            (self.z, c.v0_rate, "v0_rate"),
        ):
            values = parse_expression(text, names)(params)
            bad = None
            if c.bc == "fixed":
                ends = np.isclose(params, 0.0) | np.isclose(params, c.length)
                scale = 1.0 + np.max(np.abs(values), initial=0.0)
                if np.any(np.abs(values[ends]) > 1e-10 * scale):
                    bad = f"{label} = {text!r} must vanish at the fixed ends x = 0 and x = L"
            raise_collectively(comm, bad)
            fn.x.array[:] = values
        self.time_step = 0
        self.s1, self.s2 = float(c.s1), float(c.s2)
        self.contact_velocity = 0.0
        self._previous_velocity = 0.0
        self._slope = -1.0
        self.multiplier = np.nan
        self.iterations = 0

        # the contact multiplier block and the saddle-point solver
        kernel = None if c.kernel == "exact" else get_kernel(c.kernel)
        self.constraints = PointConstraints(
            [V, V], 1 if c.contact else 0, self.locator, kernel=kernel, bcs=[self.bcs, self.bcs]
        )
        self._stacked = block_diagonal([self.A, self.A])
        TwoStrings._count += 1
        self.problem = SaddlePointProblem(
            self._stacked,
            self.constraints,
            petsc_options_prefix=f"fe_rodcontact_strings_{TwoStrings._count}_",
            method=c.solver,
        )
        if c.contact:
            self.constraints.update(self._terms(self.s1, self.s2))
        self.problem.update()

        # outputs: Fourier coefficient, probes, snapshot ordering
        # ∫ u sin(2πx/L) dx with sin interpolated in degree + 3 (error O(h^(p+4)))
        high = fem.functionspace(self.mesh, ("Lagrange", c.degree + 3))
        sine = fem.Function(high)
        sine.x.array[:] = np.sin(2.0 * np.pi * self.locator.dof_parameters(high) / c.length)
        weights = fem_petsc.assemble_vector(fem.form(sine * test * ufl.dx))
        weights.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        self._fourier = (2.0 / c.length) * weights.getArray().copy()
        weights.destroy()
        self.probes = np.asarray(c.probes, dtype=np.float64)
        self._probe_block = None
        if self.probes.size:
            self._probe_block = PointConstraints([V], self.probes.size, self.locator)
            self._probe_block.update([PointTerm(j, 0, float(p)) for j, p in enumerate(self.probes)])
        gathered = comm.gather(params[: self._n], root=0)
        if comm.rank == 0:
            assert gathered is not None
            allp = np.concatenate(gathered)
            self._order = np.argsort(allp, kind="stable")
            self.nodes = allp[self._order]
        else:
            self._order = np.zeros(0, dtype=np.int64)
            self.nodes = np.zeros(0)

    _count = 0

    # -- small helpers ---------------------------------------------------------------------
    def _terms(self, s1: float, s2: float) -> list[PointTerm]:
        """The rolling constraint u_t(s1) − F v_t(s2) = 0 as point terms."""
        return [PointTerm(0, 0, s1), PointTerm(0, 1, s2, (-self.config.F,))]

    def _dot(self, a: FloatArray, b: FloatArray) -> float:
        return float(self.comm.allreduce(float(np.dot(a, b)), op=MPI.SUM))

    def _apply(self, mat: object, fn: fem.Function) -> FloatArray:
        out = mat.createVecLeft()  # type: ignore[attr-defined]
        mat.mult(fn.x.petsc_vec, out)  # type: ignore[attr-defined]
        arr = out.getArray().copy()
        out.destroy()
        return arr

    # -- observables -----------------------------------------------------------------------
    def energy(self) -> float:
        """Discrete energy ½ wᵀMw + ½ uᵀKu + ½ zᵀMz + ½ vᵀKv."""
        n = self._n
        total = 0.0
        for disp, vel in ((self.u, self.w), (self.v, self.z)):
            total += 0.5 * np.dot(vel.x.array[:n], self._apply(self.M, vel))
            total += 0.5 * np.dot(disp.x.array[:n], self._apply(self.K, disp))
        return float(self.comm.allreduce(total, op=MPI.SUM))

    def u_hat1(self) -> float:
        """First Fourier sine coefficient (2/L)∫u sin(2πx/L) dx of the FE function u."""
        return self._dot(self._fourier, self.u.x.array[: self._n])

    def probe_values(self) -> FloatArray:
        """Return u at the probe points (collective)."""
        if self._probe_block is None:
            return np.zeros(0)
        return self._probe_block.evaluate([self.u.x.array])

    def constraint_residual(self, velocities: tuple[FloatArray, FloatArray] | None = None) -> float:
        """|b1(s1*)·W − F b2(s2*)·Z| of the last step (or of given local velocity arrays)."""
        if not self.config.contact:
            return 0.0
        arrays = velocities or (self._W.x.array, self._Z.x.array)
        return float(abs(self.constraints.residual(list(arrays))[0]))

    def snapshot(self) -> tuple[FloatArray, FloatArray]:
        """Return u and v at the sorted dof nodes (on rank 0; empty elsewhere)."""
        out = []
        for fn in (self.u, self.v):
            parts = self.comm.gather(fn.x.array[: self._n].copy(), root=0)
            out.append(np.concatenate(parts)[self._order] if parts is not None else np.zeros(0))
        return out[0], out[1]

    # -- time stepping ---------------------------------------------------------------------
    def step(self) -> None:
        """Advance one time step (collective).

        Raises:
            ConvergenceError: If the contact-point iteration does not converge.
            InputError: If a contact point leaves a string with fixed ends.
        """
        c = self.config
        n, dt = self._n, c.dt
        rhs = []
        for disp, vel in ((self.u, self.w), (self.v, self.z)):
            f = self._apply(self.M, vel) - 0.5 * dt * self._apply(self.K, disp)
            f[self._bc_owned] = 0.0
            rhs.append(f)
        rhs_stacked = np.concatenate(rhs)
        s1n, s2n = self.s1, self.s2
        # The midpoint contact positions s* depend on one scalar, the contact velocity q:
        # s_i* = s_iⁿ + Δt/2 G_i q. Solve q = Φ(q) := b1(s1*(q))·W(q) by the secant method,
        # starting from the extrapolated velocity of the previous steps.
        q = 2.0 * self.contact_velocity - self._previous_velocity
        g_max = max(abs(c.G1), abs(c.G2), 1e-300)
        tol = c.s_tol * c.length
        history: list[tuple[float, float]] = []
        converged, change, it = False, np.inf, 0
        for it in range(1, c.max_iterations + 1):
            if c.contact:
                s1m, s2m = s1n + 0.5 * dt * c.G1 * q, s2n + 0.5 * dt * c.G2 * q
                self.constraints.update(self._terms(s1m, s2m))
                self.problem.update()
            x, mu = self.problem.solve(rhs_stacked)
            self._W.x.array[:n] = x[:n]
            self._Z.x.array[:n] = x[n:]
            self._W.x.scatter_forward()
            self._Z.x.scatter_forward()
            if not c.contact:
                converged, q, mu = True, 0.0, np.array([np.nan])
                break
            phi = float(self.constraints.evaluate([self._W.x.array, self._Z.x.array])[0])
            residual = phi - q
            change = 0.5 * dt * g_max * abs(residual)  # mismatch of the midpoint positions
            history.append((q, residual))
            if change <= tol:
                q = phi
                converged = True
                break
            if len(history) >= 2 and history[-1][1] != history[-2][1]:
                (q0, r0), (q1, r1) = history[-2], history[-1]
                self._slope = (r1 - r0) / (q1 - q0)
            q = q - residual / self._slope  # slope dr/dq of the previous secant (−1 at first)
        if not converged:
            raise ConvergenceError(
                f"contact-point iteration did not converge in {c.max_iterations} iterations at "
                f"t = {self.time_step * dt:g} (last change {change:.3e}); reduce dt"
            )
        if c.contact:
            self.s1, self.s2 = s1n + dt * c.G1 * q, s2n + dt * c.G2 * q
        self._previous_velocity = self.contact_velocity
        self.contact_velocity = q
        self.multiplier = 2.0 * float(mu[0]) / dt if c.contact else np.nan
        self.iterations = it
        for disp, vel, mid in ((self.u, self.w, self._W), (self.v, self.z, self._Z)):
            disp.x.array[:] += dt * mid.x.array
            vel.x.array[:] = 2.0 * mid.x.array - vel.x.array
        self.time_step += 1
        if c.contact and c.bc == "fixed":
            outside = [s for s in (self.s1, self.s2) if not 0.0 <= s <= c.length]
            raise_collectively(
                self.comm,
                None
                if not outside
                else f"contact point s = {outside[0]!r} left the string at t = {self.time:g}",
                ConvergenceError,
            )

    @property
    def time(self) -> float:
        """Current time (step count × dt)."""
        return self.time_step * self.config.dt

    def run(self, progress: bool = False) -> StringsResult:
        """Integrate to ``t_end`` recording outputs every ``output_steps`` steps."""
        c = self.config
        every = c.output_steps
        records: dict[str, list] = {k: [] for k in StringsResult.TIME_SERIES}
        u_field, v_field, iterations = [], [], []

        def record() -> None:
            records["t"].append((self.time_step // every) * c.interval)
            records["s1"].append(self.s1)
            records["s2"].append(self.s2)
            records["multiplier"].append(self.multiplier)
            records["energy"].append(self.energy())
            records["u_hat1"].append(self.u_hat1())
            records["u_probe"].append(self.probe_values())
            if c.snapshots:
                u, v = self.snapshot()
                u_field.append(u)
                v_field.append(v)

        record()
        for k in range(1, c.num_steps + 1):
            self.step()
            signum = stop_requested(self.comm)
            if signum:
                raise Interrupted(
                    signum,
                    f"stopped by {signal.Signals(signum).name} at t = {self.time:.6g} (step {k} "
                    f"of {c.num_steps}); nothing was written: the strings model has no restart.",
                )
            iterations.append(self.iterations)
            if k % every == 0:
                record()
            if progress and self.comm.rank == 0 and k % max(1, c.num_steps // 20) == 0:
                print(f"  t = {self.time:9.4f}  s1 = {self.s1:.6f}  s2 = {self.s2:.6f}", flush=True)
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in records.items()}
        arrays["u_probe"] = arrays["u_probe"].reshape(len(records["t"]), self.probes.size)
        return StringsResult(
            **arrays,
            probes=self.probes.copy(),
            x=self.nodes.copy(),
            u_field=np.asarray(u_field) if c.snapshots and self.comm.rank == 0 else np.zeros(0),
            v_field=np.asarray(v_field) if c.snapshots and self.comm.rank == 0 else np.zeros(0),
            iterations=np.asarray(iterations, dtype=np.int64),
            config=c,
        )

    def destroy(self) -> None:
        """Free the PETSc objects (collective)."""
        self.problem.destroy()
        for mat in (self.M, self.K, self.A, self._stacked):
            mat.destroy()


def run_strings(
    config: StringsConfig, comm: MPI.Comm = MPI.COMM_WORLD, progress: bool = False
) -> StringsResult:
    """Build the model for ``config``, integrate to ``t_end`` and free it.

    With ``progress``, rank 0 prints the time and the contact points 20 times during the run.
    """
    model = TwoStrings(config, comm)
    try:
        return model.run(progress=progress)
    finally:
        model.destroy()
