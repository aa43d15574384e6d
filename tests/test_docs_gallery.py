"""The demo gallery of the manual (docs/_ext/gallery.py) covers every demo with its pictures.

Every ``demos/demo_*.py`` has runs in ``tools/gallery_pictures.py``, an entry in
``docs/_static/gallery/gallery.json`` and its PNG files committed beside it; its page holds its
title, every line of its code, the commands to run it serially and under ``mpiexec`` and a
figure per picture. The reader of the jupytext light format is checked on a small script with
explicit cell markers and a Markdown bullet that looks like one (``# - item``). Nothing here
runs a demo or Sphinx: it reads files, a fraction of a second.
"""

import importlib.util
import json
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "_ext"))

import gallery

DEMOS = sorted((REPO / "demos").glob("demo_*.py"))
MANIFEST = json.loads((REPO / "docs" / "_static" / "gallery" / "gallery.json").read_text())


def _tool():
    spec = importlib.util.spec_from_file_location(
        "gallery_pictures", REPO / "tools" / "gallery_pictures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_demo_has_gallery_runs_and_pictures():
    assert DEMOS
    assert sorted(_tool().RUNS) == [p.stem for p in DEMOS]
    assert gallery.problems(DEMOS, MANIFEST) == []
    for path in DEMOS:
        assert MANIFEST[path.stem]["thumbnail"] in MANIFEST[path.stem]["pictures"]
        for picture in MANIFEST[path.stem]["pictures"]:
            png = REPO / "docs" / "_static" / "gallery" / path.stem / picture
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
            assert png.stat().st_size < 400_000, f"{png} is large: lower its dpi"


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.stem)
def test_demo_page(path):
    page = gallery.demo_page(path, MANIFEST[path.stem])
    script = f"demos/{path.name}"
    assert f"\npython {script}\n" in page and f"\nmpiexec -n 2 python {script}\n" in page
    for picture in MANIFEST[path.stem]["pictures"]:
        assert f"```{{figure}} /_static/gallery/{path.stem}/{picture}\n" in page
    for command in MANIFEST[path.stem]["commands"]:
        assert command.startswith(f"python {script}") and f"\n{command}\n" in page
    code = [c for c in gallery.cells(path.read_text()) if c.kind == "code"]
    for line in "\n".join(c.text for c in code).splitlines():
        assert line in page, line
    assert "--out-dir" in page or "--plot" in page


def test_light_format_cells():
    source = "\n".join(
        [
            "# # Title",
            "#",
            "# - a bullet, not a cell marker",
            "",
            "import os",
            "",
            "x = 1",
            "",
            "# ## Section",
            "",
            "# +",
            "# a comment in code",
            "",
            "y = 2",
            "# -",
            "",
            "# end",
        ]
    )
    cells = gallery.cells(source)
    assert [c.kind for c in cells] == ["markdown", "code", "markdown", "code", "markdown"]
    assert cells[0].text == "# Title\n\n- a bullet, not a cell marker"
    assert cells[1].text == "import os\n\nx = 1"
    assert cells[3].text == "# a comment in code\n\ny = 2"
    assert cells[4].text == "end"


def test_missing_pictures_are_reported(tmp_path):
    demo = tmp_path / "demo_new.py"
    demo.write_text("# # New\n\nimport argparse\n")
    (problem,) = gallery.problems([demo], {})
    assert "demo_new has no pictures" in problem and "gallery_pictures.py demo_new" in problem
    (problem,) = gallery.problems([demo], {"demo_new": {"pictures": ["a.png"]}})
    assert "docs/_static/gallery/demo_new/a.png is missing" in problem


def test_flags_read_from_the_parser():
    source = "\n".join(
        [
            "import argparse",
            "from pathlib import Path",
            'parser = argparse.ArgumentParser(description="One line.")',
            'parser.add_argument("--dt", type=float, default=1e-3, help="time step (s)")',
            'parser.add_argument("--scene", choices=("rod", "ring"), default="rod")',
            'parser.add_argument("--fast", action="store_true", help="fewer steps")',
            'parser.add_argument("--out-dir", type=Path, default=Path("results/x"))',
        ]
    )
    assert gallery.description(source) == "One line."
    assert gallery.flags(source) == [
        gallery.Flag(("--dt",), "0.001", "time step (s)"),
        gallery.Flag(("--scene",), "rod", "one of `rod`, `ring`"),
        gallery.Flag(("--fast",), "off", "fewer steps"),
        gallery.Flag(("--out-dir",), "results/x", ""),
    ]
