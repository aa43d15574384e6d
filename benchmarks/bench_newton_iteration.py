"""Cost of one Newton iteration of a Cosserat rod next to a bare DOLFINx assemble + LU solve.

Performance target: one Newton iteration of a single geometrically exact rod should
cost at most 1.3 times a bare DOLFINx assemble + LU solve of a linear system of the same size,
for 1e3, 1e4 and 1e5 elements.

What is timed
-------------
**Rod, one Newton iteration** - exactly the work of one iteration of the default SNES
(``newtonls`` with the ``basic`` line search, see
:func:`fe_rodcontact.stepping.statics.default_newton_options`), driven through the callbacks that
:class:`~fe_rodcontact.solvers.newton.NewtonProblem` registered on the SNES of a
:class:`~fe_rodcontact.stepping.statics.StaticProblem`:

1. ``snes.computeJacobian(x, A)``: zero A, assemble with Dirichlet rows, ``MatAssembly``
   (x is the vector the residual was last evaluated at, so u and the packed coefficients
   already hold it, as in SNES);
2. ``ksp.solve(F, dx)``: KSP ``preonly`` + PC ``lu`` (PETSc's own LU in serial): numeric
   LU factorisation and the two triangular solves (the symbolic factorisation is reused, as
   SNES reuses it: the sparsity pattern does not change);
3. ``x ← x − dx`` (the basic line search), then ``snes.computeFunction(x, F)``: ghost
   update, copy x into the state Function and into the state columns of the packed
   coefficients, assemble, lifting, Dirichlet values; i.e. the residual at the new iterate
   that the line search evaluates.

So one iteration = one Jacobian assembly + one LU factor/solve + one residual assembly,
which is what each SNES iteration costs apart from a few vector norms. The iteration starts
from a non-trivial state (the converged state at load factor 0.1, then load factor 0.2), so
the rotation increment θ is non-zero and all kernel branches are the realistic ones. As a
cross-check, the column ``SNES ms/it`` gives the marginal cost of one iteration inside a real
``SNESSolve`` (via :meth:`StaticProblem.solve_at` with tolerances 0 and ``max_it`` = 1 and
3: [T(3) − T(1)] / 2), which includes SNES's norms, convergence tests and Python callbacks.

**Bare DOLFINx** - on the same mesh, the same space (Lagrange Pp with ``shape=(6,)``: same
dof count, block size and sparsity pattern) and the same clamped-end Dirichlet dofs: the
linear forms a(u, v) = ∫ C∇u:∇v + Cu·v dx and L(v) = ∫ f·v dx, assembled with
``dolfinx.fem.petsc.assemble_matrix`` (+ ``MatAssembly``), ``assemble_vector`` +
``apply_lifting`` + ``set_bc``, and solved with the same KSP/PC options (preonly + LU,
symbolic factorisation reused). C = I + (all ones)/6 couples the six components, so every
6×6 block is numerically full like the rod's tangent. Without it (``--decoupled-bare``: the
plain ∫ ∇u:∇v + u·v dx) five of six entries of each block are exact zeros that PETSc's LU
skips (it tests each multiplier for zero), and the bare LU is about 30 % cheaper than LU of
any coupled system with the same pattern, which would bias the ratio against the rod.

Both are measured in the same process, interleaved (rod, bare, rod, bare, ... for every
size in every repeat), after an untimed warm-up call that excludes JIT compilation, loading
of the compiled kernels and the symbolic factorisation. Each reported time is the median
over ``--repeats`` repeats. Every measurement is taken on two clocks and the tables are
printed for both: wall clock (``time.perf_counter``), the quantity of the target on an idle
machine, and the CPU time of the process (``time.process_time``; everything here is
single-threaded), which is what to read on a shared machine where other processes inflate
the wall clock.

How to read the ratio
---------------------
``ratio = rod ms/iteration / bare ms``. 1.0 means a rod Newton iteration is as cheap as
assembling and LU-solving a linear system with the same size and sparsity; the target is
<= 1.3. Read the CPU-time table on a busy machine. The breakdown table splits both into
Jacobian/matrix assembly, LU (factor + solve) and residual/vector assembly. The LU columns
should agree (same pattern, numerically full blocks); the rod's excess is then in its
assembly columns: the generated element kernels (UFL/FFCx) and the refresh of the state
columns in the packed coefficients (the rotations and curvatures at the quadrature points
and the stiffnesses are packed once per solve, not in every callback as DOLFINx's
``NonlinearProblem`` does). ``SNES ms/it`` close to
``rod ms/it`` confirms that the three callbacks are the whole cost of an SNES iteration.

Memory per element
------------------
Resident-set size (``VmRSS`` of ``/proc/self/status``): in a fresh subprocess per size and
model, after imports and an untimed warm-up at 10 elements (JIT modules and PETSc already
loaded), VmRSS is read before building the mesh and the problem and again after the first
Newton iteration (so the Jacobian, vectors and the LU factors are allocated), with
``gc.collect()`` before each reading. (difference) / (elements) is reported in kB per element
(``tracemalloc`` does not see PETSc's or DOLFINx's C++ allocations); the 1e3 row is the
least precise (a few MB against page and allocator granularity).

Usage (serial; the ratio is defined for the serial LU)::

    python benchmarks/bench_newton_iteration.py --sizes 1000 10000 100000 --repeats 7
    python benchmarks/bench_newton_iteration.py --degrees 1 2 --sizes 1000 10000

No assertions: this reports numbers, it does not test them.
"""

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mpi4py import MPI

