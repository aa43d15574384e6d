"""The demo gallery: a page per ``demos/demo_*.py``, an index of thumbnails (a Sphinx extension).

The demos are jupytext "light" scripts: a block of comment lines (``# text`` or ``#``) set off
from the code by blank lines is a Markdown cell, everything else is code, and ``# +`` ... ``# -``
enclose a code cell that may hold comments and blank lines; a ``# ---`` header (jupytext's
metadata) is skipped. :func:`cells` reads that format (jupytext itself is not a dependency).

At build time (``builder-inited``) Sphinx writes, into ``docs/_generated/gallery/``, a page per
demo: its Markdown cells as text, its code cells as code blocks, how to run it (serially and
under MPI, with its flags read from its ``add_argument`` calls) and its pictures; and
``docs/_generated/gallery.md``, the thumbnails with a one-line description each, which
``docs/gallery.md`` includes. The build runs no demo: the pictures are the PNG files committed
in ``docs/_static/gallery/<demo>/`` by ``tools/gallery_pictures.py``, whose
``gallery.json`` records the command each came from. A demo with no entry there, or whose
pictures are missing, is a warning (an error under ``-W``), so the gallery cannot drift from
the demos unnoticed.
"""

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Cell", "Flag", "cells", "demo_page", "flags", "gallery_index", "problems", "write"]

DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent
DEMOS = REPO / "demos"
PICTURES = DOCS / "_static" / "gallery"
MANIFEST = PICTURES / "gallery.json"
OUTPUT = DOCS / "_generated" / "gallery"
INDEX = DOCS / "_generated" / "gallery.md"
MARKERS = ("# +", "# -")


@dataclass(frozen=True)
class Cell:
    """A cell of a light script.

    Attributes:
        kind: ``"markdown"`` or ``"code"``.
        text: The Markdown (comment marks removed) or the code.
    """

    kind: str
    text: str


@dataclass(frozen=True)
class Flag:
    """A command-line flag of a demo, read from its ``parser.add_argument`` call.

    Attributes:
        names: The option strings (``--dt``).
        default: The default as written in the source (empty when none).
        meaning: The help text, or the allowed values when there is none.
    """

    names: tuple[str, ...]
    default: str
    meaning: str


def _is_comment(line: str) -> bool:
    return line == "#" or line.startswith("# ")


def _uncomment(lines: list[str]) -> str:
    return "\n".join(line[2:] if line.startswith("# ") else "" for line in lines)


def cells(source: str) -> list[Cell]:
    """The cells of a jupytext light script, consecutive cells of a kind merged."""
    lines = source.splitlines()
    if lines and lines[0] == "# ---":  # jupytext metadata header
        end = lines.index("# ---", 1)
        lines = lines[end + 1 :]
    blocks: list[tuple[str, list[str]]] = []  # (kind, lines), blocks split at blank lines
    current: list[str] = []
    explicit = False

    def close() -> None:
        if current:
            kind = "markdown" if all(_is_comment(x) for x in current) else "code"
            blocks.append((kind, current.copy()))
            current.clear()

    for line in lines:
        if explicit:
            if line.rstrip() == "# -":
                explicit = False
                blocks.append(("code", current.copy()))
                current.clear()
            else:
                current.append(line)
        elif line.rstrip() == "# +":
            close()
            explicit = True
        elif not line.strip():
            close()
        else:
            current.append(line)
    if explicit:
        blocks.append(("code", current.copy()))
    else:
        close()
    merged: list[Cell] = []
    for kind, block in blocks:
        text = _uncomment(block) if kind == "markdown" else "\n".join(block).strip("\n")
        if not text.strip():
            continue
        if merged and merged[-1].kind == kind:
            merged[-1] = Cell(kind, merged[-1].text + "\n\n" + text)
        else:
            merged.append(Cell(kind, text))
    return merged


def _add_argument_calls(source: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
    ]


def _literal(node: ast.expr) -> str:
    """A default as a user types it: ``Path("x")`` is ``x``, a string without quotes."""
    if isinstance(node, ast.Call) and node.args and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return " ".join(_literal(e) for e in node.elts)
    return ast.unparse(node)


def flags(source: str) -> list[Flag]:
    """A demo's command-line flags, from the ``add_argument`` calls of its source."""
    found = []
    for call in _add_argument_calls(source):
        names = tuple(a.value for a in call.args if isinstance(a, ast.Constant))
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        action = keywords.get("action")
        if isinstance(action, ast.Constant) and action.value == "store_true":
            default = "off"
        else:
            default = _literal(keywords["default"]) if "default" in keywords else ""
            default = "" if default == "None" else default
        meaning = ""
        if "help" in keywords and isinstance(keywords["help"], ast.Constant):
            meaning = str(keywords["help"].value)
        if "choices" in keywords:
            choices = ", ".join(f"`{c}`" for c in _literal(keywords["choices"]).split())
            meaning = f"{meaning}; one of {choices}" if meaning else f"one of {choices}"
        found.append(Flag(names, default, meaning))
    return found


