"""Tests of the command line as a whole: formats, refusals of bad input and damaged runs, writes, notebooks."""
