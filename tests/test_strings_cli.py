"""``fe-rodcontact strings``: flags map onto the model, files are written, bad input exits 2."""

import numpy as np

from fe_rodcontact.cli import main


def test_cli_writes_time_series_figures_and_sound(comm, shared_tmp):
    out = shared_tmp / "cli" / "run.npz"
    wav = shared_tmp / "cli" / "run.wav"
    code = main(
        [
            "strings", "--bc", "periodic", "--length", "3", "--wave-speed", "1.5",
            "--F", "0.9", "--G1", "0.8", "--G2", "0.7", "--s1", "1.0", "--s2", "2.0",
            "--u0", "0.1*sin(2*pi*x/L)", "--u0-rate", "0", "--v0", "0.05*cos(2*pi*x/L)",
            "--v0-rate", "0", "--elements", "12", "--degree", "2", "--kernel", "smooth",
            "--dt", "0.05", "--t-end", "2", "--output-interval", "0.25",
            "--probe", "0.5,1.5", "--probe", "2.5", "--out", str(out), "--plot",
            "--wav", str(wav), "--quiet",
        ]
    )  # fmt: skip
    assert code == 0
    data = np.load(out)
    assert np.array_equal(data["t"], np.arange(9) * 0.25)
    assert data["u_probe"].shape == (9, 3)
    assert np.all(np.diff(data["s1"]) != 0)  # contact on: the point moves
    if comm.rank == 0:
        for name in ("run_fields.npz", "run_space_time.png", "run_spectrum.png", "run.wav"):
            assert (out.parent / name).stat().st_size > 0, name


def test_cli_no_contact_keeps_points_fixed(comm, shared_tmp):
    out = shared_tmp / "free.npz"
    assert main(["strings", "--no-contact", "--t-end", "0.2", "--out", str(out), "--quiet"]) == 0
    data = np.load(out)
    assert np.ptp(data["s1"]) == 0 and np.all(np.isnan(data["multiplier"]))


def test_cli_bad_input_exits_2(comm, shared_tmp, capsys):
    out = str(shared_tmp / "bad.npz")
    assert main(["strings", "--s1", "100", "--out", out]) == 2
    assert main(["strings", "--u0", "open('x')", "--out", out]) == 2
    assert main(["strings", "--dt", "-1", "--out", out]) == 2
    if comm.rank == 0:
        assert "outside the string" in capsys.readouterr().err
