"""Bad inputs give one line that names the input, a documented exit code, no traceback.

Every case runs the command in-process (``fe_rodcontact.cli.main``), so the suite is cheap
and runs unchanged serially and under ``mpiexec -n 2`` (all of them on 2 ranks: a hang there
fails the MPI run of the suite, which has a timeout in tests/test_faults.py's subprocess runs
and in CI). Exit codes: 2 bad input (argparse also exits 2 for a bad flag).
"""

import re
import shutil

from mpi4py import MPI

import numpy as np
import pytest

from fe_rodcontact.cli import main

STATICS = """
[[rods]]
name = "beam"
curve = "straight"
start = [0, 0, 0]
end = [1, 0, 0]
elements = 4

[section]
radius = 0.01
E = 1e9
nu = 0.3

[[supports]]
rod = "beam"
end = "start"

[[loads]]
type = "end_force"
rod = "beam"
end = "end"
force = [0, 1, 0]

[output]
vtx = false
vtu = false
plot = false
"""

DYNAMICS = """
[[rods]]
name = "beam"
curve = "straight"
start = [0, 0, 0]
end = [1, 0, 0]
elements = 4

[section]
EA = 1e3
GA1 = 1e3
GA2 = 1e3
EI1 = 1.0
EI2 = 1.0
GJ = 1.0
rhoA = 1.0
rhoI1 = 0.01
rhoI2 = 0.01
rhoJ = 0.02

[[loads]]
type = "end_force"
rod = "beam"
end = "end"
force = [0.0, 1.0, 0.0]
history = "heaviside(0.5 - t)"

[time]
t_end = 0.2
dt = 0.1

[output]
vtx_every = 0
"""

ROLLING = """
[[rods]]
name = "rod"
curve = "straight"
start = [-0.0084524, -0.2, 0.0181262]
end = [-0.0084524, 0.2, 0.0181262]
elements = 4

[section]
radius = 0.02
E = 1e7
nu = 0.3
density = 1000.0

[[loads]]
type = "gravity"

[time]
t_end = 0.02
dt = 0.01

[contact]
model = "rolling"
margin = 0.005
self_contact = false
touch_tolerance = 1e-5

[[contact.obstacles]]
type = "plane"
normal = [-0.42262, 0.0, 0.90631]
name = "slope"

[output]
vtx_every = 1
checkpoint_every = 1
"""

POTENTIAL = """
[[rods]]
name = "rod"
curve = "straight"
start = [-0.0093, 0.0, 0.01994]
end = [0.44386, 0.0, 0.23125]
elements = 4

[section]
radius = 0.02
E = 1e7
nu = 0.3
density = 1000.0

[time]
t_end = 0.002
dt = 0.001

[contact]
margin = 0.005
law = { name = "repulsive", coefficient = 3e-21, exponent = 8 }
damping = { coefficient = 4e-20, exponent = 8 }
friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }

[[contact.obstacles]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [-0.42262, 0.0, 0.90631]
name = "slope"

[output]
vtx_every = 0
"""

TWO_RODS = """
[[rods]]
name = "a"
curve = "straight"
start = [0, 0, 0]
end = [1, 0, 0]
elements = 4

[[rods]]
name = "b"
curve = "straight"
start = [0.5, -0.5, 0.05]
end = [0.5, 0.5, 0.05]
elements = 4

[section]
radius = 0.02
E = 1e7
nu = 0.3
density = 1000.0

[time]
t_end = 0.002
dt = 0.001

[contact]
margin = 0.005

[output]
vtx_every = 0
"""

