#!/usr/bin/env bash
# Runs the Procfile's web and worker in one terminal; when either exits, both stop.
set -uo pipefail
cd "$(dirname "$0")/.."
node --enable-source-maps dist/src/server.js &
web=$!
node --enable-source-maps dist/src/worker.js &
worker=$!
stop() { kill -TERM "$web" "$worker" 2>/dev/null; }
trap stop INT TERM
wait -n
status=$?
stop
wait
exit "$status"
