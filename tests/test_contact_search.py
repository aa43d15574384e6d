"""Contact search: self-contact, line contact, broad phase vs all pairs, continuity across
nodes, rank independence, persistent identities, bad configurations and output."""

import subprocess
import sys
from pathlib import Path

from mpi4py import MPI

import meshio
import numpy as np
import pytest
from all_pairs_reference import AllPairsSearch
from test_contact_geometry import move, vector_function

import fe_rodcontact as fr
from fe_rodcontact.contact import (
    KIND_ROD,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    ContactError,
    ContactSearch,
    ContactTracker,
    Plane,
    RawContacts,
)
from fe_rodcontact.io.contact_points import ContactPointWriter
from fe_rodcontact.rods.curves import figure_eight_vertices, plectoneme_vertices

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("representation", ["polyline", "smooth"])
def test_figure_eight_self_contact(comm, representation):
    """One self-contact at the crossing; no neighbour along the rod is reported."""
    radius, separation, n = 0.1, 0.21, 64
    rods = fr.create_rod_mesh(comm, [fr.polyline(figure_eight_vertices(n), closed=True)], degree=1)
    u = vector_function(rods)
    search = ContactSearch(rods, u, [radius], margin=0.05, representation=representation)
    found = search.find()
    assert len(found) == 1 and found.kind[0] == KIND_SELF and found.mode[0] == MODE_POINT
    # Exact value for the smooth curve: by symmetry the minimum is at the crossing nodes,
    # where the B-spline is (x₋ + 4x + x₊)/6. The polyline's kinks move its minimum off the
    # node by ~1e-3 of an element and lower the gap by 2.8e-6 (measured); one contact remains.
    delta = 2 * np.pi / n
    if representation == "smooth":
        z = 0.5 * separation * (2 + np.cos(delta)) / 3
        assert abs(found.gap[0] - (2 * z - 2 * radius)) < 1e-12
    else:
        assert abs(found.gap[0] - (separation - 2 * radius)) < 1e-5
    length = rods.lengths[0]
    assert abs(abs(found.s_a[0] - found.s_b[0]) - length / 2) < 0.05 * length / n
    assert np.all(np.abs(found.tangency) < 1e-10)
    assert search.exclusion[0] >= 6 * radius


def test_plectoneme_self_contact(comm):
    """The two strands of a twisted loop touch all along it; neighbours along the rod do not."""
    radius = 0.1
    vertices, height = plectoneme_vertices()
    rods = fr.create_rod_mesh(comm, [fr.polyline(vertices, closed=True)], degree=1)
    u = vector_function(rods)
    search = ContactSearch(rods, u, [radius], margin=0.03)
    found = search.find()
    assert len(found) > 0 and np.all(found.kind == KIND_SELF)
    length = rods.lengths[0]
    along = np.abs(found.s_a - found.s_b)
    along = np.minimum(along, length - along)
    assert along.min() >= search.exclusion[0]
    # Strand distance 2 rho = 0.21 (exact helices); the discrete centrelines are a little closer.
    assert np.all(found.gap > -0.01) and np.all(found.gap < 0.03)
    # The contacts cover the twisted part: heights from near 0 to near the top, no long holes.
    z = np.sort(found.point[:, 2])
    assert z[0] < 0.1 * height and z[-1] > 0.9 * height
    assert np.diff(z).max() < 0.1 * height
    assert np.all(np.isfinite(found.normal)) and np.all(np.isfinite(found.s_a))
    # Interwound strands touch along a line although their tangents cross at 67°: the distance
    # is flat along it (the Hessian's smallest eigenvalue 1.7e-3 |r_a'||r_b'|, against
    # 1 − cos 5° = 3.8e-3), so every result is a line-contact sample, none an ill-defined point.
    assert np.all(found.mode == MODE_LINE)


