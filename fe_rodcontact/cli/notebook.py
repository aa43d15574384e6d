"""The demos' flags, read the same way in a terminal and inside a Jupyter kernel.

A Jupyter (IPython) kernel starts with its own command line, e.g.
``ipykernel_launcher.py -f /path/kernel-1234.json`` (VS Code writes ``--f=/path/….json``,
and a kernel may add traitlets settings such as ``--HistoryManager.enabled=False``), and a
script run in it as a notebook sees that command line in ``sys.argv``: ``parse_args`` would
stop with "unrecognized arguments: -f". :func:`parse_demo_arguments` drops exactly those
arguments, so a demo opened as a notebook (jupytext) runs with its defaults; any other argv
argument is still an error, as in a terminal (a misspelt flag must not be ignored).
"""

import argparse
import re
import sys
from collections.abc import Sequence

__all__ = ["kernel_arguments", "parse_demo_arguments"]

# ``--Class.trait=value``: a traitlets setting on the kernel's command line.
_TRAIT = re.compile(r"^--[A-Za-z_]\w*(\.[A-Za-z_]\w*)+=")


def kernel_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split a command line into (the kernel's arguments, the others).

    The kernel's are ``-f FILE``, ``-f=FILE``, ``--f=FILE`` (its connection file) and
    traitlets settings ``--Class.trait=value``. They are taken out before the demo's parser
    sees them: ``--f=FILE`` would otherwise be read as an abbreviation of a ``--f…`` flag.
    """
    kernel: list[str] = []
    others: list[str] = []
    i = 0
    while i < len(argv):
        item = argv[i]
        if item == "-f" and i + 1 < len(argv):
            kernel += [item, argv[i + 1]]
            i += 2
            continue
        if item.startswith(("-f=", "--f=")) or _TRAIT.match(item):
            kernel.append(item)
        else:
            others.append(item)
        i += 1
    return kernel, others


def parse_demo_arguments(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None = None
) -> argparse.Namespace:
    """``parser.parse_args(argv)`` that ignores a Jupyter kernel's own arguments.

    Args:
        parser: the demo's parser (it must not itself define ``-f``).
        argv: the arguments; ``sys.argv[1:]`` when None.

    Returns:
        The parsed flags. Any other unknown argument stops the script with the parser's usual
        message (exit status 2).
    """
    _, others = kernel_arguments(sys.argv[1:] if argv is None else argv)
    return parser.parse_args(others)
