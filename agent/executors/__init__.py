"""Where units of work run besides this process: a Ray cluster's tasks for experiments' twin runs and evaluations'
replayed steps (ray_units.py), and a live simulation's twin sessions, each a Ray task with its own Chromium
(ray_twins.py). The decision loop stays in agent/experiments and agent/evaluation; these only move it elsewhere."""
