"""The case-file reference, generated from the case-file dataclasses (a Sphinx extension).

Case files map one to one onto the dataclasses of :mod:`fe_rodcontact.cli.case`,
:mod:`fe_rodcontact.cli.dynamics_case`, :mod:`fe_rodcontact.cli.contact_case` and
:mod:`fe_rodcontact.cli.bodies_case`. This module
walks those dataclasses and writes one section per table: every key with its TOML type, unit,
default, allowed values and description. Keys, types and defaults come from the dataclasses'
fields, descriptions and units from their docstrings' ``Attributes:`` sections (a unit is the
description's leading ``[...]``), allowed values from the package's constants, and the laws of
``law = { name = ... }`` from :data:`fe_rodcontact.contact.LAWS`. So the reference follows the
code, and ``tests/test_case_reference.py`` fails when a key has no description.

At build time (``builder-inited``) Sphinx writes the reference to
``docs/_generated/case_reference.md``, which ``docs/case_reference.md`` includes, and the
command-line reference (every subcommand's arguments, from ``fe_rodcontact.cli.build_parser``)
to ``docs/_generated/cli_reference.md``, which ``docs/cli_reference.md`` includes.
"""

import argparse
import dataclasses
import inspect
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fe_rodcontact.cli import build_parser
from fe_rodcontact.cli.bodies_case import BODY_MODELS, SHAPES, BodiesCase, BodySpec, SurfaceSpec
from fe_rodcontact.cli.case import LOAD_TYPES, StaticsCase
from fe_rodcontact.cli.contact_case import MODELS, ContactSpec, ObstacleSpec
from fe_rodcontact.cli.dynamics_case import DynamicsCase, TimeSpec
from fe_rodcontact.contact import CENTRELINES, LAWS
from fe_rodcontact.contact.laws import CoulombFrictionLaw, DampingLaw, NormalLaw
from fe_rodcontact.expressions import FUNCTIONS
from fe_rodcontact.rods.loads import SUPPORT_KINDS
from fe_rodcontact.stepping.dynamics import INTEGRATORS

__all__ = ["CASES", "Table", "attribute_docs", "case_reference", "cli_reference", "tables"]

CASES: dict[str, type] = {"statics": StaticsCase, "dynamics": DynamicsCase, "bodies": BodiesCase}
"""The case kinds by subcommand: ``fe-rodcontact statics|dynamics|bodies case.toml``."""

ROD_CASES = ("statics", "dynamics")
"""The rods' case kinds: a table in both has an anchor without a suffix (``case-mesh``)."""

OUTPUT = Path(__file__).resolve().parents[1] / "_generated" / "case_reference.md"
CLI_NAME = "cli_reference.md"


def _allowed() -> dict[tuple[str, str], tuple[Any, ...]]:
    """Allowed values of keys whose values the package lists in a constant."""
    from fe_rodcontact.cli.case import LoadSpec, SupportSpec

    normal_laws = tuple(name for name, cls in LAWS.items() if issubclass(cls, NormalLaw))
    return {
        (SupportSpec.__name__, "kind"): SUPPORT_KINDS,
        (LoadSpec.__name__, "type"): LOAD_TYPES,
        (TimeSpec.__name__, "integrator"): INTEGRATORS,
        (TimeSpec.__name__, "mass"): ("consistent", "lumped"),
        (ContactSpec.__name__, "model"): MODELS,
        (ContactSpec.__name__, "centreline"): CENTRELINES,
        (ContactSpec.__name__, "impacts"): ("inelastic", "error"),
        (ContactSpec.__name__, "law"): tuple(f'name = "{n}"' for n in normal_laws),
        (ContactSpec.__name__, "rod_law"): tuple(f'name = "{n}"' for n in normal_laws),
        (ObstacleSpec.__name__, "type"): ("plane", "cylinder"),
        (BodySpec.__name__, "shape"): tuple(SHAPES),
        (BodySpec.__name__, "model"): BODY_MODELS,
        (SurfaceSpec.__name__, "type"): ("plane", "drum"),
        ("BodiesContactSpec", "law"): tuple(f'name = "{n}"' for n in normal_laws),
    }


# Tables of laws that a [contact] key takes (the key's own parameters, no name).
LAW_TABLES: dict[str, type] = {
    "damping": DampingLaw,
    "rod_damping": DampingLaw,
    "friction": CoulombFrictionLaw,
    "rod_friction": CoulombFrictionLaw,
}


@dataclass(frozen=True)
class Table:
    """A table of a case file.

    Attributes:
        path: The TOML path, e.g. ``contact.obstacles``.
        array: An array of tables (``[[path]]``) rather than one table (``[path]``).
        cls: The dataclass it maps onto.
        cases: The case kinds that take it (``statics``, ``dynamics``).
    """

    path: str
    array: bool
    cls: type
    cases: tuple[str, ...]

    @property
    def header(self) -> str:
        """The table's header as written in a case file."""
        return f"[[{self.path}]]" if self.array else f"[{self.path}]"

    @property
    def anchor(self) -> str:
        """The label of its section.

        Suffixed with the case kinds that take it, unless both rod kinds do or it is a
        ``[[bodies]]`` table.
        """
        alone = set(self.cases) >= set(ROD_CASES) or self.path.split(".")[0] == "bodies"
        kinds = "" if alone else "-" + "-".join(self.cases)
        return "case-" + self.path.replace(".", "-").replace("_", "-") + kinds


