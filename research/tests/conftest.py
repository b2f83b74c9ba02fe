"""The measuring tools are not installed: a child process (``python -m research.…``)
finds them through the checkout on PYTHONPATH."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _checkout_on_path(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
