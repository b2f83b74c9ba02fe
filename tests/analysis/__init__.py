"""Tests of the reading analysis: queries, plots, compare and its verdicts, balance, report."""
