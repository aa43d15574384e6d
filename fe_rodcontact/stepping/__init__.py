"""The step flow: schemes, the stepper, the problem classes, recording and checkpoints."""
