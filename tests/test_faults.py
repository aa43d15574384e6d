"""Faults as separate processes — signals, 2-rank failures that used to hang, restarts.

These tests start ``fe-rodcontact`` (serially and under ``mpiexec -n 2``) as subprocesses with a
timeout, so a hang fails the test instead of blocking the suite. They start MPI jobs
themselves and therefore run only in the serial pass of the suite.

The fault test: a dynamics run on 2 ranks is stopped with SIGTERM mid-run, restarted on 1 rank,
and compared with the uninterrupted 2-rank run. The series agree to 1e-12 relative, not bit for
bit: after the restart the steps are solved by PETSc's serial LU instead of MUMPS on 2 ranks,
and the assembly sums in another order, so round-off differs (measured: ~2e-13). A restart on
the same number of ranks is bit-identical (tests/test_dynamics.py, and the SIGINT test here).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO

pytestmark = pytest.mark.skip_in_parallel

BIN = Path(sys.executable).parent
COMMAND = [str(BIN / "fe-rodcontact")]
MPIEXEC = [str(BIN / "mpiexec"), "-n", "2"]
TIMEOUT = 120  # seconds: far above the few seconds each run takes here; a hang fails


def _case(tmp_path: Path, **changes: str) -> Path:
    """The flying-spaghetti case (300 steps, fields every 5), with text replacements."""
    text = (REPO / "demos" / "cases" / "flying_spaghetti.toml").read_text()
    text = text.replace("vtx_every = 10", "vtx_every = 5")
    for old, new in changes.items():
        text = text.replace(old, new)
    path = tmp_path / "case.toml"
    path.write_text(text)
    return path


def _run(args: list[str], cwd: Path, ranks: int = 1) -> subprocess.CompletedProcess:
    prefix = MPIEXEC if ranks == 2 else []
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(
        [*prefix, *COMMAND, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def _stop_midway(args: list[str], cwd: Path, frames: Path, sig: int, ranks: int):
    """Start a run, send ``sig`` once a few field frames exist, return (rc, stderr)."""
    prefix = MPIEXEC if ranks == 2 else []
    process = subprocess.Popen(
        [*prefix, *COMMAND, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
    )
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        if frames.is_dir() and len(list(frames.glob("frame_*.npz"))) >= 4:
            break
        time.sleep(0.05)
    process.send_signal(sig)
    try:
        _, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the run did not stop after the signal")
    return process.returncode, err


def _bp_steps(folder: Path) -> int:
    """Steps in a BP4 file: md.idx is a 64-byte header plus 64 bytes per step."""
    return ((folder / "md.idx").stat().st_size - 64) // 64


def test_sigterm_on_2_ranks_restart_on_1(tmp_path):
    case = _case(tmp_path)
    full = _run(["dynamics", str(case), "--out", "full", "--no-progress"], tmp_path, ranks=2)
    assert full.returncode == 0, full.stderr
    rc, err = _stop_midway(
        ["dynamics", str(case), "--out", "cut", "--no-progress"],
        tmp_path,
        tmp_path / "cut" / "checkpoint" / "frames",
        signal.SIGTERM,
        ranks=2,
    )
    assert rc == 143, err
    assert "Traceback" not in err
    assert "stopped by SIGTERM at t = " in err and "--restart --out cut" in err
    stopped = np.load(tmp_path / "cut" / "series.npz")
    assert 0 < stopped["t"][-1] < 15.0  # really cut mid-run
    again = _run(["dynamics", str(case), "--out", "cut", "--restart", "--no-progress"], tmp_path)
    assert again.returncode == 0, again.stderr
    a = np.load(tmp_path / "full" / "series.npz")
    b = np.load(tmp_path / "cut" / "series.npz")
    assert np.array_equal(a["t"], b["t"])
    for key in ("kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum"):
        scale = np.max(np.abs(a[key]))
        assert np.max(np.abs(a[key] - b[key])) <= 1e-12 * scale, key
    # every frame once: t = 0 and 300 steps / 5 = 61 frames in rods.bp, as without the stop
    assert _bp_steps(tmp_path / "full" / "rods.bp") == 61
    assert _bp_steps(tmp_path / "cut" / "rods.bp") == 61


def test_sigint_serial_restart_is_bit_identical(tmp_path):
    case = _case(tmp_path, **{"t_end = 15.0": "t_end = 6.0"})
    full = _run(["dynamics", str(case), "--out", "full", "--no-progress"], tmp_path)
    assert full.returncode == 0, full.stderr
    rc, err = _stop_midway(
        ["dynamics", str(case), "--out", "cut", "--no-progress"],
        tmp_path,
        tmp_path / "cut" / "checkpoint" / "frames",
        signal.SIGINT,
        ranks=1,
    )
    assert rc == 130, err
    assert "stopped by SIGINT" in err and "Traceback" not in err
    again = _run(["dynamics", str(case), "--out", "cut", "--restart", "--no-progress"], tmp_path)
    assert again.returncode == 0, again.stderr
    a = np.load(tmp_path / "full" / "series.npz")
    b = np.load(tmp_path / "cut" / "series.npz")
    for key in a.files:
        assert np.array_equal(a[key], b[key]), key
    assert _bp_steps(tmp_path / "cut" / "rods.bp") == _bp_steps(tmp_path / "full" / "rods.bp")


@pytest.mark.parametrize("command", ["statics", "dynamics", "strings"])
def test_unwritable_output_on_2_ranks_does_not_hang(command, tmp_path):
    """Used to hang on 2 ranks (and abort with an ADIOS2 exception in dynamics)."""
    if command == "strings":
        args = ["strings", "--t-end", "0.02", "--quiet", "--out", "/proc/x/s.npz"]
    else:
        case = REPO / "demos" / "cases" / "cantilever_rollup.toml"
        if command == "dynamics":
            case = _case(tmp_path)
        args = [command, str(case), "--out", "/proc/x", "--no-progress"]
    result = _run(args, tmp_path, ranks=2)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("fe-rodcontact: input error:") == 1
    assert "/proc/x" in result.stderr


def test_corrupt_mesh_on_2_ranks_does_not_hang(tmp_path):
    """meshio calls sys.exit() on this file; that used to escape on rank 0 and hang rank 1."""
    (tmp_path / "bad.vtu").write_bytes(b"\xff\xfe\x00 not xml")
    case = tmp_path / "case.toml"
    case.write_text('[mesh]\nfile = "bad.vtu"\n[section]\nradius = 0.01\nE = 1e9\nnu = 0.3\n')
    result = _run(["statics", str(case), "--out", "out", "--no-progress"], tmp_path, ranks=2)
    assert result.returncode == 2, result.stderr
    assert "bad.vtu: meshio could not read it" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_free_rod_on_2_ranks_is_an_error_not_a_result(tmp_path):
    """Used to 'succeed' on 2 ranks with displacements ~1e23 and write its files."""
    text = (REPO / "demos" / "cases" / "cantilever_rollup.toml").read_text()
    case = tmp_path / "free.toml"
    case.write_text(text.replace("[[supports]]", "[[ignored]]").split("[[ignored]]")[0])
    result = _run(["statics", str(case), "--out", "out", "--no-progress"], tmp_path, ranks=2)
    assert result.returncode == 2, result.stderr
    assert "can move rigidly" in result.stderr
    assert not (tmp_path / "out" / "statics.npz").exists()


def test_statics_interrupted_by_sigterm(tmp_path):
    """A statics run stops at a completed load step with one line and exit code 143."""
    text = (REPO / "demos" / "cases" / "cantilever_rollup.toml").read_text()
    case = tmp_path / "slow.toml"  # 1000 load steps of 0.001: several seconds
    case.write_text(
        text.replace(
            "initial_step = 0.05\nmax_step = 0.1", "initial_step = 0.001\nmax_step = 0.001"
        )
    )
    process = subprocess.Popen(
        [*COMMAND, "statics", str(case), "--out", "out", "--no-progress"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + TIMEOUT
    while not (tmp_path / "out" / "rods.bp").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=TIMEOUT)
    if process.returncode == 0:
        pytest.skip("the run finished before the signal came")
    assert process.returncode == 143, err
    assert "stopped by SIGTERM at load factor" in err and "Traceback" not in err


def test_checkpoint_of_1_rank_continues_on_2(tmp_path):
    """A run to t = 2 on 1 rank, extended to t = 4 on 2 ranks from its checkpoint (the case's
    t_end changed), agrees with an uninterrupted run to t = 4 to round-off (see the module
    docstring for why not bit for bit)."""
    short = _case(tmp_path, **{"t_end = 15.0": "t_end = 2.0"})
    assert (
        _run(["dynamics", str(short), "--out", "grow", "--no-progress"], tmp_path).returncode == 0
    )
    long = _case(tmp_path, **{"t_end = 15.0": "t_end = 4.0"})
    again = _run(
        ["dynamics", str(long), "--out", "grow", "--restart", "--no-progress"], tmp_path, ranks=2
    )
    assert again.returncode == 0, again.stderr
    full = _run(["dynamics", str(long), "--out", "full", "--no-progress"], tmp_path)
    assert full.returncode == 0, full.stderr
    a = np.load(tmp_path / "full" / "series.npz")
    b = np.load(tmp_path / "grow" / "series.npz")
    # the short run's last step lands on t = 2 exactly, so later times differ in the last bit
    assert np.allclose(a["t"], b["t"], rtol=0, atol=1e-12) and a["t"][-1] == 4.0
    for key in ("kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum"):
        assert np.max(np.abs(a[key] - b[key])) <= 1e-12 * np.max(np.abs(a[key])), key
    assert _bp_steps(tmp_path / "grow" / "rods.bp") == _bp_steps(tmp_path / "full" / "rods.bp")


def test_strings_ctrl_c_is_one_line(tmp_path):
    """Ctrl-C during a strings run: exit 130 and one line, at the next completed step."""
    process = subprocess.Popen(
        [*COMMAND, "strings", "--t-end", "40", "--out", "s.npz"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = process.stdout.readline()  # the first progress line: the loop is running
    assert first.strip().startswith("t =")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130, err
    assert err.count("\n") == 1 and "stopped by SIGINT at t = " in err


DRIVEN_ROD = """
[[rods]]
name = "bar"
curve = "straight"
start = [-0.2, 0.0, 0.02]
end = [0.2, 0.0, 0.02]
elements = 4