@pytest.mark.parametrize("degree", [1, 2])
def test_parallel_rods_line_contact(comm, degree):
    """Parallel rods: Gauss points over the overlap [0.5, 2], no NaN, weights = overlap."""
    radius, gap = 0.05, 0.01
    d = 2 * radius + gap
    rods = fr.create_rod_mesh(
        comm,
        [fr.straight((0, 0, 0), (2, 0, 0)), fr.straight((0.5, 0, d), (3, 0, d))],
        elements=[8, 10],
        degree=degree,
    )
    u = vector_function(rods)
    for angle in (5.0, 0.0):  # 0: no angle threshold, the singular Hessian triggers it
        found = ContactSearch(rods, u, [radius, radius], margin=0.02, line_angle=angle).find()
        assert len(found) > 0 and np.all(found.mode == MODE_LINE)
        assert np.all(np.isfinite(found.gap)) and np.all(np.isfinite(found.normal))
        assert np.allclose(found.gap, gap, atol=1e-12)
        assert np.allclose(found.normal, [0, 0, 1], atol=1e-12)
        # Rod a's elements are 0.25 long, the overlap starts at 0.5 on an element end.
        assert abs(found.weight.sum() - 1.5) < 1e-12
        assert found.centre_a[:, 0].min() >= 0.5
        assert np.all(np.abs(found.tangency) < 1e-10)
    # Coincident centrelines (deep overlap) give a finite normal, not NaN.
    rods = fr.create_rod_mesh(
        comm, [fr.straight((0, 0, 0), (1, 0, 0)), fr.straight((0, 0, 0), (0, 1, 0))], elements=4
    )
    u = vector_function(rods)
    found = ContactSearch(rods, u, [radius, radius], margin=0.02).find()
    assert len(found) >= 1 and np.all(np.isfinite(found.normal))


def random_soup(rng, n_rods=20, elements=20, box=1.0):
    curves = []
    for i in range(n_rods):
        start = rng.uniform(0, box, 3)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        bend = rng.normal(size=3) * 0.1
        t = np.linspace(0, 1, elements + 1)[:, None]
        points = start + 0.8 * box * t * direction + np.sin(np.pi * t) * bend
        curves.append(fr.polyline(points, name=f"r{i}"))
    return curves


