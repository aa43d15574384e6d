"""Contact: the bump functions G that smear a point constraint over nearby nodes."""

from fe_rodcontact.contact.kernels import (
    KERNELS,
    CubicBSplineKernel,
    HatKernel,
    Kernel,
    get_kernel,
)

__all__ = ["KERNELS", "CubicBSplineKernel", "HatKernel", "Kernel", "get_kernel"]
