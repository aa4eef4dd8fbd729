"""Driving headless Chromium for a twin: launching it (and keeping one per process across sessions), a tab per
twin, the requests it may make, going to a page, reading the rendered page (snapshot, element boxes, form fields)
and performing an action on the live element. Knows nothing of twins' decisions or simulations (agent/simulation
uses it, never the reverse)."""
