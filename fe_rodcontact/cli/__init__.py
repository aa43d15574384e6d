"""The ``fe-rodcontact`` command line and its case files: one subcommand per module here.

Each subcommand module defines ``add_parser(subparsers)`` (its flags) and ``run(args) -> int``;
:mod:`fe_rodcontact.cli.main` holds the parser, the exit codes and :func:`main`.
"""

from fe_rodcontact.cli.main import EXIT_CODES, build_parser, main

__all__ = ["EXIT_CODES", "build_parser", "main"]
