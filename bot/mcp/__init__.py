"""mcp layer."""
