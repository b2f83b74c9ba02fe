"""Tests of the agents: built-ins, expert, reading, plugins and their conformance."""