def _unwrap(annotation: Any) -> Any:
    """``X`` for ``X | None``; anything else unchanged."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _table_class(annotation: Any) -> tuple[type | None, bool]:
    """The dataclass a field maps onto and whether it is an array of tables, or ``None``."""
    inner = _unwrap(annotation)
    if dataclasses.is_dataclass(inner):
        return inner, False  # type: ignore[return-value]
    if typing.get_origin(inner) is list:
        (item,) = typing.get_args(inner)
        if dataclasses.is_dataclass(item):
            return item, True  # type: ignore[return-value]
    return None, False


def _walk(cls: type, prefix: str, case: str, found: dict[tuple[str, type], list[Any]]) -> None:
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        sub, array = _table_class(hints[field.name])
        if sub is None:
            continue
        path = prefix + field.name
        found.setdefault((path, sub), [array, []])[1].append(case)
        _walk(sub, path + ".", case, found)


def tables() -> list[Table]:
    """Every table of every case kind, in the order a case file would give them."""
    found: dict[tuple[str, type], list[Any]] = {}
    for case, cls in CASES.items():
        _walk(cls, "", case, found)
    return [Table(path, array, cls, tuple(cases)) for (path, cls), (array, cases) in found.items()]


def attribute_docs(cls: type) -> dict[str, str]:
    """The descriptions of a class's ``Attributes:`` (or ``Args:``) sections, base classes too."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        text = inspect.cleandoc(klass.__dict__.get("__doc__") or "")
        section = re.search(r"^(?:Attributes|Args):\n((?:[ \t]+.*\n?|\n)+)", text, re.M)
        if section is None:
            continue
        name = None
        for line in section.group(1).splitlines():
            entry = re.match(r"^ {4}(\w+)(?: \(.*?\))?: ?(.*)$", line)
            if entry:
                name = entry.group(1)
                docs[name] = entry.group(2).strip()
            elif name is not None and line.startswith(" " * 8):
                docs[name] += " " + line.strip()
    return docs


def _split_unit(text: str) -> tuple[str, str]:
    """``(unit, description)`` from a description that starts with ``[unit]``."""
    match = re.match(r"^\[([^\]]*)\]\s*(.*)$", text, re.S)
    return (match.group(1), match.group(2)) if match else ("", text)


def _toml_type(annotation: Any) -> str:
    """The TOML type of a field."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_toml_type(a) for a in args if a is not type(None))
    if dataclasses.is_dataclass(annotation):
        return "table"
    if origin is tuple:
        return f"array of {len(args)} {_toml_type(args[0])}s"
    if origin is list:
        item = args[0]
        if dataclasses.is_dataclass(item):
            return "array of tables"
        if typing.get_origin(item) in (list, tuple):
            return f"array of arrays ({_toml_type(item)})"
        return f"array of {_toml_type(item)}s"
    if origin is dict:
        return "inline table"
    names = {float: "number", int: "integer", bool: "boolean", str: "string"}
    return names.get(annotation, str(annotation))


def _toml_value(value: Any) -> str:
    """A default value as a case file writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _default(field: dataclasses.Field[Any]) -> str:
    """The default column: the value, "required", or "not set"."""
    if field.default is not dataclasses.MISSING:
        if field.default is None:
            return "not set"
        if dataclasses.is_dataclass(field.default):
            return "(its defaults)"
        return f"`{_toml_value(field.default)}`"
    if field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
        if dataclasses.is_dataclass(value):
            return "(its defaults)"
        return f"`{_toml_value(value)}`"
    return "**required**"


def _cell(text: str) -> str:
    """Text for a cell of a Markdown table."""
    return text.replace("|", "\\|").replace("\n", " ")


def _summary(cls: type) -> str:
    """The first paragraph of a class's docstring."""
    return inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0].replace("\n", " ")


