#!/usr/bin/env bash
# npm start: everything a fresh clone needs, then web and worker together.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
npm run --silent build
# The environment and the catalogue, before anything starts: a mistake there is one message and a stop.
node --enable-source-maps dist/src/cli/check.js || exit 1
bash scripts/setup.sh
node --enable-source-maps dist/src/cli/migrate.js
node --enable-source-maps dist/src/cli/devkey.js
exec bash scripts/run-processes.sh
