"""github layer."""
