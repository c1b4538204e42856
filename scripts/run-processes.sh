#!/usr/bin/env bash
# Runs the Procfile's web and worker in one terminal, with the Procfile's commands; when either
# exits, both stop.
set -uo pipefail
cd "$(dirname "$0")/.."
procfile_command() { sed -n "s/^$1: //p" Procfile; }
# Word splitting is wanted: each command is a plain list of words.
$(procfile_command web) &
web=$!
$(procfile_command worker) &
worker=$!
stop() { kill -TERM "$web" "$worker" 2>/dev/null; }
trap stop INT TERM
wait -n
status=$?
stop
wait
exit "$status"