# (id, base case, (old, new) replacement or text to append, message pattern)
STATICS_CASES = [
    ("toml-syntax", STATICS, ("elements = 4", "elements = = 4"), r"case.toml: not valid TOML"),
    ("unknown-top-key", STATICS, ("[[rods]]", "colour = 'red'\n[[rods]]"), r"unknown key colour"),
    ("unknown-rod-key", STATICS, ("elements = 4", "elements = 4\nlenght = 2"), r"rods\[0\]\.lenght"),
    ("elements-string", STATICS, ("elements = 4", "elements = 'four'"), r"rods\[0\]\.elements must"),
    ("start-2d", STATICS, ("start = [0, 0, 0]", "start = [0, 0]"), r"rods\[0\]\.start must be a"),
    ("unknown-curve", STATICS, ('curve = "straight"', 'curve = "spiral"'), r"unknown curve 'spiral'"),
    ("arc-no-angle", STATICS, ('curve = "straight"', 'curve = "arc"\nradius = 1.0'), r"needs \['angle'\]"),
    ("no-section", STATICS, ("[section]\nradius = 0.01\nE = 1e9\nnu = 0.3", ""), r"rods\[0\] has no section"),
    ("E-and-EA", STATICS, ("nu = 0.3", "nu = 0.3\nEA = 1.0"), r"section: give either E"),
    ("general-incomplete", STATICS, ("radius = 0.01\nE = 1e9\nnu = 0.3", "EA = 1.0"), r"section: give radius and E"),
    ("no-radius", STATICS, ("radius = 0.01\n", ""), r"section: a circular section needs radius"),
    ("negative-E", STATICS, ("E = 1e9", "E = -1e9"), r"section: circular section needs radius > 0 and E > 0"),
    ("bad-nu", STATICS, ("nu = 0.3", "nu = 0.7"), r"nu must lie in"),
    ("support-kind", STATICS, ('end = "start"', 'end = "start"\nkind = "glued"'), r"unknown support kind 'glued'"),
    ("support-end", STATICS, ('end = "start"', 'end = "middle"'), r"'start' or 'end'"),
    ("support-rod", STATICS, ('rod = "beam"\nend = "start"', 'rod = "bean"\nend = "start"'), r"supports\[0\]\.rod: unknown rod 'bean'"),
    ("support-index", STATICS, ('rod = "beam"\nend = "start"', 'rod = 3\nend = "start"'), r"supports\[0\]\.rod: rod index 3 out of range"),
    ("load-type", STATICS, ('type = "end_force"', 'type = "push"'), r"unknown load type 'push'"),
    ("load-rod", STATICS, ('rod = "beam"\nend = "end"', 'rod = "arm"\nend = "end"'), r"loads\[0\]: unknown rod 'arm'"),
    ("load-no-force", STATICS, ("force = [0, 1, 0]", ""), r"loads\[0\]: load type 'end_force' needs \['force'\]"),
    ("load-force-text", STATICS, ("force = [0, 1, 0]", "force = 'up'"), r"loads\[0\]\.force must be"),
    ("rods-and-mesh", STATICS, "[mesh]\nfile = 'x.msh'\n", r"either as \[\[rods\]\] tables or as \[mesh\]\.file"),
    ("no-rods", "[section]\nradius = 0.01\nE = 1e9\nnu = 0.3\n", "", r"no rods: add \[\[rods\]\]"),
    ("free-rod", STATICS, ('[[supports]]\nrod = "beam"\nend = "start"', ""), r"rod 'beam' can move rigidly"),
    ("pinned-pinned", STATICS, ('end = "start"', 'end = "start"\nkind = "pinned"\n[[supports]]\nrod = "beam"\nend = "end"\nkind = "pinned"'), r"rod 'beam' can move rigidly \(1 free motion"),
    ("min-step", STATICS, "[solver]\nmin_step = 0.5\n", r"load stepping needs 0 < min_step"),
    ("grow", STATICS, "[solver]\ngrow = 0.5\n", r"grow factor must be >= 1"),
    ("petsc-type", STATICS, "[solver]\npetsc_options = {snes_type = 'nosuchsolver'}\n", r"petsc_options: PETSc rejected .*nosuchsolver"),
    ("petsc-name", STATICS, "[solver]\npetsc_options = {snes_rtoll = 1e-8}\n", r"petsc_options: \['snes_rtoll'\] not used"),
    ("petsc-value", STATICS, "[solver]\npetsc_options = {snes_max_it = 'many'}\n", r"petsc_options: PETSc rejected .*snes_max_it"),
    ("output-type", STATICS, ("plot = false", "plot = 'no'"), r"output\.plot must be true or false"),
]  # fmt: skip

DYNAMICS_CASES = [
    ("no-time", DYNAMICS, ("[time]\nt_end = 0.2\ndt = 0.1", ""), r"missing key time"),
    ("t-end", DYNAMICS, ("t_end = 0.2", "t_end = -1.0"), r"time: t_end must be a positive number"),
    ("t-end-inf", DYNAMICS, ("t_end = 0.2", "t_end = inf"), r"time: t_end must be a positive number, got inf"),
    ("vtx-every-negative", DYNAMICS, ("vtx_every = 0", "vtx_every = -1"), r"output: vtx_every must be >= 0"),
    ("checkpoint-every-negative", DYNAMICS, ("vtx_every = 0", "vtx_every = 0\ncheckpoint_every = -5"), r"output: checkpoint_every must be >= 0"),
    ("dt-zero", DYNAMICS, ("dt = 0.1", "dt = 0.0"), r"time step dt must be positive"),
    ("min-dt", DYNAMICS, ("dt = 0.1", "dt = 0.1\nmin_dt = 1.0"), r"min_dt must lie in \(0, dt\]"),
    ("integrator", DYNAMICS, ("dt = 0.1", "dt = 0.1\nintegrator = 'euler'"), r"integrator 'euler' unknown"),
    ("mass", DYNAMICS, ("dt = 0.1", "dt = 0.1\nmass = 'heavy'"), r"mass must be 'consistent' or 'lumped'"),
    ("history-syntax", DYNAMICS, ('history = "heaviside(0.5 - t)"', 'history = "t +"'), r"loads\[0\]\.history: expression 't \+': invalid syntax"),
    ("history-name", DYNAMICS, ('history = "heaviside(0.5 - t)"', 'history = "sin(w*t)"'), r"loads\[0\]\.history: .*unknown name 'w'"),
    ("history-code", DYNAMICS, ('history = "heaviside(0.5 - t)"', "history = \"__import__('os')\""), r"loads\[0\]\.history: .*only these functions"),
    ("history-overflow", DYNAMICS, ('history = "heaviside(0.5 - t)"', 'history = "9**9**9"'), r"loads\[0\]\.history at t = .*overflows"),
    ("history-log", DYNAMICS, ('history = "heaviside(0.5 - t)"', 'history = "log(-1 - t)"'), r"loads\[0\]\.history at t = .*invalid value"),
    ("velocity-two", DYNAMICS, "[initial]\nvelocity = ['0', '1']\n", r"initial\.velocity needs three expressions"),
    ("velocity-name", DYNAMICS, "[initial]\nvelocity = ['0', 'q', '0']\n", r"initial\.velocity\[1\]: expression 'q': unknown name"),
    ("velocity-attr", DYNAMICS, "[initial]\nvelocity = ['x.real', '0', '0']\n", r"initial\.velocity\[0\]: .*Attribute is not allowed"),
    ("output-every", DYNAMICS, ("vtx_every = 0", "vtx_every = 'often'"), r"output\.vtx_every must be an integer"),
]  # fmt: skip

