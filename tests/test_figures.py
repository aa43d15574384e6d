"""Figures a user can read without the source (labels, titles, legends)."""

import matplotlib.figure
import pytest

from fe_rodcontact import CosseratRod, Section, create_rod_mesh, straight
from fe_rodcontact.io.plotting import plot_rods
from fe_rodcontact.strings.config import StringsConfig
from fe_rodcontact.strings.figures import plot_space_time, plot_spectrum
from fe_rodcontact.strings.model import run_strings


def _legend_texts(ax):
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


def test_rod_figure_has_labels_title_and_legend(comm, shared_tmp):
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0), name="arm")], elements=4)
    rod = CosseratRod(rods, Section.circular(0.01, 1e9, nu=0.3))
    fig = plot_rods(rod, title="case demo.toml", directors_every=2)
    if comm.rank != 0:
        assert fig is None
        return
    ax = fig.axes[0]
    assert ax.get_title() == "case demo.toml"
    assert all(label for label in (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()))
    texts = _legend_texts(ax)
    assert any("'arm'" in t for t in texts) and "reference centrelines" in texts
    assert {"director d1", "director d2"} <= set(texts)


@pytest.fixture
def saved_figures(monkeypatch):
    figures = []
    original = matplotlib.figure.Figure.savefig

    def record(self, *args, **kwargs):
        figures.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", record)
    return figures


def test_strings_figures_name_the_run_and_label_the_colour_bar(comm, shared_tmp, saved_figures):
    config = StringsConfig(t_end=0.5, dt=0.05, elements=16, G1=0.3)
    result = run_strings(config, comm)
    if comm.rank != 0:
        return
    plot_space_time(result, shared_tmp / "st.png")
    plot_spectrum({"with contact": result}, shared_tmp / "sp.png")
    space_time, spectrum = saved_figures
    assert "fixed ends" in space_time.get_suptitle() and "G1 = 0.3" in space_time.get_suptitle()
    colour_bar = space_time.axes[-1]
    assert "displacement" in colour_bar.get_ylabel()
    for ax in space_time.axes[:2]:
        assert ax.get_xlabel() and ax.get_title()
        assert _legend_texts(ax) == ["contact point"]
    ax = spectrum.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and "G1 = 0.3" in ax.get_title()
    assert _legend_texts(ax) == ["with contact"]


def _figure(case: str) -> matplotlib.figure.Figure:
    """A one-axes figure, its line, points and legend drawn as ``case`` says."""
    figure = matplotlib.figure.Figure(figsize=(5, 4))
    ax = figure.add_subplot()
    ax.set(title="case", xlabel="x [m]", ylabel="y [m]", xlim=(0, 1), ylim=(0, 1))
    if case == "points":  # points only (no line style), one under the legend
        ax.plot([0.5, 0.05], [0.5, 0.05], "o", label="points")
    elif case == "scatter":
        ax.scatter([0.5], [0.5], label="scatter")
    elif case == "off limits":  # beyond the axes' limits: not drawn
        ax.plot([2, 3], [0.5, 0.5], label="line")
    else:  # a line whose two vertices lie far from the legend, crossing the middle
        ax.plot([0, 1], [0.5, 0.5], label="line")
    if case == "figure legend":
        figure.legend(loc="center")
    elif case == "corner":
        ax.legend(loc="upper right")
    elif case == "outside":
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
    else:
        ax.legend(loc="center")
    return figure


@pytest.mark.parametrize(
    ("case", "covered"),
    [
        ("crossing", True),
        ("points", True),
        ("scatter", True),
        ("figure legend", True),
        ("corner", False),
        ("outside", False),
        ("off limits", False),
    ],
)
def test_legend_check_finds_legends_over_data(case, covered):
    """The check the demo tests apply (tests/figure_checks.py) fails on a covering legend."""
    from figure_checks import legend_problems

    problems = legend_problems(_figure(case), "test.png")
    assert bool(problems) == covered, problems


@pytest.mark.parametrize(("ticks", "overprinted"), [([0, 0.01, 1], True), ([0, 0.5, 1], False)])
def test_tick_label_check_finds_overprinted_labels(ticks, overprinted):
    """Labels of ticks 1 % of the axis apart print over each other; half of it apart do not."""
    from figure_checks import tick_label_problems

    figure = _figure("corner")
    figure.axes[0].set_xticks(ticks, [f"μ = {t:g}" for t in ticks])
    problems = tick_label_problems(figure, "test.png")
    assert bool(problems) == overprinted, problems
