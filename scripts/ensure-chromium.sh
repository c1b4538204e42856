#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the console tests (driven by playwright-core).
# Idempotent: does nothing when /usr/bin/chromium exists. As root on Debian it installs the
# package (one `apt-get update`, then `apt-get install -y chromium`); otherwise it says what to do.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: installing Debian's chromium package"
  export DEBIAN_FRONTEND=noninteractive
  # Update the package lists once: only when installing straight away fails for want of them.
  if ! apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; then
    apt-get update -q
    apt-get install -y --no-install-recommends chromium
  fi
  if [ -x "$CHROMIUM" ]; then
    echo "ensure-chromium: $("$CHROMIUM" --version 2>/dev/null || echo installed)"
    exit 0
  fi
  echo "ensure-chromium: apt-get installed chromium but $CHROMIUM is still missing" >&2
  exit 1
fi

cat >&2 <<EOF
ensure-chromium: $CHROMIUM is missing, and the console tests need it (headless, via playwright-core).
Install Debian's chromium package as root:
  sudo apt-get update && sudo apt-get install -y chromium
EOF
exit 1
