"""The README's commands and Python examples work as written from the repository root.

Each ``fe-rodcontact`` line in a README code block must parse, name existing case files that
load, and a ``--restart`` example must use a case that writes checkpoints. The commands
themselves run in tests/test_cli_statics.py, tests/test_faults.py and the demos' tests. The
Python examples run as they are, and their results are checked: the cantilever rolled up twice
by its end moment M = 2·2π EI/L is back at its clamp (the tip displaced by (−L, 0, 0), to the
Newton tolerance: 1e-6 L), and the rod dropped on the floor touches it, never reaches it (the
repulsive law is singular there) and conserves energy (total − external work, 1e-8 J of about
1 J). The manual's getting-started page shows the same two examples.
"""

import re
import shlex

import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.cli import build_parser
from fe_rodcontact.cli.bodies_case import BodiesCase
from fe_rodcontact.cli.case import StaticsCase, load_case
from fe_rodcontact.cli.dynamics_case import DynamicsCase

BLOCKS = re.findall(r"```bash\n(.*?)```", (REPO / "README.md").read_text(), re.S)
EXAMPLES = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
COMMANDS = [
    line.split("#")[0].strip()
    for block in BLOCKS
    for line in block.splitlines()
    if re.match(r"^(mpiexec -n \d+ )?fe-rodcontact ", line.strip())
]


def test_readme_has_commands():
    assert len(COMMANDS) >= 6


def test_readme_says_how_to_reach_the_command():
    text = (REPO / "README.md").read_text()
    assert "source .venv/bin/activate" in text and ".venv/bin/fe-rodcontact" in text


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_is_valid(command):
    words = shlex.split(command)
    words = words[words.index("fe-rodcontact") + 1 :]
    args = build_parser().parse_args(words)
    if args.command in ("statics", "dynamics", "bodies"):
        case = REPO / args.case
        assert case.exists(), case
        kinds = {"statics": StaticsCase, "dynamics": DynamicsCase, "bodies": BodiesCase}
        loaded = load_case(case, kinds[args.command])
        if getattr(args, "restart", False):
            assert loaded.output.checkpoint_every > 0
        assert not ((REPO / loaded.output.folder).resolve().is_relative_to(REPO / "demos"))


def test_readme_links_exist():
    """The README's links into the repository (the manual's pages) name existing files."""
    links = re.findall(r"\]\(([^)#]+)[^)]*\)", (REPO / "README.md").read_text())
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10
    missing = [link for link in local if not (REPO / link).exists()]
    assert not missing


def test_getting_started_shows_the_readme_examples():
    """The manual's getting-started page shows the same examples, so running these checks it."""
    page = (REPO / "docs" / "getting_started.md").read_text()
    assert re.findall(r"```python\n(.*?)```", page, re.S) == EXAMPLES


def test_readme_python_examples_run(capsys):
    assert len(EXAMPLES) == 2
    rollup: dict = {}
    exec(compile(EXAMPLES[0], "README.md", "exec"), rollup)
    assert np.allclose(rollup["tip"], (-10.0, 0.0, 0.0), atol=1e-5)
    drop: dict = {}
    exec(compile(EXAMPLES[1], "README.md", "exec"), drop)
    series = drop["series"]
    assert series["contacts"].max() > 0
    assert 0 < series["min_gap"].min() < 0.005
    assert np.ptp(series["total_energy"]) < 1e-8