# Every key of [contact] with a bad value: one line naming the key (contact.<key>, or the table
# "contact:" for the model's and the scene's own arguments) and the fix.
LAW = 'law = { name = "repulsive", coefficient = 3e-21, exponent = 8 }'
DAMPING = "damping = { coefficient = 4e-20, exponent = 8 }"
FRICTION = "friction = { friction_coefficient = 0.3, regularization_velocity = 1e-3 }"
PLANE = 'type = "plane"\npoint = [0.0, 0.0, 0.0]\nnormal = [-0.42262, 0.0, 0.90631]'
CYLINDER = 'type = "cylinder"\npoint = [0.0, 0.0, -1.0]\naxis = [0, 1, 0]\nradius = 1.0'
SLOPE = f'[[contact.obstacles]]\n{PLANE}\nname = "slope"'
ROD_LAW = 'rod_law = { name = "repulsive", coefficient = 1e-12, exponent = 8 }'
MARGIN = "margin = 0.005"
TOUCH = "touch_tolerance = 1e-5"
CONTACT_CASES = [
    ("model", POTENTIAL, (MARGIN, 'model = "magnetic"\n' + MARGIN), r"contact: model 'magnetic' unknown"),
    ("margin-negative", POTENTIAL, (MARGIN, "margin = -1.0"), r"contact: margin must be positive, got -1\.0; take a fraction"),
    ("margin-nan", POTENTIAL, (MARGIN, "margin = nan"), r"contact: margin must be finite"),
    ("centreline", POTENTIAL, (MARGIN, MARGIN + "\ncentreline = 'wiggly'"), r"contact: unknown centreline 'wiggly'"),
    ("self-contact", POTENTIAL, (MARGIN, MARGIN + "\nself_contact = 'yes'"), r"contact\.self_contact must be true or false"),
    ("output-every", POTENTIAL, (MARGIN, MARGIN + "\noutput_every = -1"), r"contact: output_every must be an integer >= 0"),
    ("pairs-word", TWO_RODS, (MARGIN, MARGIN + "\npairs = 'some'"), r"contact: pairs must be 'all' or a list"),
    ("pairs-one-name", TWO_RODS, (MARGIN, MARGIN + '\npairs = [["a"]]'), r"contact: pairs\[0\] must name two rods"),
    ("pairs-three-names", TWO_RODS, (MARGIN, MARGIN + '\npairs = [["a", "b", "a"]]'), r"contact: pairs\[0\] must name two rods"),
    ("pairs-unknown-rod", TWO_RODS, (MARGIN, MARGIN + '\npairs = [["a", "c"]]'), r"contact\.pairs\[0\]: .*unknown rod 'c'"),
    ("pairs-twice", TWO_RODS, (MARGIN, MARGIN + '\npairs = [["a", "b"], ["b", "a"]]'), r"contact\.pairs\[1\]: rods 'a' and 'b' declared twice"),
    ("law-without-obstacle", TWO_RODS, (MARGIN, MARGIN + "\n" + LAW), r"contact\.law acts between the rods and obstacles, but there is no \[\[contact\.obstacles\]\]"),
    ("damping-without-obstacle", TWO_RODS, (MARGIN, MARGIN + "\n" + DAMPING), r"contact\.damping acts between the rods and obstacles"),
    ("law-missing", POTENTIAL, (LAW + "\n", ""), r"contact\.law is missing"),
    ("law-no-name", POTENTIAL, (LAW, "law = { coefficient = 3e-21 }"), r"contact\.law needs name"),
    ("law-unknown", POTENTIAL, ('name = "repulsive"', 'name = "sticky"'), r"contact\.law: unknown contact law 'sticky'"),
    ("law-friction", POTENTIAL, (LAW, 'law = { name = "coulomb", friction_coefficient = 0.3, regularization_velocity = 1e-3 }'), r"contact\.law: 'coulomb' is a CoulombFrictionLaw, not a conservative law"),
    ("law-coefficient", POTENTIAL, ("coefficient = 3e-21", "coefficient = -3e-21"), r"contact\.law: RepulsiveLaw: coefficient must be positive"),
    ("law-parameter", POTENTIAL, ("exponent = 8 }\ndamping", "exponent = 8, stiff = 1 }\ndamping"), r"contact\.law: contact law 'repulsive' has no parameter 'stiff'"),
    ("law-overflows", POTENTIAL, ("exponent = 8 }\ndamping", "exponent = 800 }\ndamping"), r"contact\.law: RepulsiveLaw overflows at gap 0\.005 \(the search margin\): its energy is inf"),
    ("damping-coefficient", POTENTIAL, (DAMPING, "damping = { coefficient = -4e-20 }"), r"contact\.damping: DampingLaw: coefficient must be positive"),
    ("damping-key", POTENTIAL, (DAMPING, "damping = { coef = 4e-20 }"), r"contact\.damping has no key 'coef'; its keys are"),
    ("damping-overflows", POTENTIAL, (DAMPING, "damping = { coefficient = 4e-20, exponent = 900 }"), r"contact\.damping: DampingLaw overflows at gap 0\.005"),
    ("friction-coefficient", POTENTIAL, ("friction_coefficient = 0.3", "friction_coefficient = -0.3"), r"contact\.friction: CoulombFrictionLaw: friction_coefficient must be non-negative"),
    ("friction-key", POTENTIAL, ("friction_coefficient = 0.3", "mu = 0.3"), r"contact\.friction has no key 'mu'"),
    ("friction-missing-key", POTENTIAL, (FRICTION, "friction = { regularization_velocity = 1e-3 }"), r"contact\.friction needs friction_coefficient"),
    ("obstacle-type", POTENTIAL, ('type = "plane"', 'type = "sphere"'), r"contact\.obstacles\[0\]: type 'sphere' unknown"),
    ("obstacle-point", POTENTIAL, ("point = [0.0, 0.0, 0.0]", "point = [nan, 0.0, 0.0]"), r"contact\.obstacles\[0\]: plane 'slope': point must be 3 finite numbers"),
    ("obstacle-normal-zero", POTENTIAL, ("normal = [-0.42262, 0.0, 0.90631]", "normal = [0, 0, 0]"), r"contact\.obstacles\[0\]: plane 'slope': normal must be a non-zero vector"),
    ("obstacle-normal-missing", POTENTIAL, ("normal = [-0.42262, 0.0, 0.90631]\n", ""), r"contact\.obstacles\[0\]: a plane needs normal"),
    ("obstacle-velocity", POTENTIAL, ('name = "slope"', 'name = "slope"\nvelocity = [inf, 0, 0]'), r"contact\.obstacles\[0\]: plane 'slope': velocity must be 3 finite"),
    ("obstacle-axis-on-plane", POTENTIAL, ('name = "slope"', 'name = "slope"\naxis = [0, 0, 1]'), r"contact\.obstacles\[0\]: axis is for a cylinder, not a plane"),
    ("obstacle-inside-on-plane", POTENTIAL, ('name = "slope"', 'name = "slope"\ninside = true'), r"contact\.obstacles\[0\]: inside is for a cylinder, not a plane"),
    ("obstacle-velocity-on-cylinder", POTENTIAL, (PLANE, CYLINDER + "\nvelocity = [1, 0, 0]"), r"contact\.obstacles\[0\]: velocity is for a plane, not a cylinder"),
    ("obstacle-cylinder-no-axis", POTENTIAL, (PLANE, 'type = "cylinder"\nradius = 1.0'), r"contact\.obstacles\[0\]: a cylinder needs axis"),
    ("obstacle-axis-zero", POTENTIAL, (PLANE, CYLINDER.replace("[0, 1, 0]", "[0, 0, 0]")), r"contact\.obstacles\[0\]: cylinder 'slope': axis must be a non-zero vector"),
    ("obstacle-radius", POTENTIAL, (PLANE, CYLINDER.replace("radius = 1.0", "radius = -1.0")), r"contact\.obstacles\[0\]: cylinder 'slope': radius must be positive"),
    ("obstacle-name", POTENTIAL, ('name = "slope"', 'name = ""'), r"contact\.obstacles\[0\]: plane name must be a non-empty string"),
    ("obstacle-twice", POTENTIAL, SLOPE, r"contact\.obstacles\[1\]: obstacle 'slope' is the surface of obstacle 'slope': its forces would count twice"),
    ("obstacle-same-plane", POTENTIAL, SLOPE.replace("[0.0, 0.0, 0.0]", "[0.90631, 0.0, 0.42262]").replace('"slope"', '"again"'), r"contact\.obstacles\[1\]: obstacle 'again' is the surface of obstacle 'slope'"),
    ("obstacle-name-twice", POTENTIAL, SLOPE.replace("[0.0, 0.0, 0.0]", "[0.0, 0.0, -1.0]"), r"contact\.obstacles\[1\]: two obstacles are named 'slope'"),
    ("obstacle-penetrated", POTENTIAL, ("normal = [-0.42262, 0.0, 0.90631]", "normal = [1.0, 0.0, 1.0]"), r"at the start, rod 'rod' has gap -0\.0124.* <= 0 to obstacle 'slope'"),
    ("rod-law-friction", TWO_RODS, (MARGIN, MARGIN + '\nrod_law = { name = "coulomb", friction_coefficient = 0.3 }'), r"contact\.rod_law: 'coulomb' is a CoulombFrictionLaw, not a conservative law; .*contact\.rod_friction"),
    ("rod-law-overflows", TWO_RODS, (MARGIN, MARGIN + "\n" + ROD_LAW.replace("exponent = 8", "exponent = 700")), r"contact\.rod_law: RepulsiveLaw overflows at gap 0\.005"),
    ("rod-damping", TWO_RODS, (MARGIN, MARGIN + "\n" + ROD_LAW + "\nrod_damping = { coefficient = -1 }"), r"contact\.rod_damping: DampingLaw: coefficient must be positive"),
    ("rod-damping-without-law", TWO_RODS, (MARGIN, MARGIN + "\nrod_damping = { coefficient = 1.0 }"), r"contact\.rod_damping and contact\.rod_friction need contact\.rod_law"),
    ("rod-friction", TWO_RODS, (MARGIN, MARGIN + "\n" + ROD_LAW + "\nrod_friction = { regularization_velocity = 1e-3 }"), r"contact\.rod_friction needs friction_coefficient"),
    ("rolling-with-law", ROLLING, (TOUCH, TOUCH + "\n" + LAW), r"contact\.law is a contact law, which model = 'rolling' does not use"),
    ("rolling-key-on-potential", POTENTIAL, (MARGIN, MARGIN + "\nunilateral = true"), r"contact\.unilateral belongs to model = 'rolling'"),
    ("unilateral", ROLLING, (TOUCH, TOUCH + "\nunilateral = 'no'"), r"contact\.unilateral must be true or false"),
    ("friction-coefficient-rolling", ROLLING, (TOUCH, TOUCH + "\nfriction_coefficient = -0.5"), r"contact: friction_coefficient must be positive"),
    ("slide-outside-cone", ROLLING, (TOUCH, TOUCH + "\nslide_outside_cone = true"), r"contact: slide_outside_cone needs a friction_coefficient"),
    ("impacts", ROLLING, (TOUCH, TOUCH + "\nimpacts = 'bounce'"), r"contact: unknown impacts treatment 'bounce'"),
    ("touch-tolerance-negative", ROLLING, (TOUCH, "touch_tolerance = -1e-5"), r"contact: touch_tolerance must be non-negative, got -1e-05"),
    ("touch-tolerance-nan", ROLLING, (TOUCH, "touch_tolerance = nan"), r"contact: touch_tolerance must be finite, got nan"),
]  # fmt: skip

