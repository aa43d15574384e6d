"""Potential contact: Tatone's laws with obstacles (in UFL) and between rods (at points)."""
