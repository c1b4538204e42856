#!/usr/bin/env bash
# npm test: provisions what the tests need (packages, Postgres with pgvector), builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/setup.sh
# The console's tests drive Debian's chromium.
bash scripts/ensure-chromium.sh
npm run --silent build
exec npx mocha "$@"
