"""Tests of the batch runner: shards, resume, progress, sweeps, --until, settling, the simulate command."""
