"""Dirichlet conditions of :class:`~fe_rodcontact.rods.loads.Support` as DOLFINx DirichletBCs.

A support fixes displacement components to u₀ + λ ū (statics, λ the load factor) or u₀ + u(t)
(a history) and the rotation at a rod end to a target Λ* = exp(ψ) Λ₀ (ψ = λ ψ̄ or ψ(t)); u₀ and
Λ₀ are the end's displacement and rotation when the problem is built (zero and the reference
frame, unless the rods start deformed: :mod:`~fe_rodcontact.rods.initial_state`).
The rotation unknown of a step is the increment from the last committed rotation Λₙ, so the
prescribed value is the increment from the end node's Λₙ to Λ*, recomputed before every step:
the rotation vector log(Λ* Λₙᵀ) in statics, the Cayley vector cay⁻¹(Λ* Λₙᵀ) in the time steps
(:data:`~fe_rodcontact.rods.rod.INCREMENTS`).
"""

from collections.abc import Sequence

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.rod import INCREMENTS, CosseratRod
from fe_rodcontact.rods.rotations import cayley_vector, exp_map, log_map

__all__ = ["SupportConditions"]


class SupportConditions:
    """The DirichletBCs of a list of supports, with values updated per step.

    Args:
        rod: The rod model.
        supports: The supports.
        increment: What the rotation unknown is (:data:`~fe_rodcontact.rods.rod.INCREMENTS`).
    """

    def __init__(
        self, rod: CosseratRod, supports: Sequence[Support], increment: str = "rotation vector"
    ):
        if increment not in INCREMENTS:
            raise ValueError(f"increment must be one of {INCREMENTS}, got {increment!r}.")
        self._rod = rod
        self._supports = tuple(supports)
        self._increment = increment
        V = rod.function_space
        mesh = rod.mesh
        self._bcs: list[dolfinx.fem.DirichletBC] = []
        self._values: list[
            tuple[Support, list[dolfinx.fem.Constant], list[dolfinx.fem.Constant]]
        ] = []
        self._initial_rotation: list[npt.NDArray[np.float64]] = []
        self._initial_displacement: list[npt.NDArray[np.float64]] = []
        self._node_dof: list[npt.NDArray[np.int32]] = []
        for support in self._supports:
            vertices = rod.rods.end_vertices(support.rod, support.end)
            u_values, theta_values = [], []
            for component in support.displacement_components:
                dofs = dolfinx.fem.locate_dofs_topological(V.sub(component), 0, vertices)
                value = dolfinx.fem.Constant(mesh, 0.0)
                self._bcs.append(dolfinx.fem.dirichletbc(value, dofs, V.sub(component)))
                u_values.append(value)
            for component in support.rotation_components:
                dofs = dolfinx.fem.locate_dofs_topological(V.sub(3 + component), 0, vertices)
                value = dolfinx.fem.Constant(mesh, 0.0)
                self._bcs.append(dolfinx.fem.dirichletbc(value, dofs, V.sub(3 + component)))
                theta_values.append(value)
            self._values.append((support, u_values, theta_values))
            node = dolfinx.fem.locate_dofs_topological(rod.rotation.function_space, 0, vertices)
            self._node_dof.append(node)
            self._initial_rotation.append(self._end_rotation(node))
            self._initial_displacement.append(self._end_displacement(node))

    @property
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """The DOLFINx Dirichlet conditions (for the problem's ``bcs``)."""
        return self._bcs

    def _end_rotation(self, node: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        """The current nodal rotation at a rod end, on every rank."""
        local = self._rod.rotation.x.array.reshape(-1, 3, 3)[node[:1]]
        found = self._rod.mesh.comm.allgather(local)
        return next(f[0] for f in found if len(f))

    def _end_displacement(self, node: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        """The current displacement at a rod end, on every rank.

        The vector and tensor spaces share their dof layout, so the rotation's node indexes it.
        """
        local = self._rod.displacement.x.array.reshape(-1, 3)[node[:1]]
        found = self._rod.mesh.comm.allgather(local)
        return np.array(next(f[0] for f in found if len(f)))

    def _constants(self) -> list[dolfinx.fem.Constant]:
        return [value for _, u, theta in self._values for value in (*u, *theta)]

    def hold(self) -> list[float]:
        """Set every prescribed value to zero (for accelerations); returns the old values."""
        values = self._constants()
        old = [float(v.value) for v in values]
        for v in values:
            v.value = 0.0
        return old

    def release(self, old: list[float]) -> None:
        """Undo :meth:`hold`."""
        for v, x in zip(self._constants(), old, strict=True):
            v.value = x

    def update(self, load_factor: float, time: float | None = None) -> None:
        """Set the prescribed values for the coming step.

        Args:
            load_factor: λ for statics (prescribed values grow as λ ū and exp(λψ)); 1 in time.
            time: For dynamics: the time at which histories are evaluated (then λ is ignored
                for supports that give a history).
        """
        increment = log_map if self._increment == "rotation vector" else cayley_vector
        for (support, u_values, theta_values), node, rotation0, displacement0 in zip(
            self._values,
            self._node_dof,
            self._initial_rotation,
            self._initial_displacement,
            strict=True,
        ):
            if time is not None and support.displacement_history is not None:
                displacement = np.asarray(support.displacement_history(time), dtype=float)
            else:
                displacement = load_factor * np.asarray(support.displacement)
            for value, component in zip(u_values, support.displacement_components, strict=True):
                value.value = displacement0[component] + displacement[component]
            if theta_values:
                if time is not None and support.rotation_history is not None:
                    psi = np.asarray(support.rotation_history(time), dtype=float)
                else:
                    psi = load_factor * np.asarray(support.rotation)
                target = exp_map(psi) @ rotation0
                step = increment(target @ self._end_rotation(node).T)
                for value, component in zip(theta_values, support.rotation_components, strict=True):
                    value.value = step[component]