STRINGS_CASES = [
    ("s1-outside", ["--s1", "100"], r"--s1 = 100\.0 lies outside the string"),
    ("dt-negative", ["--dt", "-1"], r"--dt must be a positive number"),
    ("dt-over-t-end", ["--dt", "0.5", "--t-end", "0.2"], r"--dt 0\.5 is larger than --t-end 0\.2"),
    ("t-end-multiple", ["--dt", "0.1", "--t-end", "0.25"], r"--t-end 0\.25 is not a multiple of --dt 0\.1"),
    ("u0-code", ["--u0", "open('x')"], r"expression \"open\('x'\)\": only these functions"),
    ("u0-overflow", ["--u0", "9**9**9"], r"expression '9\*\*9\*\*9': a value overflows"),
    ("u0-syntax", ["--u0", "x +"], r"expression 'x \+': invalid syntax"),
    ("v0-name", ["--v0", "sin(k*x)"], r"unknown name 'k'"),
    ("elements-zero", ["--elements", "0"], r"--elements must be a positive integer"),
    ("interval", ["--dt", "0.1", "--t-end", "1", "--output-interval", "0.25"], r"--output-interval 0\.25 must be a multiple of --dt"),
    ("length-zero", ["--length", "0"], r"--length must be a positive number"),
    ("pitch", ["--pitch", "-5", "--wav", "{tmp}/a.wav"], r"--pitch must be a positive frequency"),
    ("probe-outside", ["--probe", "7"], r"probe 7\.0 = 7\.0 lies outside the string"),
]  # fmt: skip

