"""Tests of the house: import layers, lint and format, types, class size, generated docs."""
