"""Regenerate the pictures of the demo gallery (``docs/_static/gallery/``).

The manual's build does not run the demos (that would take minutes): it shows the pictures
committed in ``docs/_static/gallery/<demo>/``, and ``docs/_ext/gallery.py`` fails the build
when a demo has none. This script runs every demo (or those named) serially with the small
sizes of :data:`RUNS` (seconds to a minute each), copies the PNG files they write into
``docs/_static/gallery/<demo>/`` (in 256 colours: a third of the size, the same resolution;
Pillow comes with matplotlib) and records in ``docs/_static/gallery/gallery.json`` the
command each picture came from and how long it took, which the gallery pages show::

    python tools/gallery_pictures.py                       # every demo
    python tools/gallery_pictures.py demo_rod_hits_ball    # one (or a few)

A new demo needs an entry in :data:`RUNS` (``tests/test_docs_gallery.py`` checks it).
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["GALLERY", "MANIFEST", "RUNS", "THUMBNAILS", "command", "main", "run_demo", "shrink"]

REPO = Path(__file__).resolve().parents[1]
GALLERY = REPO / "docs" / "_static" / "gallery"
MANIFEST = GALLERY / "gallery.json"

OUT = "{out}"
"""Stands for the run's output folder in :data:`RUNS`."""

RUNS: dict[str, list[list[str]]] = {
    "demo_crossed_strings": [["--elements", "12", "--t-end", "0.1", "--dt", "2e-3"]],
    "demo_flying_spaghetti": [
        ["--elements", "6", "--dt", "0.1", "--t-end", "15", "--plot", f"{OUT}/flying_spaghetti.png"]
    ],
    "demo_rod_hits_ball": [["--elements", "12", "--t-end", "0.1", "--dt", "1e-3"]],
    "demo_rod_on_plane": [
        ["--scene", "rod", "--elements", "16", "--t-end", "0.3", "--dt", "2e-3"],
        ["--scene", "ring", "--elements", "16", "--t-end", "0.3", "--dt", "2e-3"],
        ["--scene", "pull-off", "--elements", "8", "--t-end", "1.0", "--dt", "0.01"],
    ],
    "demo_rod_on_soft_block": [["--cells", "4", "6", "8", "--steps", "4"]],
    "demo_rolling_self_contact": [["--t-end", "0.15"]],
    "demo_rolling_vs_potential": [["--elements", "12", "--t-end", "0.1", "--mu", "0,10"]],
    "demo_rollup_helix": [["--elements", "32"]],
    "demo_strings_contact": [["--elements", "24", "--dt", "0.05", "--t-end", "40"]],
    "demo_tatone_adhesion": [["--t-end", "0.15", "--order", "2"]],
    "demo_tatone_balls": [["--points", "200", "--t-end", "0.3", "--dt", "2e-3"]],
    "demo_tatone_dice": [["--order", "3", "--t-end", "0.5", "--dt", "2e-3"]],
    "demo_tatone_micro_switch": [[]],
    "demo_tatone_rocking_block": [["--order", "4", "--t-end", "1.0", "--dt", "4e-3"]],
    "demo_tatone_top": [["--order", "8", "--t-end", "0.1", "--dt", "1e-3"]],
}
"""Each demo's runs for the gallery: the flags of each (``{out}``: its output folder, passed
as ``--out-dir`` unless a flag names it)."""

THUMBNAILS: dict[str, str] = {
    "demo_crossed_strings": "snapshots.png",
    "demo_flying_spaghetti": "flying_spaghetti_motion.png",
    "demo_rod_on_plane": "ring.png",
    "demo_strings_contact": "space_time_symmetric.png",
}
"""The picture of a demo's thumbnail in the gallery, where it is not the first by name."""


def shrink(png: Path, target: Path) -> None:
    """Write ``png`` to ``target`` in 256 colours (a plot has few; a third of the bytes)."""
    from PIL import Image

    with Image.open(png) as image:
        palette = image.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
    palette.save(target, format="PNG", optimize=True)


def command(demo: str, flags: list[str], out: str) -> list[str]:
    """The command line of one run of ``demo`` writing into ``out``."""
    filled = [flag.replace(OUT, out) for flag in flags]
    if not any(OUT in flag for flag in flags):
        filled += ["--out-dir", out]
    return ["python", f"demos/{demo}.py", *filled]


def run_demo(demo: str, timeout: float = 600.0) -> dict[str, object]:
    """Run ``demo``'s gallery runs; copy its PNG files into the gallery; return its record."""
    target = GALLERY / demo
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    commands: list[str] = []
    pictures: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for flags in RUNS[demo]:
            line = command(demo, flags, tmp)
            subprocess.run(
                [sys.executable, *line[1:]], cwd=REPO, check=True, timeout=timeout,
                stdout=subprocess.DEVNULL,
            )  # fmt: skip
            commands.append(" ".join(command(demo, flags, f"results/{demo[5:]}")))
        for png in sorted(Path(tmp).rglob("*.png")):
            shrink(png, target / png.name)
            pictures.append(png.name)
    seconds = time.perf_counter() - start
    if not pictures:
        raise RuntimeError(f"{demo} wrote no PNG file: give it flags in RUNS that draw")
    thumbnail = THUMBNAILS.get(demo, pictures[0])
    if thumbnail not in pictures:
        raise RuntimeError(f"{demo} wrote no {thumbnail}: fix THUMBNAILS")
    return {
        "commands": commands,
        "pictures": pictures,
        "thumbnail": thumbnail,
        "seconds": round(seconds, 1),
    }


def main(argv: list[str] | None = None) -> None:
    """Regenerate the pictures of the demos named (all of :data:`RUNS` by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demos", nargs="*", help="demo names (demo_x), all by default")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.demos) - set(RUNS))
    if unknown:
        parser.error(f"no gallery runs for {unknown}: add them to RUNS in {Path(__file__).name}")
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    failed = []
    for demo in args.demos or list(RUNS):
        try:
            manifest[demo] = run_demo(demo)
        except (subprocess.SubprocessError, RuntimeError) as error:
            print(f"{demo}: FAILED ({error}); its pictures are gone", file=sys.stderr)
            manifest.pop(demo, None)
            failed.append(demo)
        else:
            print(f"{demo}: {manifest[demo]['pictures']} in {manifest[demo]['seconds']} s")
        MANIFEST.write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")
    if failed:
        sys.exit(f"no pictures for {failed}: the docs build fails until they have some")


if __name__ == "__main__":
    main()
