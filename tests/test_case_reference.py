"""The generated references (docs/_ext/case_reference.py) list every case-file key and flag.

Walks the case-file dataclasses independently of the generator (every field of every table
that ``load_case`` accepts, down to ``[rods.section]`` and ``[[contact.obstacles]]``) and checks
that each key has a description in its dataclass's docstring and a row in its table's section
of the generated reference, with its default; likewise every contact law and its parameters.
A key added to a case file without documentation fails here. The example case files in
``demos/cases`` use only documented keys. The command-line reference lists every argument of
every subcommand.
"""

import dataclasses
import re
import sys
import tomllib
import typing

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "_ext"))

import case_reference

from fe_rodcontact.cli.bodies_case import BodiesCase
from fe_rodcontact.cli.case import StaticsCase
from fe_rodcontact.cli.dynamics_case import DynamicsCase
from fe_rodcontact.contact import LAWS

TEXT = case_reference.case_reference()


def _keys(cls, path=""):
    """(table path, dataclass, key) for every key of every table below ``cls``."""
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        annotation = hints[field.name]
        args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
        inner = args[0] if len(args) == 1 else annotation
        if typing.get_origin(inner) is list and dataclasses.is_dataclass(typing.get_args(inner)[0]):
            inner = typing.get_args(inner)[0]
        if dataclasses.is_dataclass(inner):
            sub = f"{path}.{field.name}" if path else field.name
            yield from _keys(inner, sub)
        else:
            yield path, cls, field.name


KEYS = sorted(
    {
        (p, c.__name__, k): c
        for case in (StaticsCase, DynamicsCase, BodiesCase)
        for p, c, k in _keys(case)
    }.items()
)


def _section(path, cls_name):
    """The generated section of table ``path`` mapped onto ``cls_name``."""
    sections = re.split(r"^\(case-[\w-]+\)=\n", TEXT, flags=re.M)
    for section in sections:
        heading = section.splitlines()[0] if section else ""
        if re.match(rf"^## `\[\[?{re.escape(path)}\]\]?`", heading) and f".{cls_name}`" in section:
            return section
    raise AssertionError(f"no section for [{path}] ({cls_name})")


def test_reference_has_every_table():
    assert len(KEYS) > 100
    for table in case_reference.tables():
        assert f"## `{table.header}`" in TEXT


@pytest.mark.parametrize(("path", "cls_name", "key"), [k for k, _ in KEYS])
def test_every_key_is_documented(path, cls_name, key):
    cls = dict(KEYS)[(path, cls_name, key)]
    assert case_reference.attribute_docs(cls).get(key), f"{cls_name}.{key} has no description"
    section = _section(path, cls_name)
    row = re.search(rf"^\| `{key}` \|.*$", section, re.M)
    assert row, f"[{path}] {key} is not in the reference"
    field = {f.name: f for f in dataclasses.fields(cls)}[key]
    if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
        assert "**required**" in row.group(0)
    elif field.default is None:
        assert "not set" in row.group(0)


@pytest.mark.parametrize("name", sorted(LAWS))
def test_every_contact_law_is_documented(name):
    law = LAWS[name]
    section = TEXT.split(f"### `{name}` ")[1].split("\n### ")[0]
    docs = case_reference.attribute_docs(law)
    for field in dataclasses.fields(law):
        assert f"| `{field.name}` |" in section
        assert docs.get(field.name), f"{law.__name__}.{field.name} has no description"


def _toml_keys(table, path=""):
    for key, value in table.items():
        if (
            isinstance(value, dict)
            and key not in ("petsc_options", "law", "rod_law")
            and key not in case_reference.LAW_TABLES
        ):
            yield from _toml_keys(value, f"{path}.{key}" if path else key)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            for item in value:
                yield from _toml_keys(item, f"{path}.{key}" if path else key)
        else:
            yield path, key


@pytest.mark.parametrize(
    "case", sorted((REPO / "demos" / "cases").glob("*.toml")), ids=lambda p: p.name
)
def test_example_cases_use_documented_keys(case):
    documented = {(p, k) for p, _, k in (key for key, _ in KEYS)}
    for path, key in _toml_keys(tomllib.loads(case.read_text())):
        assert (path, key) in documented, f"{case.name}: [{path}] {key}"


@pytest.mark.parametrize("name", sorted(case_reference.subcommands()))
def test_cli_reference_lists_every_argument(name):
    text = case_reference.cli_reference()
    section = text.split(f"## `fe-rodcontact {name}`")[1].split("\n## ")[0]
    for action in case_reference.subcommands()[name]._actions:
        for flag in action.option_strings or [action.dest]:
            if flag not in ("-h", "--help"):
                assert f"`{flag}`" in section, f"{name} {flag}"
