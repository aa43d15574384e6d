"""The Python examples of the manual's guide pages run as written.

The getting-started page shows the README's examples (run by tests/test_readme_commands.py).
The guide pages' examples run here: ``modelling.md`` on its own, and the contact pages
(``potential.md``, ``obstacles.md``, ``self_contact.md``) with ``rod`` given, as their text
says: two crossed rods with a circular section. They only build objects (scenes, models, laws,
meshes), so a wrong name or argument fails here, not in a reader's hands.
"""

import re

import pytest
from conftest import REPO

from fe_rodcontact import CosseratRod, Section, create_rod_mesh, straight


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
