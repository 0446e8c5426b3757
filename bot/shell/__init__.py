"""shell layer."""
