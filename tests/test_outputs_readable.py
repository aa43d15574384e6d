"""What a dynamics run writes, read back with third-party readers, serially and on 2 ranks.

Two short runs of the command (in this process, on every rank): the rod-on-slope case
(potential contact with damping and friction, 4 elements, 8 steps of 2⁻¹⁰ s, fields every 2
steps) and the rolling case of ``test_bad_inputs`` (2 steps). ``contacts.vtkhdf`` is read with
h5py, ``rods.bp`` through its stored frames (``checkpoint/frames``, numpy), the ADIOS2
metadata's VTX schema and ADIOS2's own Python reader (``adios2``, the test extra; the test
skips where it is not installed), the tables with numpy, csv and json.
"""

import csv
import json

from mpi4py import MPI

import h5py
import numpy as np
import pytest
from conftest import REPO
from test_bad_inputs import ROLLING

from fe_rodcontact.cli import main

DT = 2.0**-10
STEPS = 8


def _slope() -> str:
    text = (REPO / "demos" / "cases" / "rod_on_slope.toml").read_text()
    for old, new in (
        ("elements = 16", "elements = 4"),
        ("t_end = 1.0", f"t_end = {STEPS * DT!r}"),
        ("dt = 1e-3", f"dt = {DT!r}"),
        ("vtx_every = 50", "vtx_every = 2\ncheckpoint_every = 4"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The output folders of the two runs (the same path on every rank)."""
    comm = MPI.COMM_WORLD
    root = tmp_path_factory.mktemp("outputs") if comm.rank == 0 else None
    root = comm.bcast(root, root=0)
    folders = {}
    for name, text in (("slope", _slope()), ("rolling", ROLLING)):
        case, out = root / f"{name}.toml", root / name
        if comm.rank == 0:
            case.write_text(text)
            out.mkdir()
            (out / "contacts.csv").write_text("an earlier run's table\n")  # stale
        comm.barrier()
        assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
        folders[name] = out
    return folders


def test_one_contact_file_with_forces_slip_and_names(runs):
    out = runs["slope"]
    assert sorted(p.name for p in out.iterdir() if "contact" in p.name) == ["contacts.vtkhdf"]
    t = np.load(out / "series.npz")["t"]
    with h5py.File(out / "contacts.vtkhdf", "r") as f:
        root = f["VTKHDF"]
        assert root.attrs["Type"] == b"UnstructuredGrid"
        steps = root["Steps"]
        assert steps.attrs["NSteps"] == STEPS + 1
        assert np.array_equal(steps["Values"][:], np.arange(STEPS + 1) * DT)
        assert np.array_equal(steps["Values"][:], t)
        counts = root["NumberOfPoints"][:]
        assert np.all(counts == 8) and len(root["Points"]) == counts.sum()
        data = root["PointData"]
        for name in ("normal_force", "tangential_force", "slip_velocity", "gap", "normal"):
            assert len(data[name]) == counts.sum(), name
        assert np.all(data["normal_force"][:] > 0)  # the rod rests on the slope
        assert data["kind"].dtype.kind == "i" and set(data["kind"][:]) == {2}
        assert [s.decode() for s in f["Names/rods"][:]] == ["rod"]
        assert [s.decode() for s in f["Names/obstacles"][:]] == ["slope"]
        assert [s.decode() for s in f["Categories/kind"][:]] == ["rod-rod", "self", "obstacle"]
        assert f["Units"].attrs["normal_force"].startswith("N")


def test_series_describes_itself(runs):
    for out in runs.values():
        data = np.load(out / "series.npz")
        described = json.loads((out / "series.json").read_text())
        assert set(described["columns"]) == set(data.files)
        assert all(c["unit"] != "?" for c in described["columns"].values())
        assert described["rods"] == ["rod"] and described["obstacles"] == ["slope"]
        for key in ("iterations", "contacts", "contacts_new", "contacts_released"):
            assert data[key].dtype.kind == "i", key
        start = {k: data[k][0] for k in data.files if k != "max_cone_ratio"}  # NaN without k
        assert all(np.all(np.isfinite(v)) for v in start.values()), start


def test_contact_table_describes_itself(runs):
    out = runs["rolling"]
    with open(out / "contacts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    described = json.loads((out / "contacts.json").read_text())
    assert list(described["columns"]) == list(rows[0])
    assert all(c["unit"] != "?" for c in described["columns"].values())
    assert {r["rod_a"] for r in rows} == {"rod"} and {r["rod_b"] for r in rows} == {"slope"}
    assert {r["kind"] for r in rows} == {"obstacle"}
    assert all(r["step"].isdigit() and r["id"].isdigit() for r in rows)
    assert described["columns"]["normal_force"]["unit"] == "N"


def test_rod_fields_from_the_start_at_exact_times(runs):
    out = runs["slope"]
    schema = (out / "rods.bp" / "md.0").read_bytes()
    names = ("displacement", "velocity", "angular_velocity", "rotation", "d1", "d2", "d3", "rod")
    for name in names:
        assert f'<DataArray Name="{name}"'.encode() in schema, name
    assert ((out / "rods.bp" / "md.idx").stat().st_size - 64) // 64 == STEPS // 2 + 1
    frames = sorted((out / "checkpoint" / "frames").glob("frame_*.npz"))
    assert len(frames) == STEPS // 2 + 1
    for k, path in enumerate(frames):
        with np.load(path) as frame:
            assert set(frame.files) == {*names, "t"}
            assert frame["t"] == 2 * k * DT  # exactly n·dt
            directors = frame["rotation"].reshape(-1, 3, 3)
            assert np.allclose(directors[:, :, 2], frame["d3"].reshape(-1, 3), atol=0)
            assert np.all(frame["rod"] == 0)


def test_rod_fields_read_with_adios2(runs):
    """``rods.bp`` read with ADIOS2's own Python reader (the ``adios2`` test extra): a frame at
    t = 0 and then every 2 steps at exactly n·dt, the rod at rest at t = 0 with its reference
    frames (d3 along the rod), orthonormal right-handed directors that are the rotation's
    columns at every frame (to 1e-12), an angular velocity that the landing sets going, and
    the rod index. Serially one block per frame, on 2 ranks one per rank."""
    adios2 = pytest.importorskip("adios2")
    out = runs["slope"]
    start, end = np.array([-0.00930, 0.0, 0.01994]), np.array([0.44386, 0.0, 0.23125])
    along = (end - start) / np.linalg.norm(end - start)
    times, spins = [], []
    with adios2.Stream(str(out / "rods.bp"), "r") as stream:
        for _ in stream.steps():
            blocks = len(stream.engine.blocks_info("d1", stream.current_step()))
            assert blocks == MPI.COMM_WORLD.size

            def field(name, width, stream=stream, blocks=blocks):
                parts = [stream.read(name, block_id=b) for b in range(blocks)]
                return np.vstack([np.reshape(p, (-1, width)) for p in parts])

            times.append(float(stream.read("step")))
            d = np.stack([field(f"d{i}", 3) for i in (1, 2, 3)], axis=2)  # columns d1 d2 d3
            rotation = field("rotation", 9).reshape(-1, 3, 3)
            assert np.abs(rotation - d).max() <= 1e-12
            gram = np.einsum("nji,njk->nik", d, d)
            assert np.abs(gram - np.eye(3)).max() <= 1e-12
            assert np.all(np.abs(np.linalg.det(d) - 1) <= 1e-12)
            assert np.all(field("rod", 1) == 0)
            spins.append(np.abs(field("angular_velocity", 3)).max())
            if len(times) == 1:
                for name in ("displacement", "velocity", "angular_velocity"):
                    assert np.all(field(name, 3) == 0), name
                assert np.abs(d[:, :, 2] - along).max() <= 1e-5  # the case's 5 digits
    assert times == [2 * k * DT for k in range(STEPS // 2 + 1)]  # exactly n·dt, from t = 0
    assert spins[0] == 0 and min(spins[1:]) > 0
