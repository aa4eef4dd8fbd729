"""Standalone HTML reports (inline CSS and SVG, no scripts, no external assets)."""
