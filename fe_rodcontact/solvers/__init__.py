"""Nonlinear and linear algebra: Newton on DOLFINx forms and the bordered saddle-point solve.

No rods, no contact: residuals, Jacobians and point terms come in through explicit interfaces.
"""
