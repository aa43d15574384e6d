"""TOML tables mapped one to one onto dataclasses: the reader of every case file.

:func:`read_toml` reads a file (an :class:`~fe_rodcontact.errors.InputError` naming it when it
cannot be read or is not TOML); :func:`from_table` builds a dataclass from a table, converting
each value to its field's annotated type (numbers, integers, booleans, strings, fixed-length
tuples, lists, tables, nested dataclasses, optional fields) and refusing unknown keys and
missing required ones with the key's full path (``rods[1].section.E``).
"""

import dataclasses
import tomllib
import types
import typing
from pathlib import Path
from typing import Any

from fe_rodcontact.errors import InputError

__all__ = ["convert", "from_table", "read_toml"]


def read_toml(path: Path) -> dict[str, Any]:
    """The top-level table of the TOML file ``path`` (an InputError naming it if it is not one)."""
    try:
        with path.open("rb") as stream:
            return tomllib.load(stream)
    except FileNotFoundError:
        raise InputError(f"{path}: no such case file; give the path of a .toml case.") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a folder, not a case file; give a .toml file in it.") from None
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}: not a text case file (byte {error.start} is not UTF-8); "
            "give a TOML file saved as UTF-8."
        ) from None
    except OSError as error:
        raise InputError(f"{path}: cannot read the case file ({error.strerror}).") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{path}: not valid TOML ({error}).") from None


def convert(value: Any, annotation: Any, where: str) -> Any:
    """Check and convert a TOML value to a field's annotated type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for option in (a for a in args if a is not type(None)):
            try:
                return convert(value, option, where)
            except InputError as error:
                errors.append(str(error))
        raise InputError(errors[-1])
    if dataclasses.is_dataclass(annotation):
        if not isinstance(value, dict):
            raise InputError(f"{where} must be a table, got {value!r}.")
        return from_table(annotation, value, where)  # type: ignore[arg-type]
    if origin is tuple:
        if not isinstance(value, list) or len(value) != len(args):
            raise InputError(f"{where} must be a list of {len(args)} numbers, got {value!r}.")
        return tuple(convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if origin is list:
        if not isinstance(value, list):
            raise InputError(f"{where} must be a list, got {value!r}.")
        return [convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise InputError(f"{where} must be a table, got {value!r}.")
        return dict(value)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(f"{where} must be a number, got {value!r}.")
        return float(value)
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{where} must be an integer, got {value!r}.")
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            raise InputError(f"{where} must be true or false, got {value!r}.")
        return value
    if annotation is str:
        if not isinstance(value, str):
            raise InputError(f"{where} must be a string, got {value!r}.")
        return value
    raise TypeError(f"no conversion for {annotation}")  # a bug in the schema, not the input


def from_table(cls: type, table: dict[str, Any], where: str) -> Any:
    """Build dataclass ``cls`` from a TOML table; unknown keys and missing fields are errors."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - set(fields))
    if unknown:
        prefix = f"{where}." if where else ""
        raise InputError(
            f"unknown key {prefix}{unknown[0]}; allowed keys in {where or 'the top level'}: "
            f"{sorted(fields)}."
        )
    values = {}
    for name, f in fields.items():
        key = f"{where}.{name}" if where else name
        if name in table:
            values[name] = convert(table[name], hints[name], key)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise InputError(f"missing key {key}.")
    try:
        return cls(**values)
    except InputError as error:
        raise InputError(f"{where}: {error}" if where else str(error)) from None
