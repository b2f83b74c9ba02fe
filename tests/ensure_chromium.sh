#!/bin/sh
# Make sure the browser tests (tests/test_viewer.py) have a Chromium to drive.
# They use Debian's chromium (/usr/bin/chromium), never a browser that a test
# tool downloads itself. Nothing to do when it is there; as root with apt-get
# (CI), install it quietly, with a small CJK font so screenshots show 万 筒 条;
# otherwise say how in one line. Always exits 0: the browser tests themselves
# fail, with the same line, when no Chromium can be found.
if [ -n "$MJLOG_CHROMIUM" ] && [ -x "$MJLOG_CHROMIUM" ]; then exit 0; fi
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure_chromium: installing Debian's chromium for the browser tests"
  if DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
     DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei \
       >/dev/null 2>&1; then
    exit 0
  fi
  echo "ensure_chromium: apt-get install chromium failed; the browser tests will fail" >&2
  exit 0
fi
echo "ensure_chromium: no /usr/bin/chromium; install it with 'sudo apt-get install chromium'" \
  "(or set MJLOG_CHROMIUM) or the browser tests will fail" >&2
exit 0
