"""The rod model: mesh, curves, sections, rotations, kinematics, the Cosserat rod, loads, supports.

No PETSc, no contact, no time: what a rod is and what acts on it.
"""
