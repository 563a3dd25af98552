#!/usr/bin/env bash
# Make headless Chromium available for the browser tests (Debian's chromium package).
# Installs it when run as root with apt-get (`make browser`; `make test` depends on it);
# otherwise says how, and those tests report "skipped: no Chromium", or fail under
# CI=true.
set -euo pipefail
for browser in chromium chromium-browser google-chrome; do
    if command -v "$browser" >/dev/null 2>&1; then
        exit 0
    fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the browser tests (apt-get install chromium chromium-driver) ..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
    echo "No Chromium found: the browser tests will be skipped (under CI=true: fail)."
    echo "Install it (Debian/Ubuntu: sudo apt-get install chromium) to run them."
fi
