"""The package builds as a wheel that installs into a fresh environment and imports.

The wheel is built from a copy of the sources (``pyproject.toml``, ``README.md``, ``LICENSE``,
``fe_rodcontact/``) with the installed setuptools (``--no-build-isolation``: no download), so the
working tree gets no ``build/`` or ``*.egg-info``. It is installed without dependencies into a
new venv that sees this environment's packages (DOLFINx, numpy, ...) and MPI library after its
own, and a Python started outside the repository imports ``fe_rodcontact`` from the venv and
reports the version of ``pyproject.toml``. Serial only: one build is enough, and ranks would
race on pip.
"""

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.skip_in_parallel
def test_wheel_builds_installs_and_imports(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "fe_rodcontact",
        source / "fe_rodcontact",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    dist = tmp_path / "dist"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", str(source), "-w", str(dist)]
    subprocess.run(build, check=True, cwd=tmp_path, env=env, timeout=120)
    (wheel,) = dist.glob("*.whl")
    assert wheel.name.startswith(f"fe_rodcontact-{VERSION}-")

    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
        timeout=60,
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    # This environment's packages after the venv's own: a venv made from a venv does not see them.
    parent = [sysconfig.get_path("purelib"), *site.getsitepackages()]
    (venv / purelib.split(str(venv) + "/")[1] / "parent.pth").write_text("\n".join(parent) + "\n")
    install = [*pip, "--python", str(python), "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(install, check=True, cwd=tmp_path, env=env, timeout=120)

    # The PyPI MPI wheel's libmpi lies in this environment's prefix, where mpi4py looks for it.
    libraries = [str(Path(sys.prefix) / "lib"), os.environ.get("LD_LIBRARY_PATH", "")]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in libraries if p)
    check = "import fe_rodcontact as f; print(f.__version__); print(f.__file__)"
    out = subprocess.run(
        [python, "-c", check], check=True, capture_output=True, text=True, cwd=tmp_path, env=env
    ).stdout.split()
    assert out[0] == VERSION
    assert out[1].startswith(str(venv)), out[1]  # the installed copy, not the source tree