ARGPARSE_CASES = [
    ("unknown-flag", ["strings", "--nosuch"], r"unrecognized arguments: --nosuch"),
    ("bad-choice", ["strings", "--bc", "sideways"], r"invalid choice: 'sideways'"),
    ("probe-text", ["strings", "--probe", "1,abc"], r"expected comma-separated numbers"),
    ("dt-text", ["strings", "--dt", "fast"], r"invalid float value: 'fast'"),
    ("no-subcommand", [], r"required: command"),
    ("statics-no-case", ["statics"], r"required: case"),
]  # fmt: skip


def _write(path, content, comm):
    if comm.rank == 0:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    comm.barrier()
    return path


def _mutate(base, change):
    if isinstance(change, tuple):
        assert change[0] in base, change
        return base.replace(*change)
    return base + "\n" + change


def _check(argv, capsys, pattern, code=2):
    """Run the command in-process; the exit code, no traceback, the message on rank 0."""
    try:
        got = main([str(a) for a in argv])
    except SystemExit as exit_:  # argparse
        got = exit_.code
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert "Traceback" not in text and "Exception ignored" not in text
    assert got == code, text
    codes = MPI.COMM_WORLD.allgather(got)
    assert len(set(codes)) == 1
    if MPI.COMM_WORLD.rank == 0:
        assert re.search(pattern, text), text
        lines = [line for line in captured.err.splitlines() if line.startswith("fe-rodcontact:")]
        assert len(lines) <= 1


