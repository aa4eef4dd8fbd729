"""Real stand-ins for external services that tests and benchmarks run on loopback (no mocks of HTTP)."""
