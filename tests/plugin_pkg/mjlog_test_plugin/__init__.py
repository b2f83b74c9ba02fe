"""A plugin package for mjlog's tests: one agent, found by entry point or by path."""
