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