def contact_key(found):
    return np.column_stack(
        [found.kind, found.mode, found.rod_a, found.rod_b, found.element_a, found.sample]
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_broad_phase_matches_all_pairs(comm, seed):
    """Random rod soups: the broad + narrow phase finds exactly what all pairs find."""
    rng = np.random.default_rng(seed)
    rods = fr.create_rod_mesh(comm, random_soup(rng), degree=1)
    u = vector_function(rods)
    search = ContactSearch(rods, u, np.full(rods.num_rods, 0.03), margin=0.05)
    fast = search.find()
    candidates = comm.allreduce(search.statistics.candidates)
    slow, candidates_here = AllPairsSearch(search).find()
    all_pairs = comm.allreduce(candidates_here)
    assert len(fast) > 5
    # The grid visits only nearby segments but must keep exactly the pairs that all-pairs keeps.
    assert candidates == all_pairs
    assert np.array_equal(contact_key(fast), contact_key(slow))
    assert np.allclose(fast.gap, slow.gap, atol=1e-14, rtol=0)
    assert np.allclose(fast.s_a, slow.s_a, atol=1e-14, rtol=0)


def test_pair_bounds_never_exceed_the_distance():
    """The slab bound of two cubic segments is below their distance (sampled densely), for
    random curved pairs and for neighbouring turns of a coil, where it is nearly tight."""
    from fe_rodcontact.contact.geometry import compiled_broad
    from fe_rodcontact.contact.geometry.centreline import evaluate, power_coefficients

    rng = np.random.default_rng(5)
    # Random cubics (control points k-1 .. k+2 of a smooth centreline), some nearly parallel.
    base = rng.normal(size=(400, 4, 3)) * 0.3
    offset = rng.normal(size=(400, 1, 3)) * 0.2
    nodes = np.concatenate([base, base[:200] + offset[:200], rng.normal(size=(200, 4, 3))])
    # Neighbouring turns of a coil of radius 1, 32 elements per turn, pitch 0.12.
    angle = 2 * np.pi * (np.arange(40)[:, None] + np.arange(-1, 3)) / 32
    turn = np.stack([np.cos(angle), np.sin(angle), 0.12 * angle / (2 * np.pi)], axis=-1)
    nodes = np.concatenate([nodes, turn, turn[:, ::-1] + [0, 0, 0.12]])
    c = power_coefficients(nodes, "smooth")
    first = np.concatenate([np.arange(400), np.arange(800, 840)])
    second = np.concatenate([np.arange(400, 800), np.arange(840, 880)])
    bound = compiled_broad.slab_bounds(c, first, second)
    xi = np.linspace(0.0, 1.0, 401)
    ra = np.stack([evaluate(c[first], np.full(len(first), x))[0] for x in xi], axis=1)
    rb = np.stack([evaluate(c[second], np.full(len(first), x))[0] for x in xi], axis=1)
    sampled = np.linalg.norm(ra[:, :, None] - rb[:, None, :], axis=-1).min(axis=(1, 2))
    assert np.all(bound <= sampled + 1e-14)
    coil = slice(400, 440)
    assert np.all(sampled[coil] - bound[coil] < 1e-4)  # the chord bound loses 1.06e-2 here


@pytest.mark.parametrize("representation", ["smooth", "polyline"])
def test_reused_neighbour_list_finds_what_a_fresh_search_finds(comm, representation):
    """A moving soup: the search that reuses its candidate pairs (skin = margin) reports, at
    every step, exactly what a search without a list (skin = 0) reports, and rebuilds its list
    once the rods have moved more than half the skin (the Verlet-list criterion)."""
    rng = np.random.default_rng(3)
    rods = fr.create_rod_mesh(comm, random_soup(rng), degree=1)
    u = vector_function(rods)
    radii, margin = np.full(rods.num_rods, 0.03), 0.02
    listed = ContactSearch(rods, u, radii, margin=margin, representation=representation)
    fresh = ContactSearch(rods, u, radii, margin=margin, representation=representation, skin=0)
    rebuilt, counts = [], []
    for step in range(16):
        # Each step moves the nodes by at most 0.1 · 0.03 · 1.3 = 0.0039 (a fifth of the
        # skin), varying over 0.6 in space: rods come together and apart (11 to 14 contacts).
        phase = 0.03 * step
        move(
            u,
            lambda x, phase=phase: (
                0.1
                * np.array(
                    [
                        np.sin(10 * x[1] + phase),
                        np.sin(10 * x[2] + 1.3 * phase),
                        np.sin(10 * x[0] + 0.7 * phase),
                    ]
                )
            ),
        )
        a, b = listed.find(), fresh.find()
        rebuilt.append(comm.allreduce(listed.statistics.rebuilt, op=MPI.LOR))
        assert fresh.statistics.rebuilt
        assert np.array_equal(contact_key(a), contact_key(b))
        assert np.array_equal(a.gap, b.gap) and np.array_equal(a.s_b, b.s_b)
        counts.append(len(a))
    # Built at the first step, then reused while the motion stays within half the skin; the
    # contact set changed on a step that reused the list.
    assert rebuilt[0] and not all(rebuilt[1:]) and any(rebuilt[1:])
    assert any(counts[k] != counts[k - 1] and not rebuilt[k] for k in range(1, len(counts)))


def test_closest_point_moves_continuously_across_nodes(comm):
    """A straight rod slides across a P1 arc at 30°: with the smooth centreline, s_a has no
    kinks at the nodes; with the polyline, ds_a jumps where the chord direction changes.

    Measured along a sweep of 281 positions over 7 elements: the largest second difference of
    s_a over the mean first difference (a kink of relative size k shows up as ≈ k).
    """
    radius, n = 0.02, 10
    rods = fr.create_rod_mesh(
        comm,
        [
            fr.arc(1.0, 1.0, centre=(0, 0, 0), axis=(0, 0, 1), start_direction=(1, 0, 0)),
            fr.straight((0, 0, 0.045), (0, 1, 0.045)),
        ],
        elements=[n, 2],
        degree=1,
    )
    u = vector_function(rods)
    ratios = {}
    for representation in ("smooth", "polyline"):
        search = ContactSearch(
            rods, u, [radius, radius], margin=0.03, representation=representation
        )
        s = []
        for a in np.linspace(0.15, 0.85, 281):
            # rod b: through the arc point at angle a, at 30° to the arc's tangent there
            point = np.array([np.cos(a), np.sin(a), 0.045])
            direction = np.array([-np.sin(a + np.pi / 6), np.cos(a + np.pi / 6), 0.0])

            def place(x, point=point, direction=direction):
                on_b = np.isclose(x[2], 0.045)
                target = point[:, None] + (x[1] - 0.5) * direction[:, None]
                return np.where(on_b, target - x, 0.0)

            move(u, place)
            found = search.find()
            assert len(found) == 1 and found.mode[0] == MODE_POINT
            s.append(found.s_a[0])
        s = np.array(s)
        ratios[representation] = np.abs(np.diff(s, 2)).max() / np.abs(np.diff(s)).mean()
    print(f"second difference / mean first difference: {ratios}")
    assert ratios["smooth"] < 1e-4, ratios  # measured 3.4e-6 (polyline: 0.17)
    assert ratios["polyline"] > 0.05, ratios


def gathered(found: RawContacts):
    return np.column_stack([found.s_a, found.s_b, found.gap, found.normal, found.point])


@pytest.mark.parametrize("degree", [1, 2])
def test_same_contacts_on_every_rank_count(comm, degree):
    """Rods cut so that a contact's two sides are on different ranks: same set as serially."""
    radius = 0.1
    curves = [
        fr.straight((-1, 0.1, 0), (1, 0.1, 0), name="a"),
        fr.straight((0.3 - 0.77, -0.64, 0.25), (0.3 + 0.77, 0.64, 0.25), name="b"),
        fr.polyline(figure_eight_vertices(48), closed=True, name="eight"),
    ]
    n_cells = [13, 17, 48]
    total = sum(n_cells)
    ranks = np.arange(total) % comm.size if comm.size > 1 else None
    rods = fr.create_rod_mesh(
        comm, curves, elements=[13, 17, None], degree=degree, cell_ranks=ranks
    )
    u = vector_function(rods)
    found = ContactSearch(rods, u, [radius, radius, radius], margin=0.06).find()
    serial = fr.create_rod_mesh(MPI.COMM_SELF, curves, elements=[13, 17, None], degree=degree)
    reference = ContactSearch(
        serial, vector_function(serial), [radius, radius, radius], margin=0.06
    ).find()
    assert len(found) == len(reference) >= 2
    assert np.array_equal(contact_key(found), contact_key(reference))
    assert np.allclose(gathered(found), gathered(reference), atol=1e-12, rtol=0)
    # Identical on every rank.
    assert all(np.array_equal(gathered(found), g) for g in comm.allgather(gathered(found)))


@pytest.mark.skip_in_parallel
def test_three_ranks_find_the_same_contacts(tmp_path):
    """``mpiexec -n 3`` (cells dealt round-robin) gives the serial contact set to 1e-12."""
    script = REPO / "tests" / "contact_ranks_script.py"
    mpiexec = Path(sys.executable).parent / "mpiexec"
    out = tmp_path / "three.npz"
    subprocess.run(
        [str(mpiexec), "-n", "3", sys.executable, "-m", "mpi4py", str(script), str(out)],
        check=True,
        timeout=120,
        capture_output=True,
    )
    serial = tmp_path / "one.npz"
    subprocess.run([sys.executable, str(script), str(serial)], check=True, timeout=120)
    a, b = np.load(out), np.load(serial)
    assert a["count"] == b["count"] >= 3
    assert np.array_equal(a["key"], b["key"])
    assert np.allclose(a["values"], b["values"], atol=1e-12, rtol=0)


def sliding_rods(comm):
    rods = fr.create_rod_mesh(
        comm,
        [
            fr.straight((0, 0, 0), (2, 0, 0), name="long"),
            fr.straight((0.2, -0.5, 0.21), (0.2, 0.5, 0.21), name="cross"),
        ],
        elements=[20, 6],
    )
    return rods, vector_function(rods)


def test_tracker_identity_and_events(comm):
    """A contact sliding along a rod keeps its identity; leaving and coming back is new."""
    rods, u = sliding_rods(comm)
    tracker = ContactTracker(ContactSearch(rods, u, [0.1, 0.1], margin=0.05))
    first = tracker.update(0, 0.0)
    assert len(first) == 1 and list(first.new) == list(first.ids)
    identity = int(first.ids[0])
    for step in range(1, 12):
        shift = 0.13 * step  # more than an element (0.1) per step is allowed (match: 2 h)
        move(u, lambda x, shift=shift: np.where(np.isclose(x[2], 0.21), [[shift], [0], [0]], 0.0))
        snapshot = tracker.update(step, 0.1 * step)
        assert list(snapshot.ids) == [identity] and list(snapshot.persisting) == [identity]
        assert abs(snapshot.contacts.s_a[0] - (0.2 + shift)) < 1e-12
        assert snapshot.born[0] == 0
    with pytest.raises(ValueError):
        snapshot.contacts.s_a[0] = 1.0  # read-only arrays
    move(u, lambda x: np.where(np.isclose(x[2], 0.21), [[0.5], [0], [0.5]], 0.0))  # lift off
    gone = tracker.update(12, 1.2)
    assert len(gone) == 0 and list(gone.released) == [identity]
    move(u, lambda x: np.where(np.isclose(x[2], 0.21), [[0.5], [0], [0]], 0.0))
    back = tracker.update(13, 1.3)
    assert len(back) == 1 and back.ids[0] != identity and list(back.new) == list(back.ids)


def test_contact_running_off_a_rod_end(comm):
    """Flag by default (``at_end``), an error on every rank with ``on_rod_end='error'``."""
    rods, u = sliding_rods(comm)
    move(u, lambda x: np.where(np.isclose(x[2], 0.21), [[2.0], [0], [0]], 0.0))
    flagged = ContactTracker(ContactSearch(rods, u, [0.1, 0.1], margin=0.2)).update(0, 0.0)
    assert len(flagged) == 1 and flagged.contacts.at_end[0]
    assert abs(flagged.contacts.s_a[0] - 2.0) < 1e-12
    tracker = ContactTracker(ContactSearch(rods, u, [0.1, 0.1], margin=0.2), on_rod_end="error")
    with pytest.raises(ContactError, match=r"rod 'long' at s = 2.*free end"):
        tracker.update(0, 0.0)


@pytest.mark.parametrize(
    ("setup", "match"),
    [
        (
            "penetrate",
            r"rod 'long' \(s = 0\.2\) and rod 'cross' \(s = 0\.5\) interpenetrate by 0\.02",
        ),
        ("radius_beyond_centreline", r"radius 0\.3.*larger than the distance 0\.21"),
        ("obstacle", r"rod 'long' penetrates obstacle 'floor' at s = .* by 0\.15"),
        ("zero_radius", r"rod 'cross' has contact radius 0\.0.*must be positive"),
        ("negative_radius", r"rod 'long' has contact radius -0\.1"),
        ("margin", r"margin must be positive, got 0"),
        ("exclusion", r"exclusion 0\.01 is shorter than the longest element of rod 'long'"),
        ("pair", r"contact pair \('long', 'long'\) names one rod twice"),
        ("unknown_rod", r"unknown rod 'nope'"),
        ("representation", r"representation 'p2' does not fit P1 rods"),
    ],
)
def test_bad_configurations(comm, setup, match):
    """Each bad configuration raises the same clear error on every rank."""
    rods, u = sliding_rods(comm)
    radii, kwargs = [0.1, 0.1], {"margin": 0.05}
    if setup == "penetrate":
        move(u, lambda x: np.where(np.isclose(x[2], 0.21), [[0], [0], [-0.03]], 0.0))
    elif setup == "radius_beyond_centreline":
        radii = [0.3, 0.1]
    elif setup == "obstacle":
        kwargs["obstacles"] = [Plane(point=(0, 0, 0.05), normal=(0, 0, 1), name="floor")]
    elif setup == "zero_radius":
        radii = [0.1, 0.0]
    elif setup == "negative_radius":
        radii = [-0.1, 0.1]
    elif setup == "margin":
        kwargs["margin"] = 0.0
    elif setup == "exclusion":
        kwargs["exclusion"] = 0.01
    elif setup == "pair":
        kwargs["pairs"] = [("long", "long")]
    elif setup == "unknown_rod":
        kwargs["pairs"] = [("long", "nope")]
    elif setup == "representation":
        kwargs["representation"] = "p2"
    messages = []
    try:
        ContactTracker(ContactSearch(rods, u, radii, **kwargs)).update(0, 0.0)
    except fr.InputError as error:
        messages.append(str(error))
    everywhere = comm.allgather(messages)
    assert all(len(m) == 1 for m in everywhere), everywhere
    import re

    assert re.search(match, everywhere[0][0]), everywhere[0][0]
    assert all(m == everywhere[0] for m in everywhere)


def test_contact_point_output(comm, shared_tmp):
    """A .pvd series of .vtu point clouds that meshio (and ParaView) reads back."""
    rods, u = sliding_rods(comm)
    tracker = ContactTracker(
        ContactSearch(rods, u, [0.1, 0.1], margin=0.05, obstacles=[Plane(point=(0, 0, -0.12))])
    )
    writer = ContactPointWriter(shared_tmp / "out", comm)
    counts = []
    for step in range(3):
        move(
            u, lambda x, step=step: np.where(np.isclose(x[2], 0.21), [[0.3 * step], [0], [0]], 0.0)
        )
        snapshot = tracker.update(step, 0.5 * step)
        writer.write(snapshot, {})
        counts.append(len(snapshot))
    comm.barrier()
    index = (shared_tmp / "out" / "contacts.pvd").read_text()
    assert index.count("<DataSet") == 3 and 'timestep="1"' in index
    writer.write(tracker.update(1, 0.5), {})  # step 1 again: replaces it, drops step 2
    comm.barrier()
    index = (shared_tmp / "out" / "contacts.pvd").read_text()
    assert index.count("<DataSet") == 2 and 'timestep="1"' not in index
    last = meshio.read(shared_tmp / "out" / "contacts_000002.vtu")
    assert len(last.points) == counts[-1]
    assert set(last.point_data) >= {"id", "gap", "normal", "kind", "mode", "weight"}
    rod_rows = last.point_data["kind"] == KIND_ROD
    assert rod_rows.sum() == 1
    assert np.allclose(last.points[rod_rows][0], [0.8, 0.0, 0.105], atol=1e-12)
