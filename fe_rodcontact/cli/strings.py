"""``fe-rodcontact strings``: two strings in rolling contact (the paper's reduced model).

Writes the time series (``t, s1, s2, multiplier, energy, u_hat1, u_probe``) to ``--out`` and
the field snapshots to ``<out stem>_fields.npz``; with ``--plot`` also
``<out stem>_space_time.png`` and ``<out stem>_spectrum.png`` (S(ω) of û1 with and without
contact: a second run without contact is made for it); with ``--wav`` the sound of û1.
"""

import argparse
import re
import time
from dataclasses import replace
from pathlib import Path

from mpi4py import MPI

import numpy as np

from fe_rodcontact.cli.feedback import add_feedback_flags, say_done
from fe_rodcontact.cli.output import prepare_file
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.strings.config import StringsConfig
from fe_rodcontact.strings.model import run_strings

__all__ = ["add_parser", "config_from_args", "run", "sound_seconds"]


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}"
        ) from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``strings`` subcommand."""
    d = StringsConfig()
    p = subparsers.add_parser(
        "strings",
        help="two strings in rolling contact at moving points (paper eqs. 16-19)",
        description=__doc__,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--bc", choices=("fixed", "periodic"), default=d.bc, help="string ends")
    p.add_argument("--length", type=float, default=d.length, help="string length L")
    p.add_argument("--wave-speed", type=float, default=d.wave_speed, help="wave speed c")
    p.add_argument("--F", type=float, default=d.F, help="constraint u_t(s1) = F v_t(s2)")
    p.add_argument("--G1", type=float, default=d.G1, help="ds1/dt = G1 u_t(s1)")
    p.add_argument("--G2", type=float, default=d.G2, help="ds2/dt = G2 u_t(s1)")
    p.add_argument("--s1", type=float, default=None, help="initial contact point on string 1")
    p.add_argument("--s2", type=float, default=None, help="initial contact point on string 2")
    p.add_argument("--u0", default=d.u0, help="u(x, 0): expression in x, L, c, pi")
    p.add_argument("--u0-rate", default=d.u0_rate, help="u_t(x, 0)")
    p.add_argument("--v0", default=d.v0, help="v(x, 0)")
    p.add_argument("--v0-rate", default=d.v0_rate, help="v_t(x, 0)")
    p.add_argument("--elements", type=int, default=d.elements, help="elements per string")
    p.add_argument("--degree", type=int, choices=(1, 2), default=d.degree, help="Lagrange degree")
    p.add_argument(
        "--kernel", choices=("exact", "p1", "smooth"), default=d.kernel, help="constraint weights"
    )
    p.add_argument("--solver", choices=("direct", "schur"), default=d.solver, help="saddle solver")
    p.add_argument("--dt", type=float, default=d.dt, help="time step")
    p.add_argument("--t-end", type=float, default=d.t_end, help="final time")
    p.add_argument(
        "--output-interval", type=float, default=None, help="output every ... (multiple of dt)"
    )
    p.add_argument(
        "--probe", type=_floats, action="append", default=[], help="probe points x (repeatable)"
    )
    p.add_argument("--no-contact", action="store_true", help="two free strings")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results/strings/strings.npz"),
        help="time series (.npz); figures and sound go next to it",
    )
    p.add_argument("--plot", action="store_true", help="write space-time and spectrum figures")
    p.add_argument("--wav", type=Path, default=None, help="write the sound of u_hat1 here")
    p.add_argument("--pitch", type=float, default=220.0, help="pitch (Hz) of ω0 in the WAV")
    add_feedback_flags(p)
    p.set_defaults(run=run)


def config_from_args(args: argparse.Namespace) -> StringsConfig:
    """Map the flags onto a :class:`StringsConfig` (contact points default to 0.318 L)."""
    default_s = StringsConfig.s1 / StringsConfig.length * args.length
    return StringsConfig(
        bc=args.bc,
        length=args.length,
        wave_speed=args.wave_speed,
        F=args.F,
        G1=args.G1,
        G2=args.G2,
        s1=default_s if args.s1 is None else args.s1,
        s2=default_s if args.s2 is None else args.s2,
        u0=args.u0,
        u0_rate=args.u0_rate,
        v0=args.v0,
        v0_rate=args.v0_rate,
        elements=args.elements,
        degree=args.degree,
        kernel=args.kernel,
        solver=args.solver,
        dt=args.dt,
        t_end=args.t_end,
        output_interval=args.output_interval,
        probes=tuple(x for group in args.probe for x in group),
        contact=not args.no_contact,
    )


_FLAGS = re.compile(
    r"\b(bc|length|wave_speed|F|G1|G2|s1|s2|u0|u0_rate|v0|v0_rate|elements|degree|kernel|"
    r"solver|dt|t_end|output_interval)\b"
)


def _as_flags(message: str) -> str:
    """Name the command-line flags instead of the config fields (``t_end`` → ``--t-end``)."""
    return _FLAGS.sub(lambda m: "--" + m.group(1).replace("_", "-"), message)


def sound_seconds(config: StringsConfig, pitch: float) -> tuple[float, float]:
    """Seconds of sound a run lasts, and the ``--t-end`` that gives one second.

    One period 2π/ω0 = L/c of the simulation lasts 1/pitch seconds (see
    :func:`~fe_rodcontact.strings.figures.write_wav`).
    """
    period = config.length / config.wave_speed
    return config.t_end / period / pitch, pitch * period


def print_if(condition: bool, text: str, flush: bool = True) -> None:
    """Print ``text`` when ``condition`` holds."""
    if condition:
        print(text, flush=flush)


def run(args: argparse.Namespace) -> int:
    """Run the ``strings`` subcommand: check every input and output first, then run."""
    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    config = config_from_args(args)
    message = None
    try:
        config.validate()
        if args.pitch <= 0 or not np.isfinite(args.pitch):
            raise InputError(f"--pitch must be a positive frequency in Hz, got {args.pitch!r}")
    except InputError as error:
        message = _as_flags(str(error))
    raise_collectively(comm, message)
    out = prepare_file(args.out, comm, "--out")
    wav = None if args.wav is None else prepare_file(args.wav, comm, "--wav")
    result = run_strings(config, comm, progress=not args.quiet)
    result.save(out, comm)
    if comm.rank == 0 and not args.quiet:
        drift = np.max(np.abs(result.energy - result.energy[0])) / max(
            abs(result.energy[0]), 1e-300
        )
        print(
            f"strings: {config.num_steps} steps to t = {result.t[-1]:g}; "
            f"s1 = {result.s1[-1]:.6f}, s2 = {result.s2[-1]:.6f}; "
            f"relative energy change {drift:.2e}; wrote {out}",
            flush=True,
        )
    if args.plot or wav is not None:
        from fe_rodcontact.strings.figures import plot_space_time, plot_spectrum, write_wav

        runs = {"without contact": result}
        if args.plot and config.contact:
            free = run_strings(replace(config, contact=False), comm)
            runs = {"with contact": result, "without contact": free}
        message = None
        if comm.rank == 0:
            stem = out.with_suffix("")
            try:
                if args.plot:
                    plot_space_time(result, f"{stem}_space_time.png")
                    plot_spectrum(runs, f"{stem}_spectrum.png")
                    if not args.quiet:
                        print(f"strings: figures {stem}_space_time.png, {stem}_spectrum.png")
                if wav is not None:
                    write_wav(result, wav, pitch=args.pitch)
                    seconds, one_second = sound_seconds(config, args.pitch)
                    print_if(
                        not args.quiet,
                        f"strings: wrote {wav}: {seconds:.3g} s of sound (ω0 at {args.pitch:g} "
                        f"Hz); --t-end {one_second:.6g} gives one second.",
                        flush=True,
                    )
            except InputError as error:
                message = f"--wav/--plot: {_as_flags(str(error))}"
            except Exception as error:  # wave, matplotlib: one line, on every rank
                message = (
                    f"could not write the figures or the sound: {type(error).__name__}: {error}"
                )
        raise_collectively(comm, message)
    say_done("strings", out, started, comm)
    return 0
