"""Affine bodies, p(x, t) = p_o(t) + F(t)(x − x_o) with det F > 0, and their midpoint step.

The balance equations (A. Tatone, *Bouncing, rolling and sticking of stiff and soft bodies*):

    m p̈_o = m g + f,        F̈ J = M − S vol D,

with the Euler tensor ``J = ∫ρ (x − x_o)⊗(x − x_o)``, the contact forces' resultant f and
moment tensor ``M = Σ_k f_k ⊗ (x_k − x_o)`` (the slides' ``∫ q ⊗ (x − x_o) dA`` written so that
``Ḟ·M`` is their power), and the Piola stress ``S = Ŝ(F) + μ sym(Ḟ F⁻¹) F⁻ᵀ``: the
Mooney–Rivlin response (:mod:`~fe_rodcontact.bodies.materials`) and the dissipative stress.
The slides write the dissipative part of ``S Fᵀ`` as ``μ Ḟ F⁻¹``; we keep its symmetric part,
the stretching rate, because their frame-indifference condition ``skw(S Fᵀ) = 0`` requires it
(with the whole velocity gradient a body spinning rigidly would dissipate). Its power is
``μ |sym(Ḟ F⁻¹)|² vol D ≥ 0``.

The step is the midpoint rule with Gonzalez's discrete gradient of the stored energy:

    m (v_{n+1} − v_n) = h (m g + f),              Δp_o = h (v_n + v_{n+1})/2,
    (Ḟ_{n+1} − Ḟ_n) J = h (M − vol (D_φ + S_μ)),   ΔF = h (Ḟ_n + Ḟ_{n+1})/2,

D_φ the discrete gradient, ``S_μ = μ sym(ΔF F_mid⁻¹/h) F_mid⁻ᵀ``. Kinetic plus stored energy
change by exactly the work of the contact and gravity forces less ``h μ |sym(L_mid)|² vol D``
(recorded). The contact forces are per unit deformed area: at each quadrature point the law
is multiplied by ``w_k k_k`` with ``k = |F_mid⁻ᵀ n_∂D| det F_mid`` (the slides' area change),
so their work is not the change of an energy (k changes with F); the energy account keeps
their work (:class:`~fe_rodcontact.bodies.body.Energies`).
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.body import Body, StepReport, vector3
from fe_rodcontact.bodies.materials import MooneyRivlin
from fe_rodcontact.bodies.newton import solve_step
from fe_rodcontact.bodies.plane_contact import SurfaceContact
from fe_rodcontact.bodies.shapes import Shape
from fe_rodcontact.errors import ConvergenceError, InputError

__all__ = ["AffineBody"]

FloatArray = npt.NDArray[np.float64]


class AffineBody(Body):
    """An affine (homogeneously deforming) body of Mooney–Rivlin material with viscosity.

    Args:
        shape: The paragon shape.
        density: ρ > 0.
        material: The stored energy.
        viscosity: μ ≥ 0 of the dissipative stress ``μ sym(Ḟ F⁻¹)``.
        position: p_o at the start.
        deformation: F at the start (det F > 0), default I.
        velocity: ṗ_o at the start.
        deformation_rate: Ḟ at the start (``[ω]× F`` spins it rigidly), default 0.
        gravity: The acceleration of gravity g (the weight is m g).
        contacts: The planes and drums the body may touch, with their laws.
        name: Label used in messages.
    """

    def __init__(
        self,
        shape: Shape,
        density: float,
        material: MooneyRivlin,
        *,
        viscosity: float = 0.0,
        position: npt.ArrayLike = (0.0, 0.0, 0.0),
        deformation: npt.ArrayLike | None = None,
        velocity: npt.ArrayLike = (0.0, 0.0, 0.0),
        deformation_rate: npt.ArrayLike | None = None,
        gravity: npt.ArrayLike = (0.0, 0.0, -9.81),
        contacts: Sequence[SurfaceContact] = (),
        name: str = "body",
    ) -> None:
        super().__init__(shape, density, gravity=gravity, contacts=contacts, name=name)
        where = f"AffineBody {self.name!r}"
        if not isinstance(material, MooneyRivlin):
            raise InputError(f"{where}: material must be a MooneyRivlin, got {material!r}")
        self._material = material
        self._viscosity = arguments.non_negative(f"{where}: viscosity", viscosity)
        self._x = vector3(f"{where}: position", position)
        self._v = vector3(f"{where}: velocity", velocity)
        self._f = self._matrix(where, "deformation", deformation, np.eye(3))
        det = float(np.linalg.det(self._f))
        if det <= 0:
            raise InputError(
                f"{where}: deformation must have det F > 0 (a body cannot be inverted or "
                f"flattened), got det F = {det:.3g}; give F with a positive determinant "
                "(default I)"
            )
        self._rate = self._matrix(where, "deformation_rate", deformation_rate, np.zeros((3, 3)))
        self._reference_normals = self._normals
        self._check_start()

    @staticmethod
    def _matrix(
        where: str, name: str, value: npt.ArrayLike | None, default: FloatArray
    ) -> FloatArray:
        if value is None:
            return default.copy()
        m = np.asarray(value, dtype=float)
        if m.shape != (3, 3) or not np.all(np.isfinite(m)):
            raise InputError(f"{where}: {name} must be a 3×3 matrix of finite numbers")
        return m.copy()

    @property
    def position(self) -> FloatArray:  # noqa: D102
        return self._x.copy()

    @property
    def velocity(self) -> FloatArray:
        """ṗ_o."""
        return self._v.copy()

    @property
    def deformation(self) -> FloatArray:
        """F."""
        return self._f.copy()

    @property
    def deformation_rate(self) -> FloatArray:
        """Ḟ."""
        return self._rate.copy()

    def rotation(self) -> FloatArray:
        """The rotation of F's polar decomposition F = R U."""
        u, _, vt = np.linalg.svd(self._f)
        return np.asarray(u @ vt, dtype=float)

    def surface_points(self) -> FloatArray:  # noqa: D102
        return self._x + self._points @ self._f.T

    def surface_velocities(self) -> FloatArray:  # noqa: D102
        return self._v + self._points @ self._rate.T

    def _area(self, deformation: FloatArray) -> FloatArray:
        det = float(np.linalg.det(deformation))
        stretched = self._reference_normals @ np.linalg.inv(deformation)  # rows: F⁻ᵀ n
        return np.asarray(self._weights * det * np.linalg.norm(stretched, axis=1), dtype=float)

    def surface_normals(self) -> FloatArray:  # noqa: D102
        stretched = self._reference_normals @ np.linalg.inv(self._f)  # rows: F⁻ᵀ n
        return np.asarray(stretched / np.linalg.norm(stretched, axis=1)[:, None], dtype=float)

    def area_factors(self) -> FloatArray:  # noqa: D102
        return self._area(self._f)

    def kinetic_energy(self) -> float:  # noqa: D102
        return 0.5 * self.mass * float(self._v @ self._v) + 0.5 * float(
            np.sum((self._rate @ self._euler) * self._rate)
        )

    def elastic_energy(self) -> float:  # noqa: D102
        return self.shape.volume * self._material.energy(self._f)

    def snapshot(self) -> tuple[FloatArray, ...]:  # noqa: D102
        return (
            self._x.copy(),
            self._v.copy(),
            self._f.copy(),
            self._rate.copy(),
            self._account_state(),
        )

    def restore(self, saved: tuple[FloatArray, ...]) -> None:  # noqa: D102
        x, v, f, rate, account = saved
        self._x, self._v, self._f, self._rate = x.copy(), v.copy(), f.copy(), rate.copy()
        self._restore_account(account)

    def step(self, dt: float) -> StepReport:  # noqa: D102
        h = arguments.positive(f"AffineBody {self.name!r}: dt", dt)
        m, g, volume, mu = self.mass, self._gravity, self.shape.volume, self._viscosity
        f0, rate0, euler = self._f, self._rate, self._euler
        start = self._x + self._points @ f0.T
        selected = [c.select(start) for c in self._contacts]
        touching = any(len(chosen) for chosen in selected)

        def material(z: FloatArray) -> tuple[FloatArray, float]:
            """−vol S over the step (9,) and the energy the viscosity dissipates."""
            change = z[3:].reshape(3, 3)
            inverse = np.linalg.inv(f0 + 0.5 * change)
            stretching = 0.5 * (change @ inverse / h + (change @ inverse / h).T)
            stress = self._material.discrete_gradient(f0, f0 + change)
            stress = stress + mu * stretching @ inverse.T
            dissipated = h * volume * mu * float(np.sum(stretching * stretching))
            return (-volume * stress).ravel(), dissipated

        def contact_points(
            z: FloatArray,
        ) -> list[tuple[SurfaceContact, FloatArray, FloatArray, FloatArray, FloatArray]]:
            """Each touching plane with its points' reference places, start, end and area."""
            change = z[3:].reshape(3, 3)
            area = self._area(f0 + 0.5 * change)
            return [
                (
                    contact,
                    self._points[chosen],
                    start[chosen],
                    start[chosen] + z[:3] + self._points[chosen] @ change.T,
                    area[chosen],
                )
                for contact, chosen in zip(self._contacts, selected, strict=True)
                if len(chosen)
            ]

        def forces(z: FloatArray) -> tuple[FloatArray, float, float, float]:
            """[f, M − vol S] over the step (12,), the dissipated energy and the contact work."""
            stress, dissipated = material(z)
            total = np.concatenate([np.zeros(3), stress])
            work = supplied = 0.0
            for contact, x, begin, end, area in contact_points(z) if touching else []:
                result = contact.step_forces(begin, end, h, area)
                total[:3] += result.forces.sum(axis=0)
                total[3:] += (result.forces.T @ x).ravel()
                dissipated += result.dissipated
                work += result.conservative_work
                supplied += result.supplied_work
            return total, dissipated, work, supplied

        def contact_tangent(z: FloatArray) -> FloatArray:
            """∂(f, M)/∂(Δp_o, ΔF) with Δp_k = Δp_o + ΔF x_k (the area factor held fixed)."""
            tangent = np.zeros((12, 12))
            for contact, x, begin, end, area in contact_points(z):
                k = contact.step_stiffness(begin, end, h, area)  # [k, i, a]
                tangent[:3, :3] += k.sum(axis=0)
                tangent[:3, 3:] += np.einsum("kia,kb->iab", k, x).reshape(3, 9)
                tangent[3:, :3] += np.einsum("kia,kj->ija", k, x).reshape(9, 3)
                tangent[3:, 3:] += np.einsum("kia,kb,kj->ijab", k, x, x).reshape(9, 9)
            return tangent

        def residual(z: FloatArray) -> FloatArray:
            inertial = np.concatenate(
                [
                    m * (2.0 * z[:3] / h - 2.0 * self._v) - h * m * g,
                    ((2.0 * z[3:].reshape(3, 3) / h - 2.0 * rate0) @ euler).ravel(),
                ]
            )
            return inertial - h * forces(z)[0]

        inertia_matrix = np.zeros((12, 12))
        inertia_matrix[:3, :3] = (2.0 * m / h) * np.eye(3)
        inertia_matrix[3:, 3:] = (2.0 / h) * np.kron(np.eye(3), euler)

        def jacobian(z: FloatArray) -> FloatArray:
            """Newton's tangent: the material's at the midpoint and the contact's.

            The discrete gradient's correction and the change of F⁻¹ in the viscous stress are
            left out (an inexact tangent: the residual decides convergence).
            """
            middle = f0 + 0.5 * z[3:].reshape(3, 3)
            inverse = np.linalg.inv(middle)
            viscous = np.zeros((9, 9))
            if mu > 0:
                for k in range(9):
                    d = np.zeros(9)
                    d[k] = 1.0
                    rate_of = d.reshape(3, 3) @ inverse / h
                    viscous[:, k] = (mu * 0.5 * (rate_of + rate_of.T) @ inverse.T).ravel()
            stiffness = np.zeros((12, 12))
            stiffness[3:, 3:] = -volume * (0.5 * self._material.tangent(middle) + viscous)
            if touching:
                stiffness += contact_tangent(z)
            return inertia_matrix - h * stiffness

        size = self.shape.size
        speed = float(np.linalg.norm(self._v)) / size + float(np.linalg.norm(rate0))
        wave = np.sqrt(self._material.shear_modulus * volume / (m * size * size))
        rate = speed + np.sqrt(float(np.linalg.norm(g)) / size) + 1e-3 * wave
        scales = np.concatenate([np.full(3, h * rate * size), np.full(9, h * rate)])
        guess = np.concatenate([h * self._v + 0.5 * h * h * g, (h * rate0).ravel()])
        residual_scales = np.concatenate(
            [
                np.full(3, m * rate * size),
                np.full(9, float(np.max(np.abs(euler))) * rate),
            ]
        )
        z, iterations = solve_step(residual, jacobian, guess, scales, residual_scales)
        _, dissipated, work, supplied = forces(z)
        change = z[3:].reshape(3, 3)
        end_points = self._x + z[:3] + self._points @ (f0 + change).T
        for contact, chosen in zip(self._contacts, selected, strict=True):
            contact.check_skipped(end_points, chosen)
        if np.linalg.det(f0 + change) <= 0:
            raise ConvergenceError(f"AffineBody {self.name!r}: det F ≤ 0 after the step; cut it")
        self._account(h, dissipated, work, supplied)
        self._x = self._x + z[:3]
        self._v = 2.0 * z[:3] / h - self._v
        self._f = f0 + change
        self._rate = 2.0 * change / h - rate0
        return StepReport(iterations, dissipated, work)
