"""The Python examples of the manual's guide pages run as written.

The getting-started page shows the README's examples (run by tests/test_readme_commands.py).
The guide pages' examples run here: ``modelling.md`` on its own, and the contact pages
(``potential.md``, ``obstacles.md``, ``self_contact.md``) with ``rod`` given, as their text
says: two crossed rods with a circular section. They only build objects (scenes, models, laws,
meshes), so a wrong name or argument fails here, not in a reader's hands. ``solids.md`` runs
with its block mesh, bottom facets, rod and supports given, and solves (a rod pressed into a
unit cube of 3³ cells: a couple of seconds).
"""

import re

import dolfinx.mesh
import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact import CosseratRod, Section, Support, create_rod_mesh, straight


def _examples(page):
    return re.findall(r"```python\n(.*?)```", (REPO / "docs" / page).read_text(), re.S)


def test_modelling_examples_run(comm):
    namespace: dict = {}
    for block in _examples("modelling.md"):
        exec(compile(block, "modelling.md", "exec"), namespace)
    assert namespace["rods"].names == ("beam", "hook", "hoop", "spring", "bent")


@pytest.mark.parametrize("page", ["potential.md", "obstacles.md", "self_contact.md"])
def test_contact_examples_run(comm, page):
    curves = [
        straight((0, 0, 0.1), (1, 0, 0.1), name="a"),
        straight((0.5, -0.5, 0.2), (0.5, 0.5, 0.2), name="b"),
    ]
    rods = create_rod_mesh(comm, curves, elements=8)
    rod = CosseratRod(rods, Section.circular(radius=0.02, E=1e7, nu=0.3, density=1000.0))
    blocks = _examples(page)
    assert blocks
    for block in blocks:
        namespace = {"rod": rod}
        exec(compile(block, page, "exec"), namespace)
        assert namespace["scene"] is not None


def test_solids_example_runs(comm):
    """docs/solids.md: a rod pressed 0.02 into a unit cube of 3³ cells, in one coupled solve."""
    block_mesh = dolfinx.mesh.create_unit_cube(comm, 3, 3, 3)
    bottom_facets = dolfinx.mesh.locate_entities_boundary(
        block_mesh, 2, lambda x: np.isclose(x[2], 0.0)
    )
    rods = create_rod_mesh(comm, [straight((0, 0.5, 1.1), (1, 0.5, 1.1))], elements=4)
    rod = CosseratRod(rods, Section.circular(radius=0.1, E=1e3, nu=0.3))
    move = (0.0, 0.0, -0.02)
    supports = [
        Support.clamped(0, "start", displacement=move),
        Support.clamped(0, "end", displacement=move),
    ]
    namespace = {
        "block_mesh": block_mesh,
        "bottom_facets": bottom_facets,
        "rod": rod,
        "supports": supports,
    }
    (block,) = _examples("solids.md")
    exec(compile(block, "solids.md", "exec"), namespace)
    assert namespace["result"].contact[-1].total_force[2] > 0  # the block pushes the rod up
