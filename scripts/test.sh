#!/usr/bin/env bash
# npm test: provisions what the tests need (packages, Postgres with pgvector), builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/setup.sh
# The console's tests drive Debian's chromium.
bash scripts/ensure-chromium.sh
npm run --silent build
if [ $# -gt 0 ]; then exec npx mocha "$@"; fi
# The firewall's worst-case deadlines are on the CPU time of its own work: they run first, in a
# process of their own, not after a thousand tests have grown the heap its collector walks (there
# the same 1 MB texts took twice as long). The same assertions and deadlines either way.
worst_case=dist/test/firewall/worst-case.test.js
status=0
npx mocha --no-config --require dist/test/helpers/hooks.js --enable-source-maps --timeout 30000 --exit "$worst_case" || status=$?
npx mocha --ignore "$worst_case" || status=$?
exit "$status"
