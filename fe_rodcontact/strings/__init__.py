"""The paper's reduced model: two strings in rolling contact at moving points (eqs. 16–19)."""

from fe_rodcontact.strings.config import StringsConfig, StringsResult
from fe_rodcontact.strings.geometry import StringGeometry, create_string_mesh
from fe_rodcontact.strings.model import TwoStrings, run_strings

__all__ = [
    "StringGeometry",
    "StringsConfig",
    "StringsResult",
    "TwoStrings",
    "create_string_mesh",
    "run_strings",
]
