"""How the world reaches a twin: api/ (HTTP), cli/ (the `twinsim` command) and jobs/ (runs that outlive a
request), over what all three share here: settings, tenancy and the long-lived services (container.py)."""
