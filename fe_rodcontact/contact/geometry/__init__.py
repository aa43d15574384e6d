"""Where things touch: centrelines, the contact search, obstacles, contact sets, point placement."""