import fe_rodcontact  # noqa: F401  (loads the wheel's MPI/PETSc libraries before petsc4py)

# isort: split

from petsc4py import PETSc

import basix.ufl
import dolfinx.fem
import dolfinx.fem.petsc
import dolfinx.la.petsc
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import EndMoment, Support
from fe_rodcontact.rods.mesh import RodMesh, create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.statics import StaticProblem, default_newton_options

SECTION = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=2, EI2=2, GJ=1.5)
MOMENT = (0.0, 0.3, 1.0)
START_LOAD, ITERATION_LOAD = 0.1, 0.2
SNES_ITERATIONS = (1, 3)
CLOCKS = ("wall clock (perf_counter)", "CPU time of the process (process_time)")

Times = npt.NDArray[np.float64]
"""[wall, cpu] seconds of one measurement."""


def rss_bytes() -> int:
    """The resident-set size of this process (VmRSS), in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


def make_rods(elements: int, degree: int) -> RodMesh:
    """The straight 10-long rod of the benchmark."""
    return create_rod_mesh(
        MPI.COMM_WORLD, [straight((0, 0, 0), (10, 0, 0))], elements=elements, degree=degree
    )


def timed(action: Callable[[], None]) -> Times:
    """Seconds of one call: [wall clock, CPU time of this process]."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return np.array([time.perf_counter() - wall, time.process_time() - cpu])