def description(source: str) -> str | None:
    """The one-line ``ArgumentParser(description=...)`` of a demo, if it is a string."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "ArgumentParser":
            for k in node.keywords:
                if k.arg == "description" and isinstance(k.value, ast.Constant):
                    return str(k.value.value)
    return None


def _title(markdown: str, name: str) -> tuple[str, str]:
    """The demo's title (its first ``#`` heading) and the rest of the Markdown cell."""
    first, _, rest = markdown.partition("\n")
    if first.startswith("# "):
        return first[2:].strip(), rest
    return name, markdown


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}


def demo_page(path: Path, record: dict[str, Any]) -> str:
    """The gallery page of the demo at ``path`` (MyST Markdown)."""
    name = path.stem
    source = path.read_text()
    parts = cells(source)
    title, intro = _title(parts[0].text, name) if parts[0].kind == "markdown" else (name, "")
    rest = parts[1:] if parts[0].kind == "markdown" else parts
    script = f"demos/{path.name}"
    lines = [
        f"<!-- Generated by docs/_ext/gallery.py from {script}. -->",
        f"(gallery-{name})=",
        f"# {title}",
        intro,
        "",
        "## Pictures",
        "",
        "Made with a small run of the demo (a few seconds to a minute; the demo's defaults are "
        "larger), by `tools/gallery_pictures.py`:",
        "",
        "```bash",
        *record.get("commands", []),
        "```",
        "",
    ]
    for picture in record.get("pictures", []):
        lines += [
            f"```{{figure}} /_static/gallery/{name}/{picture}",
            f":alt: {picture} of {name}",
            "",
            f"`{picture}`",
            "```",
            "",
        ]
    lines += [
        "## Running it",
        "",
        "From the repository's root, serially or on two MPI ranks (the results go into the "
        "folder of `--out-dir`, or the files named by the flags):",
        "",
        "```bash",
        f"python {script}",
        f"mpiexec -n 2 python {script}",
        "```",
        "",
    ]
    table = flags(source)
    if table:
        lines += ["| flag | default | meaning |", "|---|---|---|"]
        lines += [
            f"| {', '.join(f'`{n}`' for n in f.names)} | {_cell(f.default)} | {_cell(f.meaning)} |"
            for f in table
        ]
        lines.append("")
    lines += ["## The script", "", f"The whole of `{script}`, its text and its code.", ""]
    for cell in rest:
        if cell.kind == "markdown":
            lines += [cell.text, ""]
        else:
            lines += ["```python", cell.text, "```", ""]
    return "\n".join(lines)


def _blurb(path: Path) -> str:
    """A one-line description: the parser's, else the title."""
    source = path.read_text()
    first = cells(source)[0]
    return description(source) or _title(first.text, path.stem)[0]


def gallery_index(demos: list[Path], manifest: dict[str, Any]) -> str:
    """The thumbnails of the demos with a one-line description each (MyST Markdown)."""
    lines = ["<!-- Generated by docs/_ext/gallery.py from demos/demo_*.py. -->", ""]
    for path in demos:
        name = path.stem
        record = manifest.get(name, {})
        pictures = record.get("pictures", [])
        title = _title(cells(path.read_text())[0].text, name)[0]
        lines += [f"## {{doc}}`{title} </_generated/gallery/{name}>`", ""]
        if pictures:
            lines += [
                f"```{{image}} /_static/gallery/{name}/{record.get('thumbnail', pictures[0])}",
                ":width: 240px",
                ":align: left",
                f":alt: {name}",
                f":target: _generated/gallery/{name}.html",
                "```",
                "",
            ]
        lines += [f"{_blurb(path)} (`demos/{path.name}`)", ""]
        lines += ["```{raw} html", '<div style="clear: both"></div>', "```", ""]
    lines += ["```{toctree}", ":hidden:", ""]
    lines += [f"/_generated/gallery/{p.stem}" for p in demos]
    lines += ["```", ""]
    return "\n".join(lines)


def problems(demos: list[Path], manifest: dict[str, Any]) -> list[str]:
    """What keeps the gallery from matching the demos (empty when it does)."""
    found = []
    for path in demos:
        record = manifest.get(path.stem)
        if record is None or not record.get("pictures"):
            found.append(
                f"{path.stem} has no pictures in the gallery: run "
                f"`python tools/gallery_pictures.py {path.stem}` and commit docs/_static/gallery"
            )
            continue
        for picture in sorted(
            {*record["pictures"], record.get("thumbnail", record["pictures"][0])}
        ):
            if not (PICTURES / path.stem / picture).is_file():
                found.append(
                    f"docs/_static/gallery/{path.stem}/{picture} is missing: run "
                    f"`python tools/gallery_pictures.py {path.stem}` and commit it"
                )
    return found


def _write(target: Path, text: str) -> None:
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


def write() -> list[str]:
    """Write the gallery's pages and index; return its :func:`problems`."""
    demos = sorted(DEMOS.glob("demo_*.py"))
    manifest = _manifest()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    names = {f"{p.stem}.md" for p in demos}
    for stale in OUTPUT.glob("*.md"):
        if stale.name not in names:
            stale.unlink()
    for path in demos:
        _write(OUTPUT / f"{path.stem}.md", demo_page(path, manifest.get(path.stem, {})))
    _write(INDEX, gallery_index(demos, manifest))
    return problems(demos, manifest)


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point: write the gallery before the sources are read."""
    from sphinx.util import logging

    logger = logging.getLogger(__name__)

    def generate(app: Any) -> None:
        for problem in write():
            logger.warning(problem, type="gallery")

    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
