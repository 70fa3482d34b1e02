#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (tests/e2e/test_page*.py) if it is
# missing. Playwright drives this system browser; it never downloads one of its own.
# Idempotent: when /usr/bin/chromium already runs, this returns at once.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install-browser: Chromium is missing and we are not root; install the 'chromium' package" >&2
        exit 1
    fi
fi
echo "install-browser: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
"$CHROMIUM" --version >&2
