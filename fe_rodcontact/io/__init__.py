"""Files in and out: VTX and vtu output of the rods, contact points, plots."""