class RodIteration:
    """A rod StaticProblem and one Newton iteration through its SNES callbacks.

    Args:
        rods: The rod mesh.
        require_converged: Raise when the start load does not converge. With ``False`` the
            iterations are timed from the last iterate (an iteration's cost — assembly, LU,
            residual — does not depend on the state): at 10⁶ elements the 10-long rod's
            Newton stalls at a residual of 1.4e-4, far above its absolute tolerance 5e-9,
            the stiffness matrix of h = 1e-5 elements being too ill-conditioned for the LU.
        whole_solves: Warm up whole SNES solves of a fixed number of iterations
            (:meth:`snes_iterations`, which raises when SNES stops early). ``False`` where
            only :meth:`iteration` is timed: from a start that did not converge, SNES may stop
            early (at 10⁶ elements the solve check rejected a linear solve of the stalled
            state), which does not matter to one iteration through the callbacks.
    """

    def __init__(self, rods: RodMesh, require_converged: bool = True, whole_solves: bool = True):
        self.rod = CosseratRod(rods, SECTION)
        self.problem = StaticProblem(
            self.rod,
            [Support.clamped(0, "start")],
            [EndMoment(0, "end", MOMENT)],
            petsc_options_prefix=f"bench_rod_{id(self)}_",
        )
        converged, _ = self.problem.solve_at(START_LOAD)  # first call: kernels loaded
        self.start_converged = bool(converged)
        if not converged and require_converged:
            raise RuntimeError("benchmark rod did not converge at the start load")
        self.start_state = self.rod.state.x.array.copy()
        snes = self.problem.solver
        self.snes = snes
        self.F = snes.getFunction()[0]
        self.A = snes.getJacobian()[0]
        self.ksp = snes.getKSP()
        self.ksp.setOperators(self.A, self.A)
        self.x = self.F.duplicate()
        self.dx = self.F.duplicate()
        self.problem.solve_at(ITERATION_LOAD)  # sets the supports/load for ITERATION_LOAD
        self.iteration()  # warm-up: untimed
        if whole_solves:
            self.snes_iterations(SNES_ITERATIONS[0])

    def reset(self) -> None:
        """Back to the start state; x and F(x) as SNES has them before an iteration."""
        self.rod.state.x.array[:] = self.start_state
        dolfinx.fem.petsc.assign(self.rod.state, self.x)
        self.snes.computeFunction(self.x, self.F)

    def iteration(self) -> tuple[Times, Times, Times]:
        """One Newton iteration from the start state: (Jacobian, LU, residual) seconds."""
        self.reset()
        t_jacobian = timed(lambda: self.snes.computeJacobian(self.x, self.A, self.A))
        t_solve = timed(lambda: self.ksp.solve(self.F, self.dx))

        def update_and_residual() -> None:
            self.x.axpy(-1.0, self.dx)
            self.snes.computeFunction(self.x, self.F)

        t_residual = timed(update_and_residual)
        return t_jacobian, t_solve, t_residual

    def snes_iterations(self, iterations: int) -> Times:
        """Seconds of a full SNESSolve limited to ``iterations`` Newton iterations."""
        self.rod.state.x.array[:] = self.start_state
        self.snes.setTolerances(rtol=0.0, atol=0.0, stol=0.0, max_it=iterations)
        seconds = timed(lambda: self.problem.solve_at(ITERATION_LOAD))
        if self.snes.getIterationNumber() != iterations:
            raise RuntimeError(
                f"SNES ran {self.snes.getIterationNumber()} of the {iterations} iterations "
                f"requested (SNES reason {self.snes.getConvergedReason()})"
            )
        return seconds

    def snes_marginal(self) -> Times:
        """Marginal seconds per Newton iteration inside SNESSolve."""
        few, many = SNES_ITERATIONS
        return (self.snes_iterations(many) - self.snes_iterations(few)) / (many - few)


