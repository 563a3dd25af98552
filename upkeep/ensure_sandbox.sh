#!/usr/bin/env bash
# Make the grader's sandbox available (bubblewrap, grading/sandbox.py). Installs
# Debian's bubblewrap package when run as root with apt-get; otherwise says what to
# install.
# Without it `make grade` refuses to grade (unless UNSAFE=1) and the grading tests are
# skipped, or fail under CI.
set -euo pipefail
if command -v bwrap >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing bubblewrap, the grader's sandbox (apt-get install bubblewrap) ..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
else
    echo "No bubblewrap (bwrap) found: the grader needs it to sandbox each submission."
    echo "Install it: Debian/Ubuntu: sudo apt-get install bubblewrap;"
    echo "  Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap."
    echo "  macOS or Windows: grade in the container (Dockerfile; book/instructors.md)."
fi
