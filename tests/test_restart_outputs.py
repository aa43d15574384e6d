"""A run with contact continued from its checkpoint equals the run without the interruption.

Driven through the command line (``fe-rodcontact dynamics`` and ``--restart``, subprocesses with
timeouts) on the rod-on-slope case (potential contact with damping and friction, 4 elements,
16 steps): the time series (``dissipated_energy`` included), every array of the contact points'
time series ``contacts.vtkhdf`` (read with h5py), ``series.json``, and the frames of
``rods.bp`` (their count, and their values as stored in ``checkpoint/frames``).

The step is 2⁻¹⁰, so every time is a binary number and a shorter run's last step lands on the
same time as the longer run's: the runs differ only by their interruption. Serially a restart
is bit for bit the uninterrupted run. A checkpoint written on 2 ranks and continued on 1 agrees
to 1e-10 relative: the steps before the restart were solved by MUMPS on 2 ranks, not by PETSc's
serial LU, and the assembly summed in another order (measured: 1.0e-12 relative at most, in the
elastic energy; 3e-14 in the dissipated energy).

These tests start MPI jobs themselves, so they run in the serial pass of the suite only.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
from conftest import REPO

pytestmark = pytest.mark.skip_in_parallel

BIN = Path(sys.executable).parent
TIMEOUT = 120  # seconds: far above the few seconds each run takes; a hang fails the test
DT = 2.0**-10


def _case(folder: Path, steps: int) -> Path:
    text = (REPO / "demos" / "cases" / "rod_on_slope.toml").read_text()
    for old, new in (
        ("elements = 16", "elements = 4"),
        ("t_end = 1.0", f"t_end = {steps * DT!r}"),
        ("dt = 1e-3", f"dt = {DT!r}"),
        ("vtx_every = 50", "vtx_every = 4\ncheckpoint_every = 4"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    path = folder / f"slope_{steps}.toml"
    path.write_text(text)
    return path


def _run(case: Path, out: Path, *, restart: bool = False, ranks: int = 1) -> None:
    command = [str(BIN / "fe-rodcontact"), "dynamics", str(case), "--out", str(out)]
    command += ["--no-progress"] + (["--restart"] if restart else [])
    if ranks > 1:
        command = [str(BIN / "mpiexec"), "-n", str(ranks), *command]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert done.returncode == 0, done.stderr


def _bp_steps(folder: Path) -> int:
    """Steps in a BP4 file: md.idx is a 64-byte header plus 64 bytes per step."""
    return ((folder / "md.idx").stat().st_size - 64) // 64


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("uninterrupted")
    _run(_case(folder, 16), folder / "out")
    return folder / "out"


def _contact_arrays(folder: Path) -> dict[str, np.ndarray]:
    """Every dataset of ``contacts.vtkhdf`` by its path in the file."""
    arrays: dict[str, np.ndarray] = {}
    with h5py.File(folder / "contacts.vtkhdf", "r") as f:
        f.visititems(
            lambda name, item: (
                arrays.__setitem__(name, item[()]) if isinstance(item, h5py.Dataset) else None
            )
        )
    return arrays


def _compare(full: Path, cut: Path, rtol: float) -> None:
    a, b = np.load(full / "series.npz"), np.load(cut / "series.npz")
    assert sorted(a.files) == sorted(b.files)
    assert np.array_equal(a["t"], b["t"]) and len(a["t"]) == 17
    for key in a.files:
        scale = np.nanmax(np.abs(a[key]), initial=0.0)
        close = np.allclose(a[key], b[key], rtol=0, atol=rtol * scale, equal_nan=True)
        assert close if rtol else np.array_equal(a[key], b[key], equal_nan=True), key
    assert a["dissipated_energy"][-1] > 0  # the series holds what the restart must keep
    contacts, cut_contacts = _contact_arrays(full), _contact_arrays(cut)
    assert contacts.keys() == cut_contacts.keys()
    assert np.array_equal(contacts["VTKHDF/Steps/Values"], a["t"])
    for key, values in contacts.items():
        other = cut_contacts[key]
        if rtol and values.dtype.kind == "f":
            assert np.allclose(values, other, rtol=0, atol=rtol, equal_nan=True), key
        else:
            assert np.array_equal(values, other, equal_nan=values.dtype.kind == "f"), key
    assert _bp_steps(cut / "rods.bp") == _bp_steps(full / "rods.bp") == 5  # t = 0, 4 ... 16
    assert (cut / "series.json").read_text() == (full / "series.json").read_text()
    frames = sorted(p.name for p in (full / "checkpoint" / "frames").glob("frame_*.npz"))
    assert len(frames) == 5
    assert sorted(p.name for p in (cut / "checkpoint" / "frames").glob("frame_*.npz")) == frames
    for name in frames:  # what rods.bp holds, frame by frame
        x, y = (
            np.load(full / "checkpoint" / "frames" / name),
            np.load(cut / "checkpoint" / "frames" / name),
        )
        assert x.files == y.files and "d1" in x.files and "angular_velocity" in x.files
        for key in x.files:
            assert (
                np.allclose(x[key], y[key], rtol=0, atol=rtol * 10)
                if rtol
                else np.array_equal(x[key], y[key])
            ), (name, key)


def test_restart_after_a_kill_equals_the_uninterrupted_run(uninterrupted, tmp_path):
    """Killed at step 10, after the checkpoint of step 8: frames 9 and 10 are on disk, in the
    indices and in the stored field frames; the restart from step 8 writes them again once."""
    out = tmp_path / "out"
    _run(_case(tmp_path, 8), out)
    saved = tmp_path / "state_8.npz"
    shutil.copy(out / "checkpoint" / "state.npz", saved)
    _run(_case(tmp_path, 10), out, restart=True)
    assert len(_contact_arrays(out)["VTKHDF/Steps/Values"]) == 11
    shutil.copy(saved, out / "checkpoint" / "state.npz")  # what a kill at step 10 leaves
    _run(_case(tmp_path, 16), out, restart=True)
    _compare(uninterrupted, out, rtol=0.0)


def test_checkpoint_of_2_ranks_continues_on_1(uninterrupted, tmp_path):
    out = tmp_path / "out"
    _run(_case(tmp_path, 8), out, ranks=2)
    _run(_case(tmp_path, 16), out, restart=True)
    _compare(uninterrupted, out, rtol=1e-10)
