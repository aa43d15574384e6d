"""The rod-on-soft-block demo runs small (serially and on 2 ranks) and writes its outputs."""

import runpy
import sys

import numpy as np
from conftest import REPO

from fe_rodcontact.solid.hertz import line_contact_indentation


def test_demo_rod_on_soft_block(comm, shared_tmp, monkeypatch, capsys):
    """Coarse meshes (4 and 6 cells), two steps to 0.1 R: picture, ParaView files, curves.

    The curves rise with the indentation, and at 6 cells the last point lies within 25 % of
    the Hertz estimate (measured −14 %: a mesh this coarse; the test of the physics is
    tests/test_solid_contact.py::test_hertz_line_contact).
    """
    out = shared_tmp / "soft_block"
    argv = ["demo_rod_on_soft_block.py", "--cells", "4", "6", "--depth", "0.1", "--steps", "2"]
    monkeypatch.setattr(sys, "argv", [*argv, "--out-dir", str(out)])
    runpy.run_path(str(REPO / "demos" / "demo_rod_on_soft_block.py"), run_name="__main__")
    comm.barrier()
    assert (out / "force_indentation.png").is_file()
    assert (out / "solid.bp").is_dir() and (out / "rod.bp").is_dir()
    data = np.load(out / "force_indentation.npz")
    for key in ("cells_4", "cells_6"):
        curve = data[key]
        assert curve.shape == (2, 2) and np.all(np.diff(curve, axis=0) > 0)
    delta, load = data["cells_6"][-1]
    hertz = line_contact_indentation(load, 1.0, 1.0, 0.3, 10.0)
    assert abs(delta - hertz) < 0.25 * hertz
    if comm.rank == 0:
        assert "Newton iterations per step" in capsys.readouterr().out
