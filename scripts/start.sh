#!/usr/bin/env bash
# npm start: everything a fresh clone needs, then web and worker together.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/setup.sh
npm run --silent build
node --enable-source-maps dist/src/cli/migrate.js
node --enable-source-maps dist/src/cli/devkey.js
exec bash scripts/run-processes.sh
