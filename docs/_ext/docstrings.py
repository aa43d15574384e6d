"""The package's docstrings in the API reference: their notation and references (Sphinx extension).

**Notation.** Docstrings write norms and absolute values as ``|x|``, which reStructuredText
would read as a substitution; outside literals every ``|`` is escaped before napoleon and
autodoc parse the docstring.

**References.**

The API reference documents the public names (the ``__all__`` of ``fe_rodcontact`` and its
public subpackages), under the names users import them by (``fe_rodcontact.Section``). The
docstrings refer to objects by the modules that define them
(``:class:`~fe_rodcontact.rods.section.Section```) or by names relative to their own module.
This extension resolves such a reference that Sphinx did not find:

- to the public name when the object is exported (a link into the API reference);
- to plain text when the object exists but is not public (an implementation detail);
- not at all when no such object exists, so the nitpicky build fails on a misspelt name.

Napoleon reads some prose in ``Returns:`` sections as a type (``(u, θ)``); a target that is
not a dotted Python name is such prose and becomes plain text.
"""

import functools
import re
import sys
from typing import Any

__all__ = ["escape_bars", "lookup", "setup"]

PUBLIC = ("fe_rodcontact", "fe_rodcontact.contact", "fe_rodcontact.strings", "fe_rodcontact.cli")
"""The modules whose ``__all__`` the API reference documents."""

_MISSING = object()


def lookup(path: str) -> Any:
    """The object at dotted ``path`` (an imported module, then attributes), or ``_MISSING``.

    Only modules already imported are searched (autodoc has imported the package): trying to
    import every prefix of every candidate would cost seconds of the build.
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        obj: Any = sys.modules.get(".".join(parts[:cut]))
        if obj is None:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


def _candidates(target: str, node: Any) -> list[str]:
    """Where ``target`` may live: as given, relative to the node's module and class, anywhere."""
    found = [target]
    module, cls = node.get("py:module"), node.get("py:class")
    if module and cls:
        found.append(f"{module}.{cls}.{target}")
    if module:
        found.append(f"{module}.{target}")
    if not target.startswith("fe_rodcontact"):
        loaded = sorted(m for m in sys.modules if m.startswith("fe_rodcontact"))
        found += [f"{m}.{target}" for m in loaded]
    return found


def _public_name(obj: Any, name: str) -> str | None:
    """The public name ``package.name`` of ``obj``, when a public ``__all__`` exports it."""
    for package in PUBLIC:
        module = sys.modules.get(package)
        if module is not None and name in getattr(module, "__all__", ()):
            if getattr(module, name, _MISSING) is obj:
                return f"{package}.{name}"
    return None


@functools.cache
def _resolve(target: str, module: str | None, cls: str | None) -> tuple[bool, str | None]:
    """Whether ``target`` names an object, and its public name if it has one."""
    node = {"py:module": module, "py:class": cls}
    for path in _candidates(target, node):
        obj = lookup(path)
        if obj is _MISSING:
            continue
        parts = path.split(".")
        public = _public_name(obj, parts[-1])
        if public is None and len(parts) > 1:  # a method or attribute of a public class
            owner = _public_name(lookup(".".join(parts[:-1])), parts[-2])
            public = f"{owner}.{parts[-1]}" if owner else None
        return True, public
    return False, None


def missing_reference(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve a Python reference that Sphinx did not find (see the module docstring)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    if not re.fullmatch(r"[A-Za-z_][\w.]*", target):
        return contnode  # prose that napoleon took for a type
    found, public = _resolve(target, node.get("py:module"), node.get("py:class"))
    if found:
        if public is not None and public != target:
            domain = env.get_domain("py")
            resolved = domain.resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], public, node, contnode
            )
            if resolved is not None:
                return resolved
        return contnode
    return None


def escape_bars(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Escape ``|`` outside ``literals`` in a docstring (norms, not substitutions)."""
    for i, line in enumerate(lines):
        parts = re.split(r"(``.*?``)", line)
        lines[i] = "".join(p if p.startswith("``") else p.replace("|", "\\|") for p in parts)


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point."""
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", escape_bars, priority=100)
    app.connect("missing-reference", missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
