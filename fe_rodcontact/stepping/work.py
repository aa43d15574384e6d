"""The work done on the rods over a converged step: by the loads, and by the supports.

Both are a force vector dotted with the step's increment Δq = (Δu, τ) (the displacement's
increment and the rotation's Cayley vector) over the owned dofs, summed over the ranks. For the
energy–momentum scheme, whose loads are evaluated at the step's midpoint, they close the energy
balance exactly.
"""

from collections.abc import Sequence

import dolfinx.fem
import dolfinx.la
import numpy as np
import numpy.typing as npt

from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["load_work", "support_work"]

Array = npt.NDArray[np.float64]


def _owned_increment(rod: CosseratRod, previous_displacement: dolfinx.fem.Function) -> Array:
    """Δq = (uₙ₊₁ − uₙ, τ) at the owned nodes, flat (6 per node)."""
    n = rod.function_space.dofmap.index_map.size_local * 6
    increment = rod.state.x.array[:n].copy().reshape(-1, 6)
    increment[:, :3] -= previous_displacement.x.array[: n // 2].reshape(-1, 3)
    return increment.ravel()


def _assembled(form: dolfinx.fem.Form) -> Array:
    vector = dolfinx.fem.assemble_vector(form)
    vector.scatter_reverse(dolfinx.la.InsertMode.add)
    return vector.array


def load_work(
    external_form: dolfinx.fem.Form | None,
    rod: CosseratRod,
    previous_displacement: dolfinx.fem.Function,
) -> float:
    """δW_ext(Δu, τ) of the converged step: the work of the loads over it (collective).

    Args:
        external_form: The external virtual work as a linear form (``None``: no loads).
        rod: The rods, holding the converged step's state (uₙ₊₁, τ).
        previous_displacement: uₙ.
    """
    if external_form is None:
        return 0.0
    increment = _owned_increment(rod, previous_displacement)
    local = float(np.dot(_assembled(external_form)[: len(increment)], increment))
    return float(rod.mesh.comm.allreduce(local))


def support_work(
    residual: dolfinx.fem.Form,
    bcs: Sequence[dolfinx.fem.DirichletBC],
    rod: CosseratRod,
    previous_displacement: dolfinx.fem.Function,
) -> float:
    """The work of the support reactions over the converged step (prescribed motions).

    At a prescribed dof the residual (inertia + internal − external forces) is the force the
    support applies, so its work is Σ Rᵢ Δqᵢ over those dofs (collective).

    Args:
        residual: The step's residual form.
        bcs: The prescribed dofs.
        rod: The rods, holding the converged step's state (uₙ₊₁, τ).
        previous_displacement: uₙ.
    """
    if not bcs:
        return 0.0
    vector = _assembled(residual)
    increment = _owned_increment(rod, previous_displacement)
    owned = [bc.dof_indices()[0][: bc.dof_indices()[1]] for bc in bcs]
    dofs = np.unique(np.concatenate(owned)) if owned else np.zeros(0, dtype=np.int32)
    dofs = dofs[dofs < len(increment)]
    local = float(np.dot(vector[dofs], increment[dofs]))
    return float(rod.mesh.comm.allreduce(local))