[section]
radius = 0.02
E = 1e7
nu = 0.3
density = 1000.0

[[supports]]
rod = "bar"
end = "start"
kind = "prescribed"
displacement = [0.0, 0.0, -0.01]

[[loads]]
type = "gravity"

[time]
t_end = 0.05
dt = 1e-2
min_dt = 2.5e-3

[contact]
model = "rolling"
margin = 0.005
self_contact = false

[[contact.obstacles]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
name = "table"

[output]
folder = "out"
vtx_every = 0
"""


@pytest.mark.parametrize("ranks", [1, 2])
def test_a_contact_no_step_resolves_is_exit_3_with_a_checkpoint(tmp_path, ranks):
    """A rod lying on a table whose start a support drives 1 cm into it, rolling contact: each
    step is rejected (a ContactError, raised on every rank) and cut; at the smallest step the
    run stops with exit 3, one line naming the rod and the obstacle, and the last good state
    in checkpoint/ (it used to escape as an internal error: a traceback, MPI_Abort on 2
    ranks, no checkpoint)."""
    case = tmp_path / "driven.toml"
    case.write_text(DRIVEN_ROD)
    result = _run(["dynamics", str(case), "--no-progress"], tmp_path, ranks=ranks)
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr.count("fe-rodcontact: solver failed:") == 1
    assert "rod 'bar' at s = " in result.stderr and "obstacle 'table'" in result.stderr
    assert "a support drives the rod end into the obstacle" in result.stderr
    assert (tmp_path / "out" / "checkpoint" / "state.npz").exists()
