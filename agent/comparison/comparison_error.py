"""The one error a comparison of two runs raises, in a module of its own so that every part of the comparison
(run_comparison.py, simulation_comparison.py, experiment_comparison.py) and its callers (the API, the CLI) can
name it without importing one another.
"""

from __future__ import annotations


class ComparisonError(ValueError):
    """The two runs cannot be compared (not run documents, not finished, of different kinds); the message says why."""
