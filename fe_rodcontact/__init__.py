"""fe_rodcontact: geometrically exact Cosserat rods in rolling and potential contact, in DOLFINx."""

from fe_rodcontact import compat  # noqa: F401  (imports dolfinx_solver first, pins DOLFINx)
from fe_rodcontact.errors import ConvergenceError, InputError

__all__ = ["ConvergenceError", "InputError"]
