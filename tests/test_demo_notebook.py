"""The demos run inside a Jupyter kernel: the kernel's own arguments do not stop them.

A kernel's command line is ``ipykernel_launcher.py -f /path/kernel-….json`` (plus, at times,
traitlets settings ``--Class.trait=value``), and a demo run as a notebook sees it in
``sys.argv``. Every demo reads its flags through
:func:`fe_rodcontact.cli.notebook.parse_demo_arguments`, which drops those and nothing else.
"""

import argparse
import ast
import runpy
import sys

import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.cli.notebook import kernel_arguments, parse_demo_arguments

KERNEL = ["-f", "/root/.local/share/jupyter/runtime/kernel-1234.json"]
DEMOS = sorted((REPO / "demos").glob("demo_*.py"))


def demo_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--elements", type=int, default=10)
    parser.add_argument("--fast", action="store_true")
    return parser


@pytest.mark.parametrize(
    "extra",
    [
        KERNEL,
        ["-f=/tmp/kernel.json"],
        ["--f=/tmp/kernel.json"],  # VS Code's form
        [*KERNEL, "--HistoryManager.enabled=False"],
    ],
)
def test_kernel_arguments_are_dropped(extra):
    args = parse_demo_arguments(demo_parser(), ["--elements", "4", *extra])
    assert args.elements == 4 and not args.fast
    assert kernel_arguments(extra) == (extra, [])


@pytest.mark.parametrize("wrong", [["--elemnts", "4"], ["--fats"], ["stray"], ["-g", "x"]])
def test_other_unknown_arguments_still_stop_the_demo(wrong, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_demo_arguments(demo_parser(), [*KERNEL, *wrong])
    assert stop.value.code == 2
    assert f"unrecognized arguments: {' '.join(wrong)}" in capsys.readouterr().err


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.name)
def test_every_demo_reads_its_flags_through_the_helper(path):
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
    }
    assert "parse_demo_arguments" in calls and "parse_args" not in calls


def test_demo_runs_with_a_kernels_command_line(comm, shared_tmp, monkeypatch):
    """The flying spaghetti, run as a kernel would run it (its flags after the kernel's)."""
    out = shared_tmp / "spaghetti.npz"
    argv = ["ipykernel_launcher.py", *KERNEL, "--elements", "4", "--dt", "0.25"]
    monkeypatch.setattr(sys, "argv", [*argv, "--t-end", "0.5", "--out", str(out)])
    runpy.run_path(str(REPO / "demos" / "demo_flying_spaghetti.py"), run_name="__main__")
    comm.barrier()
    assert np.load(out)["t"].shape == (3,)
