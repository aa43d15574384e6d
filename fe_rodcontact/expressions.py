"""Safe parsing of expressions in ``x`` (initial conditions given on the command line or in a case).

An expression such as ``"0.1*sin(2*pi*x/L)"`` is parsed with :mod:`ast` and checked against a
whitelist before it is compiled: numbers, the variable ``x`` and any extra names the caller
allows (e.g. ``L``), the constants ``pi`` and ``e``, the operators ``+ - * / **`` and calls of
a fixed set of numpy functions. Anything else (attributes, subscripts, other names, keyword
arguments, lambdas, comprehensions, strings) is an :class:`~fe_rodcontact.errors.InputError`,
so a case file or a flag can never run code.
"""

import ast
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = ["FUNCTIONS", "parse_expression"]

FUNCTIONS: dict[str, Callable[..., npt.NDArray[np.float64]]] = {
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "arctan": np.arctan,
    "heaviside": lambda a: np.heaviside(a, 0.5),
}
"""Functions an expression may call (one argument each)."""

_CONSTANTS = {"pi": np.pi, "e": np.e}
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_UNARY = (ast.UAdd, ast.USub)


def _check(node: ast.AST, names: set[str], text: str) -> None:
    """Raise :class:`InputError` unless ``node`` only uses whitelisted syntax."""
    if isinstance(node, ast.Expression):
        _check(node.body, names, text)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise InputError(f"expression {text!r}: only numbers are allowed as constants")
    elif isinstance(node, ast.Name):
        if node.id not in names and node.id not in _CONSTANTS:
            allowed = ", ".join(sorted(names | set(_CONSTANTS)))
            raise InputError(f"expression {text!r}: unknown name {node.id!r} (allowed: {allowed})")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY):
        _check(node.left, names, text)
        _check(node.right, names, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
        _check(node.operand, names, text)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            allowed = ", ".join(sorted(FUNCTIONS))
            raise InputError(f"expression {text!r}: only these functions may be called: {allowed}")
        if node.keywords or len(node.args) != 1:
            raise InputError(f"expression {text!r}: {node.func.id}() takes exactly one argument")
        _check(node.args[0], names, text)
    else:
        raise InputError(
            f"expression {text!r}: {type(node).__name__} is not allowed; use numbers, "
            f"{', '.join(sorted(names))}, pi, e, + - * / ** and {', '.join(sorted(FUNCTIONS))}"
        )


def parse_expression(
    text: str, parameters: dict[str, float] | None = None, variables: Iterable[str] = ("x",)
) -> Callable[..., npt.NDArray[np.float64]]:
    """Parse ``text`` into a vectorised function of the variables.

    Args:
        text: The expression, e.g. ``"0.1*sin(2*pi*x/L)"``.
        parameters: Named constants the expression may use besides ``pi`` and ``e``.
        variables: Names of the positional arguments of the returned function.

    Returns:
        A function of numpy arrays (one per variable) returning an array of their shape.

    Raises:
        InputError: If ``text`` is not valid syntax or uses anything outside the whitelist.
    """
    parameters = dict(parameters or {})
    variables = tuple(variables)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"expression {text!r}: expected a non-empty string")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise InputError(f"expression {text!r}: invalid syntax ({error.msg})") from None
    _check(tree, set(variables) | set(parameters), text)
    # Integer constants become floats, so that e.g. 9**9**9 overflows at once, not after hours.
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            node.value = float(node.value)
    code = compile(tree, "<expression>", "eval")
    namespace = {"__builtins__": {}, **_CONSTANTS, **FUNCTIONS, **parameters}

    def evaluate(*values: npt.ArrayLike) -> npt.NDArray[np.float64]:
        if len(values) != len(variables):
            raise TypeError(f"expected {len(variables)} arguments ({', '.join(variables)})")
        arrays = [np.asarray(v, dtype=np.float64) for v in values]
        with np.errstate(all="raise"):
            try:
                result = eval(code, namespace, dict(zip(variables, arrays, strict=True)))
            except OverflowError:
                raise InputError(
                    f"expression {text!r}: a value overflows (above 1.8e308); use smaller numbers"
                ) from None
            except (FloatingPointError, ZeroDivisionError) as error:
                what = "division by zero" if isinstance(error, ZeroDivisionError) else str(error)
                raise InputError(
                    f"expression {text!r}: {what} where it is evaluated; check the expression"
                ) from None
        return np.broadcast_to(np.asarray(result, dtype=np.float64), arrays[0].shape).copy()

    return evaluate
