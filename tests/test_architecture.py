"""The package's layers: every module imports only from its own layer and those below it.

The layers, bottom to top (docs/architecture.md): the base modules (errors, checks of
arguments, the DOLFINx version check, expressions), ``rods`` (the model), ``solvers`` (Newton
and the bordered solve: no rods, no contact), ``contact.geometry`` (where things touch),
``contact`` (the models, their laws and the scene), ``bodies`` (Tatone's rigid and affine
bodies: they use the contact laws and the planes, and know no rods), ``coupling`` (rods and
bodies in one solve: a body as an obstacle with dynamics), ``stepping`` (schemes,
the stepper, the problems), ``solid`` (a user's DOLFINx solid coupled to the rods),
``strings`` (the reduced model), ``io`` (files), ``cli`` (the
command and case files). The package's ``__init__`` files only re-export. Checked on the
import statements of every module (runtime and type-checking ones).
"""

import ast
from pathlib import Path

import pytest
from conftest import REPO

LAYERS = (
    (
        "fe_rodcontact.errors",
        "fe_rodcontact.arguments",
        "fe_rodcontact.compat",
        "fe_rodcontact.expressions",
    ),
    ("fe_rodcontact.rods",),
    ("fe_rodcontact.solvers",),
    ("fe_rodcontact.contact.geometry",),
    ("fe_rodcontact.contact",),
    ("fe_rodcontact.bodies",),
    ("fe_rodcontact.coupling",),
    ("fe_rodcontact.stepping",),
    ("fe_rodcontact.solid",),
    ("fe_rodcontact.strings",),
    ("fe_rodcontact.io",),
    ("fe_rodcontact.cli",),
)
PACKAGE = REPO / "fe_rodcontact"


def layer(module: str) -> int:
    """The layer of a module (its most specific prefix in :data:`LAYERS`)."""
    best, length = -1, -1
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = rank, len(prefix)
    return best


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[str]:
    """The fe_rodcontact modules that ``path`` imports."""
    found = []
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("fe_rodcontact")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if base.startswith("fe_rodcontact"):
                found += [f"{base}.{a.name}" for a in node.names]
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_run_down_the_layers(path):
    name = module_name(path)
    own = layer(name)
    assert own >= 0, f"{name} is in no layer"
    upward = [m for m in imports(path) if layer(m) > own]
    assert not upward, f"{name} (layer {own}) imports from higher layers: {upward}"


def test_package_init_files_only_reexport():
    for path in PACKAGE.rglob("__init__.py"):
        tree = ast.parse(path.read_text())
        body = [n for n in tree.body if not isinstance(n, ast.Expr | ast.Import | ast.ImportFrom)]
        assert all(isinstance(n, ast.Assign) for n in body), path  # only __all__
