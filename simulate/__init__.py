"""Agents and batch simulation on top of the :mod:`mjlog` engine."""
