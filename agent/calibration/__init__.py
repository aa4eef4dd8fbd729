"""Fitting the behaviour model (agent/behaviour) on recorded OPeRA sessions.

Only `twinsim calibrate`, the benchmarks and the tests import this package: the model that serves
predictions never does, so serving loads none of the training code.
"""
