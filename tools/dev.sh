#!/usr/bin/env bash
# Set up the development environment (idempotent) and run the flagship demo or the tests.
#
#   bash tools/dev.sh demo   # create .venv if needed, then run demos/demo_crossed_strings.py on 2 ranks
#   bash tools/dev.sh test   # create .venv if needed, then mypy, the manual (docs/, warnings as
#                            # errors), pytest serially and on 2 MPI ranks
#
# The environment is a venv in .venv from a Python >= 3.12 with DOLFINx 0.11 from the PyPI
# wheel `dolfinx-solver-real` and this package in editable mode with its test extras.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
venv="$here/.venv"

find_python() {
    local candidates=()
    [ -n "${PYTHON:-}" ] && candidates+=("$PYTHON")
    candidates+=(python3.14 python3.13 python3.12 python3)
    if command -v pyenv >/dev/null 2>&1; then
        local root; root="$(pyenv root)"
        for p in "$root"/versions/3.1[2-9]*/bin/python3; do [ -x "$p" ] && candidates+=("$p"); done
    fi
    for c in "${candidates[@]}"; do
        if command -v "$c" >/dev/null 2>&1 &&
            "$c" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
            command -v "$c"; return 0
        fi
    done
    return 1
}

setup() {
    if [ -x "$venv/bin/python" ] &&
        "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then
        :
    else
        local py
        if ! py="$(find_python)"; then
            echo "error: fe_rodcontact needs Python >= 3.12 (DOLFINx 0.11 wheels) and none was found." >&2
            echo "       Install one (e.g. 'pyenv install 3.12') or set PYTHON=/path/to/python3.12." >&2
            exit 2
        fi
        echo "Creating $venv with $py"
        rm -rf "$venv"
        "$py" -m venv "$venv"
    fi
    local stamp="$venv/.fe_rodcontact-stamp" want
    want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        "$venv/bin/python" -m pip install --quiet --upgrade pip
        "$venv/bin/python" -m pip install --quiet -e ".[wheel,test,docs]"
        echo "$want" > "$stamp"
    fi
    export PATH="$venv/bin:$PATH"
}

case "${1:-}" in
    demo)
        setup
        shift
        mpiexec -n 2 python demos/demo_crossed_strings.py --out-dir results/crossed_strings "$@"
        echo "The fe-rodcontact command lives in .venv: run 'source .venv/bin/activate' first" \
            "(or call .venv/bin/fe-rodcontact and .venv/bin/mpiexec)."
        ;;
    test)
        setup
        shift
        export OMP_NUM_THREADS=1
        # types: disallow_untyped_defs on the package (pyproject.toml [tool.mypy])
        python -m mypy fe_rodcontact
        # the manual: warnings (a broken link or reference) are errors; about 10 s of CPU
        python -m sphinx -E -a -W --keep-going -n -q -b html docs build/docs/html
        python -m pytest -q "$@"
        # a hang on 2 ranks must fail CI, not block it (the 2-rank pass takes 4–9 minutes on a
        # 2-core machine, more when it is loaded; the limit leaves CI's 90 minutes room)
        timeout --signal=TERM --kill-after=30 2400 \
            mpiexec -n 2 python -m mpi4py -m pytest -q -p no:cacheprovider "$@"
        ;;
    *)
        echo "usage: bash tools/dev.sh demo|test [extra arguments]" >&2
        exit 2
        ;;
esac
