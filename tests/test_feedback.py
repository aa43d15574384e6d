"""The same progress flags on every subcommand, progress lines in a log, the last line."""

from mpi4py import MPI

import pytest

from fe_rodcontact.cli.feedback import say_done
from fe_rodcontact.cli.main import SUBCOMMANDS, build_parser
from fe_rodcontact.stepping.progress import Progress, elapsed


@pytest.mark.parametrize("command", SUBCOMMANDS)
@pytest.mark.parametrize(
    ("flags", "quiet"),
    [([], False), (["--progress"], False), (["--quiet"], True), (["--no-progress"], True)],
)
def test_every_subcommand_takes_the_progress_flags(command, flags, quiet):
    argv = [command, *(["case.toml"] if command != "strings" else []), *flags]
    assert build_parser().parse_args(argv).quiet is quiet


def test_progress_and_quiet_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["dynamics", "case.toml", "--progress", "--quiet"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_log_gets_lines_with_the_time_left(capsys):
    """Under pytest standard output is not a terminal: lines, not a bar."""
    with Progress(MPI.COMM_WORLD, "time", total=2.0, interval=0.0) as bar:
        bar.update(0.5, "t=0.5")
    out = capsys.readouterr().out
    if MPI.COMM_WORLD.rank == 0:
        assert out.startswith("time:  25.0% t=0.5 (elapsed ") and "left)" in out
    else:
        assert out == ""


def test_elapsed_reads_well():
    assert [elapsed(s) for s in (4.24, 187, 7500)] == ["4.2 s", "3 min 07 s", "2 h 05 min"]


def test_the_last_line_says_where_and_how_long(tmp_path, capsys):
    say_done("dynamics", tmp_path, 0.0)
    out = capsys.readouterr().out
    if MPI.COMM_WORLD.rank == 0:
        assert out.startswith(f"fe-rodcontact dynamics: results in {tmp_path} (took ")
