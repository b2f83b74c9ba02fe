"""Tests of logs: the Parquet writer and readers, replay, the auditor, JSON-lines interchange, the viewer."""