@pytest.mark.parametrize(("base", "change", "pattern"), [c[1:] for c in STATICS_CASES],
                         ids=[c[0] for c in STATICS_CASES])  # fmt: skip
def test_bad_statics_case(base, change, pattern, comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", _mutate(base, change), comm)
    _check(["statics", case, "--out", shared_tmp / "out", "--no-progress"], capsys, pattern)
    assert not (shared_tmp / "out" / "statics.npz").exists()


@pytest.mark.parametrize(("base", "change", "pattern"), [c[1:] for c in DYNAMICS_CASES],
                         ids=[c[0] for c in DYNAMICS_CASES])  # fmt: skip
def test_bad_dynamics_case(base, change, pattern, comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", _mutate(base, change), comm)
    _check(["dynamics", case, "--out", shared_tmp / "out", "--no-progress"], capsys, pattern)


@pytest.mark.parametrize(("base", "change", "pattern"), [c[1:] for c in CONTACT_CASES],
                         ids=[c[0] for c in CONTACT_CASES])  # fmt: skip
def test_bad_contact_table(base, change, pattern, comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", _mutate(base, change), comm)
    _check(["dynamics", case, "--out", shared_tmp / "out", "--no-progress"], capsys, pattern)


def test_statics_case_with_contact(comm, shared_tmp, capsys):
    """[contact] belongs to dynamics: the message says which command runs the case."""
    case = _write(shared_tmp / "case.toml", STATICS + "\n[contact]\nmargin = 0.01\n", comm)
    pattern = r"unknown key contact: \[contact\] is a table of dynamics cases; run this case with `fe-rodcontact dynamics`"
    _check(["statics", case, "--out", shared_tmp / "out", "--no-progress"], capsys, pattern)


@pytest.mark.parametrize(("flags", "pattern"), [c[1:] for c in STRINGS_CASES],
                         ids=[c[0] for c in STRINGS_CASES])  # fmt: skip
def test_bad_strings_flags(flags, pattern, shared_tmp, capsys):
    flags = [f.replace("{tmp}", str(shared_tmp)) for f in flags]
    _check(["strings", *flags, "--out", shared_tmp / "s.npz", "--quiet"], capsys, pattern)
    assert not (shared_tmp / "s.npz").exists()


@pytest.mark.parametrize(("argv", "pattern"), [c[1:] for c in ARGPARSE_CASES],
                         ids=[c[0] for c in ARGPARSE_CASES])  # fmt: skip
def test_bad_flags(argv, pattern, capsys):
    _check(argv, capsys, pattern)


# -- case files that are not case files -----------------------------------------------------------


def test_case_missing(shared_tmp, capsys):
    _check(["statics", shared_tmp / "nope.toml"], capsys, r"nope\.toml: no such case file")


def test_case_is_a_folder(shared_tmp, capsys):
    _check(["dynamics", shared_tmp], capsys, r"is a folder, not a case file")


def test_case_not_utf8(comm, shared_tmp, capsys):
    case = _write(shared_tmp / "latin1.toml", "# Gr\xfc\xdfe\n".encode("latin-1"), comm)
    _check(["statics", case], capsys, r"latin1\.toml: not a text case file .*UTF-8")


# -- mesh files ------------------------------------------------------------------------------------

MESH_CASE = """
[mesh]
file = "{name}"

[section]
radius = 0.01
E = 1e9
nu = 0.3
"""

MESHES = [
    ("missing", "absent.msh", None, r"absent\.msh: no such file"),
    ("suffix", "rods.stl", b"solid\n", r"rods\.stl: unknown rod mesh format '\.stl'"),
    ("msh-truncated", "bad.msh", b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2\n", r"bad\.msh: meshio could not read it"),
    ("vtu-exits", "bad.vtu", b"\xff\xfe\x00 not xml", r"bad\.vtu: meshio could not read it"),
    ("xdmf-garbage", "bad.xdmf", b"<Xdmf><Domain>", r"bad\.xdmf: meshio could not read it"),
    ("no-section", "ok.msh", "copy", r"a \[section\] table is needed"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "pattern"), [m[1:] for m in MESHES],
                         ids=[m[0] for m in MESHES])  # fmt: skip
def test_bad_mesh_file(name, content, pattern, comm, shared_tmp, capsys):
    from conftest import REPO

    text = MESH_CASE.format(name=name)
    if content == "copy":
        content = (REPO / "meshes" / "two_rods.msh").read_bytes()
        text = text.replace("[section]\nradius = 0.01\nE = 1e9\nnu = 0.3\n", "")
    if content is not None:
        _write(shared_tmp / name, content, comm)
    case = _write(shared_tmp / "mesh_case.toml", text, comm)
    _check(["statics", case, "--out", shared_tmp / "out", "--no-progress"], capsys, pattern)


# -- output folders --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["statics", "dynamics"])
@pytest.mark.parametrize(
    ("where", "pattern"),
    [
        ("{file}", r"--out .*blocker is an existing file, not a folder"),
        ("{file}/below", r"--out .*below lies below the file .*blocker"),
        ("/proc/x", r"--out /proc/x cannot be written"),
    ],
    ids=["existing-file", "below-a-file", "unwritable"],
)
def test_bad_output_folder(command, where, pattern, comm, shared_tmp, capsys):
    blocker = _write(shared_tmp / "blocker", "a file", comm)
    case = _write(shared_tmp / "case.toml", STATICS if command == "statics" else DYNAMICS, comm)
    out = where.format(file=blocker)
    _check([command, case, "--out", out, "--no-progress"], capsys, pattern)


def test_case_output_folder_unwritable(comm, shared_tmp, capsys):
    text = STATICS.replace("vtx = false", "folder = '/proc/y'\nvtx = false")
    case = _write(shared_tmp / "case.toml", text, comm)
    _check(["statics", case, "--no-progress"], capsys, r"\[output\]\.folder /proc/y cannot be")


@pytest.mark.parametrize(
    ("flag", "where", "pattern"),
    [
        ("--out", "{tmp}", r"--out .* is a folder; give a file name"),
        ("--out", "{file}/s.npz", r"--out .*s\.npz: the folder .*blocker is an existing file"),
        ("--wav", "/proc/x/a.wav", r"--wav /proc/x/a\.wav: the folder /proc/x cannot be written"),
    ],
    ids=["out-folder", "out-below-file", "wav-unwritable"],
)
def test_bad_strings_output(flag, where, pattern, comm, shared_tmp, capsys):
    blocker = _write(shared_tmp / "blocker", "a file", comm)
    target = where.format(tmp=shared_tmp, file=blocker)
    argv = ["strings", "--t-end", "0.02", "--quiet", flag, target]
    if flag == "--wav":
        argv += ["--out", shared_tmp / "s.npz"]
    _check(argv, capsys, pattern)


# -- what a run writes into its output folder: checked before any work ---------------------------

SERIES_NAMES = ["/proc/x.npz", "", "../x.npz", "{tmp}/x.npz", "sub/x.npz", "x.txt"]


@pytest.mark.parametrize("name", SERIES_NAMES, ids=["unwritable", "empty", "parent", "absolute", "below", "suffix"])  # fmt: skip
def test_bad_series_name(name, comm, shared_tmp, capsys):
    name = name.format(tmp=shared_tmp)
    case = _write(shared_tmp / "case.toml", DYNAMICS + f"series = {name!r}\n", comm)
    argv = ["dynamics", case, "--out", shared_tmp / "out", "--no-progress"]
    _check(
        argv, capsys, r"output: series = .* must be a file name ending in \.npz, without a folder"
    )
    assert not (shared_tmp / "x.npz").exists() and not (shared_tmp / "out" / "checkpoint").exists()


OUTPUTS_IN_THE_WAY = [
    ("series-folder", "dynamics", DYNAMICS, "series.npz", "folder", r"\[output\]\.series: .*series\.npz is a folder"),
    ("checkpoint-file", "dynamics", DYNAMICS, "checkpoint", "file", r"the checkpoint .*checkpoint is a file, but the run writes a folder"),
    ("rods-bp-file", "dynamics", DYNAMICS.replace("vtx_every = 0", "vtx_every = 1"), "rods.bp", "file", r"\[output\]\.vtx_every: .*rods\.bp is a file"),
    ("contacts-csv-folder", "dynamics", ROLLING, "contacts.csv", "folder", r"\[contact\]\.model = 'rolling': .*contacts\.csv is a folder"),
    ("contacts-vtkhdf-folder", "dynamics", ROLLING, "contacts.vtkhdf", "folder", r"\[contact\]\.output_every: .*contacts\.vtkhdf is a folder"),
    ("statics-npz-folder", "statics", STATICS, "statics.npz", "folder", r"the results: .*statics\.npz is a folder"),
    ("statics-bp-file", "statics", STATICS.replace("vtx = false", "vtx = true"), "rods.bp", "file", r"\[output\]\.vtx: .*rods\.bp is a file"),
    ("statics-vtu-folder", "statics", STATICS.replace("vtu = false", "vtu = true"), "rods.vtu", "folder", r"\[output\]\.vtu: .*rods\.vtu is a folder"),
    ("statics-png-folder", "statics", STATICS.replace("plot = false", "plot = true"), "rods.png", "folder", r"\[output\]\.plot: .*rods\.png is a folder"),
]  # fmt: skip


@pytest.mark.parametrize(("command", "text", "name", "kind", "pattern"), [c[1:] for c in OUTPUTS_IN_THE_WAY],
                         ids=[c[0] for c in OUTPUTS_IN_THE_WAY])  # fmt: skip
def test_output_in_the_way(command, text, name, kind, pattern, comm, shared_tmp, capsys):
    """A file where the run writes a folder, or a folder where it writes a file: before any work."""
    out = shared_tmp / "out"
    if comm.rank == 0:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).mkdir() if kind == "folder" else (out / name).write_text("in the way")
    case = _write(shared_tmp / "case.toml", text, comm)
    _check([command, case, "--out", out, "--no-progress"], capsys, pattern)
    written = {"series.npz", "statics.npz", "checkpoint", "contacts", "rods.bp"} - {
        name.split("/")[0]
    }
    assert not any((out / w).exists() for w in written)


# -- restarts --------------------------------------------------------------------------------------


def test_restart_without_checkpoint(comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", DYNAMICS, comm)
    argv = ["dynamics", case, "--out", shared_tmp / "fresh", "--restart", "--no-progress"]
    _check(argv, capsys, r"no checkpoint .*checkpoint_every > 0, or stop a run with Ctrl-C")


def test_restart_damaged_checkpoint(comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", DYNAMICS, comm)
    _write(shared_tmp / "broken" / "checkpoint" / "state.npz", b"not a zip file", comm)
    argv = ["dynamics", case, "--out", shared_tmp / "broken", "--restart", "--no-progress"]
    _check(argv, capsys, r"checkpoint .*state\.npz cannot be read")


def test_restart_old_per_rank_checkpoint(comm, shared_tmp, capsys):
    case = _write(shared_tmp / "case.toml", DYNAMICS, comm)
    for rank in range(3):
        _write(shared_tmp / "old" / "checkpoint" / f"rank{rank}.npz", b"x", comm)
    argv = ["dynamics", case, "--out", shared_tmp / "old", "--restart", "--no-progress"]
    _check(argv, capsys, r"per-rank checkpoint .* `mpiexec -n 3`")


def test_restart_checkpoint_of_another_mesh(comm, shared_tmp, capsys):
    text = DYNAMICS.replace("vtx_every = 0", "vtx_every = 0\ncheckpoint_every = 1")
    case = _write(shared_tmp / "case.toml", text, comm)
    out = shared_tmp / "other"
    assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
    finer = _write(
        shared_tmp / "finer.toml", DYNAMICS.replace("elements = 4", "elements = 5"), comm
    )
    argv = ["dynamics", finer, "--out", out, "--restart", "--no-progress"]
    _check(argv, capsys, r"checkpoint .*state\.npz does not fit this case")


# -- damaged checkpoints (of a run with rolling contact: its records are in the checkpoint) -------


@pytest.fixture(scope="module")
def rolling_run(tmp_path_factory):
    """A finished 2-step run with rolling contact: its case and output folder (same on every rank)."""
    comm = MPI.COMM_WORLD
    folder = tmp_path_factory.mktemp("rolling") if comm.rank == 0 else None
    folder = comm.bcast(folder, root=0)
    case = _write(folder / "rolling.toml", ROLLING, comm)
    assert main(["dynamics", str(case), "--out", str(folder / "out"), "--no-progress"]) == 0
    assert (folder / "out" / "contacts.csv").exists()
    return case, folder / "out"


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _rewrite(path, change):
    with np.load(path) as stored:
        arrays = dict(stored)
    change(arrays)
    np.savez(path, **arrays)


def _fewer_columns(arrays):
    arrays["contact_model0_records"] = arrays["contact_model0_records"][:, :3]


def _short_gap(arrays):
    arrays["contact_tracker_contacts_gap"] = arrays["contact_tracker_contacts_gap"][:1]


def _short_series(arrays):
    arrays["series_t"] = arrays["series_t"][:1]


def _nan_field(arrays):
    arrays["field_state"] = np.full_like(arrays["field_state"], np.nan)


STATE = "checkpoint/state.npz"
FRAME = "checkpoint/frames/frame_000000001.npz"
DAMAGES = [
    ("state-truncated", STATE, _truncate, r"checkpoint .*state\.npz cannot be read \(File is not a zip"),
    ("state-bad-crc", STATE, _flip_byte, r"checkpoint .*state\.npz cannot be read"),
    ("frame-truncated", FRAME, _truncate, r"stored field frame .*frame_000000001\.npz cannot be read"),
    ("frame-without-time", FRAME, lambda p: _rewrite(p, lambda a: a.pop("t")), r"frame_000000001\.npz is damaged \(its array t"),
    ("records-table", STATE, lambda p: _rewrite(p, _fewer_columns), r"checkpoint .*state\.npz is damaged \(ValueError"),
    ("contact-set", STATE, lambda p: _rewrite(p, _short_gap), r"state\.npz is damaged .*gap has 1 rows"),
    ("series-rows", STATE, lambda p: _rewrite(p, _short_series), r"state\.npz is damaged .*1 rows of the time series for 2 steps"),
    ("field-not-finite", STATE, lambda p: _rewrite(p, _nan_field), r"state\.npz is damaged: field 'state' holds values that are not finite"),
    ("contact-series-gone", "contacts.vtkhdf", lambda p: p.unlink(), r"cannot continue the contact points in .*contacts\.vtkhdf"),
]  # fmt: skip


@pytest.mark.parametrize(("target", "damage", "pattern"), [d[1:] for d in DAMAGES],
                         ids=[d[0] for d in DAMAGES])  # fmt: skip
def test_restart_damaged_files(rolling_run, target, damage, pattern, comm, shared_tmp, capsys):
    case, finished = rolling_run
    out = shared_tmp / "damaged"
    if comm.rank == 0:
        shutil.copytree(finished, out)
        damage(out / target)
    comm.barrier()
    _check(["dynamics", case, "--out", out, "--restart", "--no-progress"], capsys, pattern)