def _section(table: Table, allowed: dict[tuple[str, str], tuple[Any, ...]]) -> list[str]:
    cls = table.cls
    hints = typing.get_type_hints(cls)
    docs = attribute_docs(cls)
    kinds = " and ".join(table.cases)
    lines = [
        f"({table.anchor})=",
        f"## `{table.header}`" + ("" if len(table.cases) == len(CASES) else f" ({kinds})"),
        "",
        f"{_summary(cls)} In {kinds} case files; `{cls.__module__}.{cls.__qualname__}`.",
        "",
        "| key | type | unit | default | allowed | description |",
        "|---|---|---|---|---|---|",
    ]
    for field in dataclasses.fields(cls):
        unit, text = _split_unit(docs.get(field.name, ""))
        sub, array = _table_class(hints[field.name])
        if sub is not None:
            child = Table(f"{table.path}.{field.name}", array, sub, table.cases)
            text += f" See [`{child.header}`](#{child.anchor})."
        if field.name in LAW_TABLES:
            law = LAW_TABLES[field.name]
            text += f" Its keys: those of `{law.name}` in [the contact laws](#case-contact-laws)."
        values = allowed.get((cls.__name__, field.name), ())
        # constants as a case file writes them; law names are already `name = "..."`
        shown = [v if str(v).startswith("name = ") else _toml_value(v) for v in values]
        allowed_values = ", ".join(f"`{v}`" for v in shown)
        lines.append(
            f"| `{field.name}` | {_toml_type(hints[field.name])} | {_cell(unit)} | "
            f"{_default(field)} | {_cell(allowed_values)} | {_cell(text)} |"
        )
    lines.append("")
    return lines


def _laws_section() -> list[str]:
    lines = [
        "(case-contact-laws)=",
        "## Contact laws",
        "",
        "`law` and `rod_law` of [`[contact]`](#case-contact-dynamics) take "
        "`{ name = ..., parameters }` with a conservative law's name; `damping` and "
        "`rod_damping` take the parameters of `damping`, `friction` and `rod_friction` those of "
        "`coulomb` (without a name). The laws (`fe_rodcontact.contact.LAWS`):",
        "",
    ]
    for name, cls in LAWS.items():
        docs = attribute_docs(cls)
        kind = "conservative" if issubclass(cls, NormalLaw) else "dissipative"
        lines += [
            f"### `{name}` ({kind})",
            "",
            f"{_summary(cls)} `{cls.__module__}.{cls.__qualname__}`.",
            "",
            "| parameter | default | description |",
            "|---|---|---|",
        ]
        for field in dataclasses.fields(cls):
            lines.append(
                f"| `{field.name}` | {_default(field)} | {_cell(docs.get(field.name, ''))} |"
            )
        lines.append("")
    return lines


def case_reference() -> str:
    """The case-file reference as MyST Markdown."""
    allowed = _allowed()
    every = tables()
    lines = [
        "<!-- Generated by docs/_ext/case_reference.py from the case-file dataclasses. -->",
        "",
    ]
    for case, cls in CASES.items():
        lines.append(f"**{case.capitalize()} case files** (`fe-rodcontact {case} case.toml`):")
        lines.append("")
        docs = attribute_docs(cls)
        for table in every:
            if case in table.cases and "." not in table.path:
                text = _split_unit(docs.get(table.path, ""))[1]
                lines.append(f"- [`{table.header}`](#{table.anchor}): {text}")
        lines.append("")
    for table in every:
        lines += _section(table, allowed)
    lines += _laws_section()
    lines += [
        "(case-expressions)=",
        "## Expressions",
        "",
        "`history` (in `t`) and `[initial]` `velocity`, `angular_velocity` (in `x, y, z`) are "
        "expressions: numbers, `pi`, `e`, the variables, `+ - * / **` and the functions "
        + ", ".join(f"`{name}`" for name in FUNCTIONS)
        + " (`fe_rodcontact.expressions.FUNCTIONS`, one argument each). Nothing else is "
        "accepted and no code runs.",
        "",
    ]
    return "\n".join(lines)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """The parsers of the ``fe-rodcontact`` subcommands, by name."""
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _flag_row(action: argparse.Action) -> str:
    """A row of the flags table: flags, value, default, help."""
    flags = ", ".join(f"`{f}`" for f in action.option_strings) or f"`{action.dest}`"
    if action.nargs == 0:
        value = ""
    elif action.choices is not None:
        value = " \\| ".join(f"`{c}`" for c in action.choices)
    else:
        value = f"`{action.metavar or action.dest.upper()}`"
    default = action.default
    shown = "" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else default
    text = (action.help or "") % {"default": default} if action.help else ""
    return f"| {flags} | {value} | {_cell(str(shown))} | {_cell(text)} |"


def cli_reference() -> str:
    """Every subcommand of ``fe-rodcontact`` with its arguments, as MyST Markdown."""
    lines = [
        "<!-- Generated by docs/_ext/case_reference.py from fe_rodcontact.cli.build_parser. -->",
        "",
    ]
    for name, parser in subcommands().items():
        lines += [
            f"(cli-{name})=",
            f"## `fe-rodcontact {name}`",
            "",
            _cell(parser.description or ""),
            "",
            "| argument | value | default | meaning |",
            "|---|---|---|---|",
        ]
        lines += [_flag_row(a) for a in parser._actions if not isinstance(a, argparse._HelpAction)]
        lines.append("")
    return "\n".join(lines)


def write(path: Path = OUTPUT) -> Path:
    """Write the case-file reference to ``path`` and the command-line one beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for target, text in ((path, case_reference()), (path.with_name(CLI_NAME), cli_reference())):
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    return path


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point: write the references before the sources are read."""
    app.connect("builder-inited", lambda app: write())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
