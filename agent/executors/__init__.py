"""Where units of work run: what an executor is and the in-process one (units.py), a Ray cluster's tasks for
experiments' twin runs and evaluations' replayed steps (ray_units.py), and a live simulation's twin sessions, each
a Ray task with its own Chromium (ray_twins.py). The decision loop stays in agent/experiments and
agent/evaluation; these only choose where it runs."""
