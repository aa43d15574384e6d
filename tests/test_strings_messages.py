"""The strings command reports progress and the length of its sound."""

import wave

from mpi4py import MPI

import pytest

from fe_rodcontact.cli import main
from fe_rodcontact.cli.strings import sound_seconds
from fe_rodcontact.strings.config import StringsConfig


def test_progress_lines_unless_quiet(shared_tmp, capsys):
    out = shared_tmp / "p.npz"
    assert main(["strings", "--dt", "0.01", "--t-end", "0.4", "--out", str(out)]) == 0
    loud = capsys.readouterr().out
    assert main(["strings", "--dt", "0.01", "--t-end", "0.4", "--out", str(out), "--quiet"]) == 0
    quiet = capsys.readouterr().out
    if MPI.COMM_WORLD.rank == 0:
        progress = [line for line in loud.splitlines() if line.strip().startswith("t =")]
        assert len(progress) == 20  # every 40 / 20 = 2 steps
        assert progress[-1].split()[2] == "0.4000"
        (last,) = quiet.splitlines()  # quiet: only where the results went, and how long
        assert last.startswith(f"fe-rodcontact strings: results in {out} (took ")


def test_wav_duration_is_printed_and_true(shared_tmp, capsys):
    wav = shared_tmp / "s.wav"
    argv = ["strings", "--t-end", "2", "--wav", str(wav), "--pitch", "110"]
    assert main([*argv, "--out", str(shared_tmp / "s.npz")]) == 0
    text = capsys.readouterr().out
    seconds, one_second = sound_seconds(StringsConfig(t_end=2.0), 110.0)
    if MPI.COMM_WORLD.rank == 0:
        with wave.open(str(wav)) as sound:
            measured = sound.getnframes() / sound.getframerate()
        assert measured == pytest.approx(seconds, abs=2 / 44100)
        assert f"{seconds:.3g} s of sound" in text
        assert f"--t-end {one_second:.6g} gives one second" in text
    # the proposed --t-end really gives one second
    assert sound_seconds(StringsConfig(t_end=one_second), 110.0)[0] == pytest.approx(1.0)
