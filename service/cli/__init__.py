"""The `twinsim` command (service/cli/main.py) and the work behind its subcommands."""