class BareIteration:
    """A linear DOLFINx problem on the rod's mesh and space: assemble + LU solve."""

    def __init__(self, rods: RodMesh, coupled: bool = True):
        mesh = rods.mesh
        V = dolfinx.fem.functionspace(
            mesh, basix.ufl.element("Lagrange", mesh.basix_cell(), rods.degree, shape=(6,))
        )
        u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
        f = dolfinx.fem.Constant(mesh, np.array([1.0, 0.5, 0.2, 0.1, 0.3, 0.4]))
        if coupled:  # C = I + (all ones)/6: SPD, every entry non-zero
            coupling = dolfinx.fem.Constant(mesh, np.eye(6) + np.full((6, 6), 1 / 6))
            grad_u, u_c = coupling * ufl.grad(u), coupling * u
        else:
            grad_u, u_c = ufl.grad(u), u
        self.a = dolfinx.fem.form(
            ufl.inner(grad_u, ufl.grad(v)) * ufl.dx + ufl.inner(u_c, v) * ufl.dx
        )
        self.L = dolfinx.fem.form(ufl.inner(f, v) * ufl.dx)
        start = rods.end_vertices(0, "start")
        dofs = dolfinx.fem.locate_dofs_topological(V, 0, start)
        zero = dolfinx.fem.Function(V)
        self.bcs = [dolfinx.fem.dirichletbc(zero, dofs)]
        self.A = dolfinx.fem.petsc.create_matrix(self.a)
        self.b = dolfinx.fem.petsc.create_vector(V)
        self.x = self.b.duplicate()
        self.ksp = PETSc.KSP().create(mesh.comm)
        prefix = f"bench_bare_{id(self)}_"
        self.ksp.setOptionsPrefix(prefix)
        options = PETSc.Options()
        ksp_keys = ("ksp_type", "pc_type", "pc_factor_mat_solver_type")
        newton = default_newton_options(mesh.comm)
        for key in ksp_keys:
            options[prefix + key] = newton[key]
        self.ksp.setFromOptions()
        for key in ksp_keys:
            del options[prefix + key]
        self.ksp.setOperators(self.A)
        self.iteration()  # warm-up: untimed

    def assemble_vector(self) -> None:
        """B = L with lifting and Dirichlet values."""
        dolfinx.la.petsc._zero_vector(self.b)
        dolfinx.fem.petsc.assemble_vector(self.b, self.L)
        dolfinx.fem.petsc.apply_lifting(self.b, [self.a], bcs=[self.bcs])
        self.b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        dolfinx.fem.petsc.set_bc(self.b, self.bcs)

    def assemble_matrix(self) -> None:
        """A = a with Dirichlet rows."""
        self.A.zeroEntries()
        dolfinx.fem.petsc.assemble_matrix(self.A, self.a, bcs=self.bcs)
        self.A.assemble()

    def iteration(self) -> tuple[Times, Times, Times]:
        """Matrix assembly, LU solve and vector assembly: seconds of each."""
        t_matrix = timed(self.assemble_matrix)
        t_solve = timed(lambda: self.ksp.solve(self.b, self.x))
        t_vector = timed(self.assemble_vector)
        return t_matrix, t_solve, t_vector


@dataclass
class Samples:
    """Timings of one size and degree, one entry per repeat."""

    rod: list[tuple[Times, Times, Times]] = field(default_factory=list)
    bare: list[tuple[Times, Times, Times]] = field(default_factory=list)
    snes: list[Times] = field(default_factory=list)

    @staticmethod
    def median_parts(parts: list[tuple[Times, Times, Times]], clock: int) -> tuple[float, ...]:
        """Median total and median of each part on ``clock`` (0 wall, 1 CPU), in ms."""
        total = statistics.median(float(sum(p)[clock]) for p in parts)
        each = tuple(statistics.median(float(p[i][clock]) for p in parts) for i in range(3))
        return (1e3 * total, *(1e3 * e for e in each))


def memory_probe(kind: str, elements: int, degree: int) -> None:
    """Child process: print the RSS growth of building ``kind`` at ``elements`` (JSON)."""
    build = {
        "rod": RodIteration,
        "bare": BareIteration,
        "bare-decoupled": lambda rods: BareIteration(rods, coupled=False),
    }[kind]
    warm = build(make_rods(10, degree))  # JIT modules, PETSc code paths: loaded, not counted
    del warm
    gc.collect()
    before = rss_bytes()
    model = build(make_rods(elements, degree))  # includes the first iteration (LU factors)
    gc.collect()
    after = rss_bytes()
    print(json.dumps({"bytes": after - before}))
    del model


