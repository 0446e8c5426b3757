"""Permission rules and decisions: pure functions, no I/O beyond reading policy files."""
