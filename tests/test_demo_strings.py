"""The strings demo runs small (serially and on 2 ranks) and writes figures, sounds, measures."""

import json
import runpy
import sys

from conftest import REPO


def test_demo_strings_contact(comm, shared_tmp, monkeypatch, capsys):
    out = shared_tmp / "strings_demo"
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "demo_strings_contact.py",
            "--elements",
            "12",
            "--dt",
            "0.1",
            "--t-end",
            "8",
            "--output-interval",
            "0.1",
            "--out-dir",
            str(out),
        ],
    )
    runpy.run_path(str(REPO / "demos" / "demo_strings_contact.py"), run_name="__main__")
    if comm.rank == 0:
        printed = capsys.readouterr().out
        assert "no contact: line at" in printed
        assert printed.count("Lyapunov estimate") == 4
        for name in (
            "space_time_symmetric.png",
            "space_time_asymmetric.png",
            "spectrum.png",
            "u_hat1_contact.wav",
            "u_hat1_free.wav",
        ):
            assert (out / name).stat().st_size > 0, name
        report = json.loads((out / "chaos_measures.json").read_text())
        assert len(report) == 5
        for case in report.values():
            assert "num_peaks" in case