def measure_memory(kind: str, elements: int, degree: int) -> float:
    """KB per element of ``kind``, measured in a fresh process."""
    command = [
        sys.executable,
        __file__,
        "--memory-probe",
        kind,
        "--sizes",
        str(elements),
        "--degrees",
        str(degree),
    ]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    grown = json.loads(output.strip().splitlines()[-1])["bytes"]
    return grown / elements / 1024


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--degrees", type=int, nargs="+", default=[1], choices=(1, 2))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-snes", action="store_true", help="skip the SNESSolve cross-check")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    parser.add_argument(
        "--decoupled-bare",
        action="store_true",
        help="bare form without component coupling (diagonal 6x6 blocks: LU skips zeros)",
    )
    parser.add_argument(
        "--memory-probe", choices=("rod", "bare", "bare-decoupled"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()

    if args.memory_probe:
        memory_probe(args.memory_probe, args.sizes[0], args.degrees[0])
        return
    comm = MPI.COMM_WORLD
    if comm.size > 1 and comm.rank == 0:
        print("note: the benchmark is meant to run serially; memory is skipped in parallel")

    cases = [(degree, n) for degree in args.degrees for n in args.sizes]
    models: dict[tuple[int, int], tuple[RodIteration, BareIteration]] = {}
    for degree, n in cases:
        rods = make_rods(n, degree)
        models[degree, n] = (RodIteration(rods), BareIteration(rods, not args.decoupled_bare))
    samples = {case: Samples() for case in cases}
    for _ in range(args.repeats):
        for case in cases:  # interleaved: every size, rod then bare, in every repeat
            rod, bare = models[case]
            samples[case].rod.append(rod.iteration())
            samples[case].bare.append(bare.iteration())
            if not args.no_snes:
                samples[case].snes.append(rod.snes_marginal())

    memory: dict[tuple[int, int], tuple[float, float]] = {}
    if not args.no_memory and comm.size == 1:
        for case in cases:
            degree, n = case
            bare_kind = "bare-decoupled" if args.decoupled_bare else "bare"
            memory[case] = (measure_memory("rod", n, degree), measure_memory(bare_kind, n, degree))

    if comm.rank != 0:
        return
    print(
        f"\nmedian of {args.repeats} repeats; {comm.size} rank(s); PETSc {PETSc.Sys.getVersion()}"
    )
    for clock, clock_name in enumerate(CLOCKS):
        print_tables(models, samples, memory, clock, clock_name)


def print_tables(
    models: dict[tuple[int, int], tuple[RodIteration, BareIteration]],
    samples: dict[tuple[int, int], Samples],
    memory: dict[tuple[int, int], tuple[float, float]],
    clock: int,
    clock_name: str,
) -> None:
    """The summary and breakdown tables on one clock."""
    print(f"\n== {clock_name} ==")
    header = (
        f"{'P':>2} {'elements':>9} {'dofs':>8} {'rod ms/it':>10} {'bare ms':>9} {'ratio':>6}"
        f" {'SNES ms/it':>11} {'rod kB/el':>10} {'bare kB/el':>11}"
    )
    print(header)
    print("-" * len(header))
    for case, (rod, _) in models.items():
        degree, n = case
        dofs = rod.rod.function_space.dofmap.index_map.size_global * 6
        rod_ms = Samples.median_parts(samples[case].rod, clock)[0]
        bare_ms = Samples.median_parts(samples[case].bare, clock)[0]
        snes = samples[case].snes
        snes_ms = (
            f"{1e3 * statistics.median(float(t[clock]) for t in snes):11.2f}"
            if snes
            else f"{'-':>11}"
        )
        rod_kb, bare_kb = memory.get(case, (float("nan"), float("nan")))
        print(
            f"{degree:>2} {n:>9} {dofs:>8} {rod_ms:>10.2f} {bare_ms:>9.2f} {rod_ms / bare_ms:>6.2f}"
            f" {snes_ms} {rod_kb:>10.2f} {bare_kb:>11.2f}"
        )
    print(
        "breakdown, median ms: rod = Jacobian + LU + update/residual; bare = matrix + LU + vector"
    )
    header = (
        f"{'P':>2} {'elements':>9} {'rod J':>9} {'rod LU':>9} {'rod F':>9}"
        f" {'bare A':>9} {'bare LU':>9} {'bare b':>9}"
    )
    print(header)
    print("-" * len(header))
    for case in models:
        degree, n = case
        _, j, lu, res = Samples.median_parts(samples[case].rod, clock)
        _, a, blu, b = Samples.median_parts(samples[case].bare, clock)
        print(
            f"{degree:>2} {n:>9} {j:>9.2f} {lu:>9.2f} {res:>9.2f} {a:>9.2f} {blu:>9.2f} {b:>9.2f}"
        )


if __name__ == "__main__":
    main()
