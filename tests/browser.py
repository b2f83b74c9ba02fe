"""Launch the system's headless Chromium for browser tests (Playwright, Python).

Playwright's own browser download (``playwright install``) is not used: the tests
drive Debian's ``chromium`` package (``/usr/bin/chromium``), which
``tests/ensure_chromium.sh`` installs when it is missing and the machine allows
it (root with apt, as on CI). When no Chromium can be found the browser tests
*fail* with one line saying how to install it; they never skip.

Set ``MJLOG_CHROMIUM`` to use another Chromium or Chrome binary.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")

INSTALL_HINT = (
    "no Chromium found for the browser tests: install it with "
    "`sudo apt-get install chromium` (or run tests/ensure_chromium.sh as root), "
    "or set MJLOG_CHROMIUM to a Chromium binary"
)

# Headless and quiet: this machine's network is closed, and without the
# background-networking flags Chromium keeps trying (and failing) to reach out.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def chromium_path() -> str:
    """The Chromium binary to drive; fails the test (one line) when there is none."""
    env = os.environ.get("MJLOG_CHROMIUM")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            pytest.fail(f"MJLOG_CHROMIUM={env} is not an executable file", pytrace=False)
        return env
    for p in CANDIDATES:
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    found = shutil.which("chromium")
    if found:
        return found
    pytest.fail(INSTALL_HINT, pytrace=False)


WAIT_MS = 300_000
"""Milliseconds any Playwright wait of a test may take before it fails."""


@contextmanager
def chromium(viewport: tuple[int, int] = (1400, 1000)) -> Iterator:
    """A Playwright page in a fresh headless Chromium with its own empty profile.

    Uses ``launch_persistent_context`` so the profile directory is ours (a fresh
    ``--user-data-dir``), removed afterwards.
    """
    exe = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "playwright is not installed: pip install -c constraints.txt -e '.[test]'",
            pytrace=False,
        )
    profile = Path(tempfile.mkdtemp(prefix="mjlog-chromium-"))
    try:
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                str(profile),
                executable_path=exe,
                headless=True,
                args=list(FLAGS),
                ignore_default_args=["--enable-automation"],
                viewport={"width": viewport[0], "height": viewport[1]},
                timeout=WAIT_MS,  # a browser start on a busy machine is slow
            )
            # every wait of a test (a selector, a function, a navigation) waits for a
            # sign of progress: generous, so that a busy machine is slow, not failed
            # (Playwright's default is 30 s; issue 47)
            ctx.set_default_timeout(WAIT_MS)
            ctx.set_default_navigation_timeout(WAIT_MS)
            try:
                page = ctx.pages[0] if ctx.pages else ctx.new_page()
                yield page
            finally:
                ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
