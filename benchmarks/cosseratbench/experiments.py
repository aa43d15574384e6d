"""The experiments this runner knows, their default resolutions and how each is run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mpi4py import MPI

from capstan_runs import run_capstan
from crossing_runs import run_crossing
from dynamics_runs import run_pendulum, run_twist
from statics_runs import Outcome, run_cantilever, run_catenary

__all__ = ["EXPERIMENTS", "Experiment", "run_experiment"]


@dataclass(frozen=True)
class Experiment:
    """A runnable experiment: its default element count (the benchmark's) and its run."""

    elements: int
    run: Callable[..., Outcome]
    parameters: tuple[str, ...] = ()
    dynamic: bool = False


EXPERIMENTS: dict[str, Experiment] = {
    "cantilever": Experiment(20, run_cantilever),
    "catenary": Experiment(50, run_catenary, ("bending_scale",)),
    "crossing": Experiment(51, run_crossing, ("drop", "youngs_modulus")),
    "capstan": Experiment(100, run_capstan, ("overhang", "friction"), dynamic=True),
    "pendulum": Experiment(50, run_pendulum, ("youngs_modulus",), dynamic=True),
    "twist": Experiment(50, run_twist, ("tension",), dynamic=True),
}


def run_experiment(
    name: str, elements: int, comm: MPI.Comm, *, dt: float | None, values: dict[str, float]
) -> Outcome:
    """Run one experiment; unknown parameters and a time step for a static one are refused."""
    experiment = EXPERIMENTS[name]
    unknown = sorted(set(values) - set(experiment.parameters))
    if unknown:
        raise SystemExit(
            f"--value {unknown[0]}: {name} takes {list(experiment.parameters) or 'no values'}"
        )
    if dt is not None and not experiment.dynamic:
        raise SystemExit(f"--dt: {name} is solved as a static equilibrium; leave --dt out")
    kwargs = dict(values)
    if experiment.dynamic:
        kwargs["dt"] = dt
    return experiment.run(elements, comm, **kwargs)
