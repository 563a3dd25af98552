"""Measurements the chapters cannot re-run (a GPU, long sweeps), stored as data with
their provenance in book/assets/measurements/."""
