"""Experiments and live simulations: checked before any work, then run on worker threads for the API (or in the
foreground for the CLI). Nothing here knows of HTTP or of the command line."""
