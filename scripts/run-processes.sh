#!/usr/bin/env bash
# Runs the Procfile's web and worker in one terminal, with the Procfile's commands, each under a
# supervisor of its own: a process that dies is started again after a pause (1 s, doubling up to
# 30 s while it keeps dying within a minute of its start), and the other one keeps running, as a
# platform's process manager would do. SIGINT (Ctrl-C) or SIGTERM stops both, each with one SIGTERM,
# and the runner exits with 0 when both stopped cleanly.
#
# A process that exits with 78 (EX_CONFIG, src/process.ts) cannot start as configured: a broken
# catalogue, a bad environment variable, its port taken. Starting it again would fail the same way,
# so the runner stops the other process too and exits with 78; its message is the last one printed.
set -uo pipefail
cd "$(dirname "$0")/.."

# Job control puts each supervisor, and the process it runs, in a process group of its own: a Ctrl-C
# at the terminal then reaches this shell alone, which stops each process once. Reached by the
# terminal as well, a process would take the second signal for an impatient user and exit at once.
set -m

readonly EX_CONFIG=78
procfile_command() { sed -n "s/^$1: //p" Procfile; }
say() { printf 'run-processes: %s\n' "$*" >&2; }

supervise() {
  local name=$1 pause=1 started status child='' napping='' stopping=0
  # Idempotent: the signal may come more than once (from this shell, and from npm forwarding it).
  # The trap outlives the function's locals (a stop that comes after it returned, as its status is
  # being written), so it reads them with defaults: under `set -u` an unset one ended the shell
  # with status 1 before the status was written.
  trap 'if (( ! ${stopping:-0} )); then stopping=1; [[ -n ${child:-} ]] && kill -TERM "$child" 2>/dev/null; [[ -n ${napping:-} ]] && kill "$napping" 2>/dev/null; fi' TERM
  trap '' INT
  while (( ! stopping )); do
    started=$SECONDS
    # Word splitting is wanted: each command is a plain list of words.
    $(procfile_command "$name") &
    child=$!
    say "$name started (pid $child)"
    # A stop that came before $child was known could not reach it.
    (( stopping )) && kill -TERM "$child" 2>/dev/null
    # A trapped signal interrupts wait before the process has exited; waiting again collects its status.
    wait "$child"
    status=$?
    while kill -0 "$child" 2>/dev/null; do
      wait "$child"
      status=$?
    done
    child=''
    (( stopping )) && return "$status"
    if (( status == EX_CONFIG )); then
      say "$name cannot start as configured (exit status $EX_CONFIG, see its message above); stopping"
      kill -USR1 $$ 2>/dev/null
      return "$status"
    fi
    (( SECONDS - started >= 60 )) && pause=1
    say "$name exited with status $status; starting it again in ${pause}s"
    sleep "$pause" &
    napping=$!
    wait "$napping"
    napping=''
    pause=$(( pause * 2 > 30 ? 30 : pause * 2 ))
  done
  return 0
}

web=''
worker=''
stopping=0
stop() {
  (( stopping )) && return
  stopping=1
  local pid
  for pid in $web $worker; do kill -TERM "$pid" 2>/dev/null; done
}
# USR1: a supervisor whose process cannot start (EX_CONFIG) asks for both to stop.
trap stop INT TERM USR1

# Each supervisor leaves the status its process stopped with here: with job control on, bash's wait
# loses the status of a job that ended while a trap ran (it answers -1).
statuses=$(mktemp -d "${TMPDIR:-/tmp}/polder-run.XXXXXX")
trap 'rm -rf -- "$statuses"' EXIT
run() {
  supervise "$1"
  local code=$?
  echo "$code" >"$statuses/$1"
  return "$code"
}

run web &
web=$!
run worker &
worker=$!
# A stop that came before both were known.
(( stopping )) && kill -TERM "$web" "$worker" 2>/dev/null

# Each supervisor returns the status its process stopped with; EX_CONFIG is the one to tell.
status=0
for name in web worker; do
  supervisor=${!name}
  wait "$supervisor"
  code=$?
  while kill -0 "$supervisor" 2>/dev/null; do
    wait "$supervisor"
    code=$?
  done
  [[ -s $statuses/$name ]] && read -r code <"$statuses/$name"
  (( code != 0 && status != EX_CONFIG )) && status=$code
done
exit "$status"
