"""Tests of the studies that play runs: tune, rescore, plan, balance, the ladder, the sample data."""
