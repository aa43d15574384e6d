"""Safe expressions for initial conditions: whitelisted maths works, anything else is refused."""

import numpy as np
import pytest

from fe_rodcontact.errors import InputError
from fe_rodcontact.expressions import parse_expression


def test_whitelisted_maths_matches_numpy():
    x = np.linspace(0.0, 2.0, 7)
    f = parse_expression("0.1*sin(2*pi*x/L) + exp(-x**2)*cos(x) - sqrt(abs(x - 1)) / e", {"L": 2.0})
    expected = 0.1 * np.sin(np.pi * x) + np.exp(-(x**2)) * np.cos(x) - np.sqrt(np.abs(x - 1)) / np.e
    assert np.allclose(f(x), expected, rtol=0, atol=1e-15)
    assert np.array_equal(parse_expression("3")(x), np.full(7, 3.0))  # constants broadcast


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("__import__('os').system('true')", "only these functions"),
        ("x.__class__", "Attribute is not allowed"),
        ("[c for c in ()]", "not allowed"),
        ("(lambda: 0)()", "only these functions"),
        ("sin(x, 2)", "exactly one argument"),
        ("sin(x=1)", "exactly one argument"),
        ("y + 1", "unknown name 'y'"),
        ("'abc'", "only numbers"),
        ("x if x else 0", "not allowed"),
        ("x[0]", "not allowed"),
        ("1 +", "invalid syntax"),
        ("", "non-empty"),
        ("9**9**9", "overflows"),
        ("log(x - 5)", "invalid value"),
    ],
)
def test_unsafe_or_invalid_expressions_raise(text, match):
    with pytest.raises(InputError, match=match):
        parse_expression(text)(np.linspace(0.0, 1.0, 3))
