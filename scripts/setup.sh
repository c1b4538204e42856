#!/usr/bin/env bash
# Polder provisioning: PostgreSQL reachable, pgvector usable, database present.
#
# Run by `npm start` and `npm test` before anything else; safe to run any
# number of times. When everything is already in place it makes exactly one
# psql call (the "fast path") and prints one line.
#
#   DATABASE_URL set   -> use that server/database. If the server is local
#                         (loopback or unix socket) it is fixed up like the
#                         default one; if it is remote, anything missing is
#                         reported with the exact steps a person must take.
#   DATABASE_URL unset -> postgres://postgres@127.0.0.1:5432/polder (trust auth):
#                         installs PostgreSQL (root on Debian), starts the
#                         Debian cluster, creates database `polder`, and builds
#                         pgvector from Debian's source package if missing.
#
# Output: short lines prefixed "setup: "; errors go to stderr, exit status 1.
set -euo pipefail
shopt -s nullglob

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd -- "$script_dir/.."

export DEBIAN_FRONTEND=noninteractive
export PGCONNECT_TIMEOUT="${PGCONNECT_TIMEOUT:-5}"

readonly LOCAL_HOST=127.0.0.1
readonly LOCAL_PORT=5432
readonly DEFAULT_DB=polder
readonly PROBE_DB=polder_setup_probe
readonly PGVECTOR_SUITE=trixie # pgvector is not packaged for bookworm

say() { printf 'setup: %s\n' "$*"; }
err() { printf 'setup: %s\n' "$*" >&2; }
die() {
  err "error: $1"
  shift
  local line
  for line in "$@"; do err "  $line"; done
  exit 1
}

# ---------------------------------------------------------------- cleanup --
TMP_DIR=
PROBE_DB_URL= # set while the scratch database exists
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  if [[ -n $PROBE_DB_URL ]]; then
    psql_q "$PROBE_DB_URL" -c "drop database if exists $PROBE_DB" >/dev/null 2>&1 || true
  fi
  if [[ -n $TMP_DIR ]]; then rm -rf -- "$TMP_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_tmp() {
  if [[ -z $TMP_DIR ]]; then
    TMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/polder-setup.XXXXXX")
  fi
}

# Run a noisy command with its output in a log; on failure show the tail.
# fd 9 (the setup lock) is closed for the command: a server started from
# here (pg_ctlcluster, apt postinst) would otherwise hold the lock forever.
run_logged() {
  ensure_tmp
  local log="$TMP_DIR/command.log"
  local rc=0
  "$@" >"$log" 2>&1 9>&- || rc=$?
  if [[ $rc -eq 0 ]]; then return 0; fi
  err "command failed (exit $rc): $*"
  tail -n 40 -- "$log" | sed 's/^/setup:   | /' >&2
  return "$rc"
}

# -------------------------------------------------------------------- psql --
# Never prompt for a password (-w), never read ~/.psqlrc (-X).
psql_q() {
  local url=$1
  shift
  psql -X -A -t -q -w -v ON_ERROR_STOP=1 -d "$url" "$@"
}

# The real check: pgvector can be created in the target database and its
# shared library loads into the running server (a .so built for another
# major version fails here). Everything happens inside a rolled-back
# transaction, so nothing is left behind. Prints host, port, db, version.
probe() {
  psql_q "$1" -f - <<'SQL'
set client_min_messages = warning;
begin;
create extension if not exists vector;
select quote_ident(n.nspname) as vschema, e.extversion as vversion
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
 where e.extname = 'vector' \gset
select cast('[1,2,3]' as :vschema.vector) is not null as vok \gset
rollback;
\echo :HOST
\echo :PORT
\echo :DBNAME
\echo :vversion
SQL
}

ready() {
  local -a f
  mapfile -t f <<<"$1"
  local via=
  if [[ -n ${DATABASE_URL:-} ]]; then via=' via DATABASE_URL'; fi
  say "postgres ready at ${f[0]}:${f[1]}/${f[2]}${via} (pgvector ${f[3]})"
}

# ---------------------------------------------------------------- URL bits --
# Hide passwords: scheme://user:secret@host -> scheme://user:***@host,
# password=secret -> password=***.
mask_url() {
  printf '%s' "$1" | sed -E \
    -e 's#^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@?]*):[^@/?]*@#\1:***@#' \
    -e 's#([?&]password=)[^&]*#\1***#g' \
    -e "s#(password[[:space:]]*=[[:space:]]*)('[^']*'|[^[:space:]]*)#\1***#g"
}

urldecode() {
  local s=${1//+/ }
  printf '%b' "${s//%/\\x}"
}

# Sets U_HOST U_PORT U_DB U_USER (libpq defaults applied) and U_MAINT (the
# same connection but to database `postgres`).
parse_url() {
  local u=$1 rest query='' auth hostport userinfo kv k v
  U_HOST='' U_PORT='' U_DB='' U_USER='' U_PREFIX='' U_QUERY=''
  if [[ $u =~ ^postgres(ql)?:// ]]; then
    local scheme=${u%%://*}
    rest=${u#*://}
    if [[ $rest == *\?* ]]; then
      query=${rest#*\?}
      rest=${rest%%\?*}
    fi
    auth=${rest%%/*}
    if [[ $rest == */* ]]; then U_DB=$(urldecode "${rest#*/}"); fi
    if [[ $auth == *@* ]]; then
      userinfo=${auth%@*}
      hostport=${auth##*@}
      U_USER=$(urldecode "${userinfo%%:*}")
    else
      hostport=$auth
    fi
    hostport=${hostport%%,*} # multi-host URLs: the first host decides
    if [[ $hostport == \[* ]]; then
      U_HOST=${hostport#\[}
      U_HOST=${U_HOST%%]*}
      if [[ $hostport == *]:* ]]; then U_PORT=${hostport##*]:}; fi
    else
      U_HOST=$(urldecode "${hostport%%:*}")
      if [[ $hostport == *:* ]]; then U_PORT=${hostport#*:}; fi
    fi
    local -a params=()
    if [[ -n $query ]]; then IFS='&' read -r -a params <<<"$query"; fi
    for kv in "${params[@]}"; do
      k=${kv%%=*}
      v=$(urldecode "${kv#*=}")
      case $k in
        host) U_HOST=$v ;;
        port) U_PORT=$v ;;
        dbname) U_DB=$v ;;
        user) U_USER=$v ;;
      esac
    done
    U_PREFIX="$scheme://$auth"
    U_QUERY=$query
  else
    # key=value conninfo (values with spaces/quotes are not supported here)
    for kv in $u; do
      k=${kv%%=*}
      v=${kv#*=}
      v=${v#\'}
      v=${v%\'}
      case $k in
        host) U_HOST=$v ;;
        port) U_PORT=$v ;;
        dbname) U_DB=$v ;;
        user) U_USER=$v ;;
      esac
    done
  fi
  U_HOST=${U_HOST:-${PGHOST:-}}
  U_PORT=${U_PORT:-${PGPORT:-5432}}
  U_USER=${U_USER:-${PGUSER:-$(id -un)}}
  U_DB=${U_DB:-${PGDATABASE:-$U_USER}}
  U_MAINT=$(url_for_db "$u" postgres)
}

# The same connection as URL $1 but to database $2.
url_for_db() {
  if [[ $1 =~ ^postgres(ql)?:// ]]; then
    # (a dbname= in the query string would win; not supported)
    printf '%s/%s%s' "$U_PREFIX" "$2" "${U_QUERY:+?$U_QUERY}"
  else
    printf '%s dbname=%s' "$1" "$2" # the last keyword wins in libpq
  fi
}

is_local() {
  case $U_HOST in
    '' | /* | localhost | 127.* | ::1) return 0 ;;
    *) return 1 ;;
  esac
}

is_root() { [[ $(id -u) -eq 0 ]]; }
is_debian() { [[ -r /etc/debian_version ]] && command -v apt-get >/dev/null; }

# --------------------------------------------------------------------- apt --
APT_UPDATED=0
APT_INSTALL=(apt-get install -y -q
  -o DPkg::Lock::Timeout=300
  -o Dpkg::Options::=--force-confdef
  -o Dpkg::Options::=--force-confold)

apt_update() {
  if [[ $APT_UPDATED -eq 0 ]]; then
    say "apt-get update"
    run_logged apt-get update -q -o DPkg::Lock::Timeout=300
    APT_UPDATED=1
  fi
}

# Install packages; if that fails (e.g. package lists missing/stale) run a
# normal `apt-get update` once and try again.
apt_install() {
  say "apt-get install -y $*"
  if [[ $APT_UPDATED -eq 0 ]] && "${APT_INSTALL[@]}" "$@" >/dev/null 2>&1 9>&-; then
    return 0
  fi
  apt_update
  run_logged "${APT_INSTALL[@]}" "$@"
}

# --------------------------------------------------------- local postgres --
have_server() {
  command -v pg_lsclusters >/dev/null && [[ -n $(compgen -G '/usr/lib/postgresql/*/bin/postgres' || true) ]]
}

newest_installed_major() {
  local d best=0 v
  for d in /usr/lib/postgresql/*/bin/postgres; do
    v=${d#/usr/lib/postgresql/}
    v=${v%%/*}
    if [[ $v =~ ^[0-9]+$ ]] && ((v > best)); then best=$v; fi
  done
  echo "$best"
}

install_server() {
  if is_root && is_debian; then
    say "PostgreSQL is not installed; installing it with apt"
    apt_update
    apt_install postgresql
    have_server || die "PostgreSQL still not found after 'apt-get install postgresql'"
    return 0
  fi
  if is_debian; then
    die "PostgreSQL is not installed. Run:" \
      "sudo apt-get update && sudo apt-get install -y postgresql" \
      "sudo bash scripts/setup.sh   # builds pgvector and creates the database"
  fi
  die "PostgreSQL is not installed (and this is not a Debian system with root)." \
    "Install PostgreSQL 15+ with the pgvector extension, start it on $LOCAL_HOST:$LOCAL_PORT" \
    "with user 'postgres' allowed to connect without a password, or set DATABASE_URL" \
    "to a server that has pgvector (e.g. DATABASE_URL=postgres://user:pass@host:5432/polder)."
}

# Prints "ver name status" of the Debian cluster on the given port.
cluster_on_port() {
  pg_lsclusters -h 2>/dev/null | awk -v p="$1" '$3 == p { print $1, $2, $4; exit }'
}

wait_ready() {
  local url=$1 i
  for ((i = 0; i < 60; i++)); do
    if pg_isready -q -d "$url"; then return 0; fi
    sleep 0.5
  done
  return 1
}

# Make sure a Debian cluster serves the local port and is running.
ensure_local_server() {
  local url=$1 port=$2 info ver name status
  have_server || install_server
  info=$(cluster_on_port "$port")
  if [[ -z $info ]]; then
    if [[ -n $(pg_lsclusters -h 2>/dev/null) ]]; then
      die "no PostgreSQL cluster is configured on port $port. Existing clusters:" \
        "$(pg_lsclusters -h 2>/dev/null | awk '{ printf "%s%s/%s on port %s (%s)", (NR > 1 ? ", " : ""), $1, $2, $3, $4 }')" \
        "Set DATABASE_URL to one of them, or move one to port $port."
    fi
    is_root || die "no PostgreSQL cluster exists. Run:" \
      "sudo pg_createcluster $(newest_installed_major) main --port $port --start"
    ver=$(newest_installed_major)
    say "creating PostgreSQL $ver cluster 'main' on port $port"
    run_logged pg_createcluster "$ver" main --port "$port"
    info=$(cluster_on_port "$port")
    [[ -n $info ]] || die "pg_createcluster did not create a cluster on port $port"
  fi
  read -r ver name status <<<"$info"
  if [[ $status != online* ]]; then
    local start=(pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start)
    if ! is_root && [[ $(id -un) != "$(stat -c %U "/etc/postgresql/$ver/$name" 2>/dev/null)" ]]; then
      die "PostgreSQL $ver/$name is not running. Run:" "sudo ${start[*]}"
    fi
    say "starting PostgreSQL $ver/$name"
    run_logged "${start[@]}" ||
      die "could not start PostgreSQL $ver/$name; see /var/log/postgresql/postgresql-$ver-$name.log"
  fi
  wait_ready "$url" || die "PostgreSQL $ver/$name on port $port does not accept connections"
}

# Loopback connections as `postgres` need trust auth (no password in the
# default URL). A freshly apt-installed cluster uses scram for TCP.
allow_trust() {
  local info ver name hba
  info=$(cluster_on_port "$U_PORT")
  [[ -n $info ]] || return 1
  read -r ver name _ <<<"$info"
  hba=/etc/postgresql/$ver/$name/pg_hba.conf
  [[ -w $hba ]] || return 1
  if grep -q 'polder scripts/setup.sh' "$hba"; then return 1; fi
  say "allowing password-less loopback connections for user postgres ($hba)"
  local tmp
  tmp=$(mktemp "$hba.XXXXXX")
  {
    echo '# added by polder scripts/setup.sh: local dev/test database, no password'
    echo 'host    all    postgres    127.0.0.1/32    trust'
    echo 'host    all    postgres    ::1/128         trust'
    cat -- "$hba"
  } >"$tmp"
  chown --reference="$hba" "$tmp"
  chmod --reference="$hba" "$tmp"
  mv -- "$tmp" "$hba"
  run_logged pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload
  sleep 0.3
}

# ----------------------------------------------------------------- pgvector --
pg_major() {
  psql_q "$1" -c "select current_setting('server_version_num')::int / 10000"
}

# Build pgvector from Debian's source package (trixie; bookworm has none) and
# install it into the local server's major version.
build_pgvector() {
  local major=$1 pg_config=/usr/lib/postgresql/$1/bin/pg_config
  if ! is_root || ! is_debian; then
    die "the 'vector' extension (pgvector) is not installed for PostgreSQL $major. Either run" \
      "sudo bash scripts/setup.sh   # builds it from Debian's pgvector source package" \
      "or install it yourself: https://github.com/pgvector/pgvector#installation" \
      "(e.g. apt-get install postgresql-$major-pgvector from apt.postgresql.org)"
  fi
  say "pgvector missing: building it from Debian's $PGVECTOR_SUITE source package"
  ensure_tmp
  chmod 755 "$TMP_DIR" # apt downloads as user _apt

  # 1. download the source package through a throw-away apt configuration
  local sources=/etc/apt/sources.list.d/debian.sources uri='' key=''
  if [[ -r $sources ]]; then
    uri=$(awk 'tolower($1) == "uris:" { print $2; exit }' "$sources")
    key=$(awk 'tolower($1) == "signed-by:" { print $2; exit }' "$sources")
  fi
  if [[ -z $uri && -r /etc/apt/sources.list ]]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }' /etc/apt/sources.list)
  fi
  uri=${uri:-http://deb.debian.org/debian}
  if [[ -z $key || ! -r $key ]]; then key=/usr/share/keyrings/debian-archive-keyring.gpg; fi

  local lists=$TMP_DIR/lists src=$TMP_DIR/src build=$TMP_DIR/build
  mkdir -p "$lists/partial" "$src" "$build"
  echo "deb-src [signed-by=$key] $uri $PGVECTOR_SUITE main" >"$TMP_DIR/sources.list"
  if getent passwd _apt >/dev/null; then chown -R _apt "$lists" "$src"; fi
  local opts=(
    -o "Dir::Etc::SourceList=$TMP_DIR/sources.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$lists"
    -o Dir::Cache::pkgcache= # keep the system's package cache untouched
    -o Dir::Cache::srcpkgcache=
  )
  say "downloading pgvector source ($uri $PGVECTOR_SUITE)"
  run_logged apt-get -q "${opts[@]}" update
  (cd -- "$src" && run_logged apt-get -q "${opts[@]}" source --download-only pgvector)
  local tarballs=("$src"/pgvector_*.orig.tar.*)
  [[ ${#tarballs[@]} -eq 1 ]] || die "expected one pgvector .orig tarball, found: ${tarballs[*]:-none}"

  # 2. build dependencies (may upgrade the server package and stop it)
  local pkgs=("postgresql-server-dev-$major")
  command -v make >/dev/null || pkgs+=(make)
  command -v gcc >/dev/null || pkgs+=(gcc)
  apt_install "${pkgs[@]}"
  [[ -x $pg_config ]] || die "$pg_config missing after installing postgresql-server-dev-$major"

  # 3. build and install (OPTFLAGS= : no -march=native, portable binary)
  tar -xf "${tarballs[0]}" -C "$build"
  local dirs=("$build"/*/)
  [[ ${#dirs[@]} -eq 1 ]] || die "unexpected layout of ${tarballs[0]##*/}"
  say "building ${tarballs[0]##*/}"
  run_logged make -C "${dirs[0]}" -j2 PG_CONFIG="$pg_config" OPTFLAGS=
  run_logged make -C "${dirs[0]}" install PG_CONFIG="$pg_config" OPTFLAGS=
}

# create extension in a scratch database: proves the installed .so matches
# the running server.
verify_pgvector_scratch() {
  local maint=$1 probe_url
  probe_url=$(url_for_db "$URL" "$PROBE_DB")
  psql_q "$maint" -c "drop database if exists $PROBE_DB" >/dev/null 2>&1 || true # leftover of a killed run
  psql_q "$maint" -c "create database $PROBE_DB" >/dev/null
  PROBE_DB_URL=$maint
  local out rc=0
  out=$(probe "$probe_url" 2>&1) || rc=$?
  psql_q "$maint" -c "drop database if exists $PROBE_DB" >/dev/null
  PROBE_DB_URL=
  if [[ $rc -ne 0 ]]; then
    die "pgvector was installed but 'create extension vector' fails in a scratch database:" "$out"
  fi
  say "pgvector $(tail -n 1 <<<"$out") works (checked in scratch database $PROBE_DB)"
}

# ------------------------------------------------------------------- main --
if [[ -n ${DATABASE_URL:-} ]]; then
  URL=$DATABASE_URL
else
  URL="postgres://postgres@$LOCAL_HOST:$LOCAL_PORT/$DEFAULT_DB"
fi

# Fast path: one psql call.
if out=$(probe "$URL" 2>/dev/null); then
  ready "$out"
  exit 0
fi

# Slow path. Serialise concurrent runs (npm start + npm test in parallel).
lock=${TMPDIR:-/tmp}/polder-setup.lock
if command -v flock >/dev/null && { exec 9>>"$lock"; } 2>/dev/null; then
  if ! flock -n 9; then
    say "another setup is running; waiting for it"
    flock -w 1800 9 || die "timed out waiting for $lock"
    if out=$(probe "$URL" 2>/dev/null); then
      ready "$out"
      exit 0
    fi
  fi
fi

parse_url "$URL"
MASKED=$(mask_url "$URL")
if [[ -n ${DATABASE_URL:-} ]]; then say "using DATABASE_URL=$MASKED"; fi
LOCAL=0
if is_local; then LOCAL=1; fi

# 0. client tools (psql, pg_isready)
if ! command -v psql >/dev/null || ! command -v pg_isready >/dev/null; then
  if [[ $LOCAL -eq 1 ]]; then
    install_server # the server package brings the client
  elif is_root && is_debian; then
    apt_install postgresql-client
  else
    die "psql is not installed. Run: sudo apt-get install -y postgresql-client (or your OS's equivalent)"
  fi
fi

# 1. server up
if ! pg_isready -q -d "$URL"; then
  # A server that answers but not over SSL, when DATABASE_URL asks for it (sslmode=require): it is
  # up, and waiting for it to be ready would wait for nothing.
  ssl_err=$(psql_q "$URL" -c 'select 1' 2>&1 >/dev/null) || true
  if [[ $ssl_err == *SSL* ]]; then
    die "cannot connect with DATABASE_URL ($MASKED): ${ssl_err#psql: error: }" \
      "The server does not take the SSL that DATABASE_URL's sslmode asks for: remove sslmode from DATABASE_URL (a server on this machine needs none), or turn SSL on at the server."
  fi
  if [[ $LOCAL -eq 1 ]]; then
    ensure_local_server "$URL" "$U_PORT"
  else
    die "cannot reach the PostgreSQL server of DATABASE_URL ($MASKED)." \
      "Check host/port/firewall, or unset DATABASE_URL to use a local server on $LOCAL_HOST:$LOCAL_PORT."
  fi
fi

# 2. can log in, database exists
connected=0
for attempt in 1 2 3; do
  if conn_err=$(psql_q "$URL" -c 'select 1' 2>&1 >/dev/null); then
    connected=1
    break
  fi
  if [[ $LOCAL -eq 0 ]]; then
    die "cannot connect with DATABASE_URL ($MASKED):" "$conn_err" \
      "If the database does not exist, an admin must create it: createdb $U_DB (or: create database \"$U_DB\";)"
  fi
  if maint_err=$(psql_q "$U_MAINT" -c 'select 1' 2>&1 >/dev/null); then
    exists=$(psql_q "$U_MAINT" -v db="$U_DB" -f - <<<"select 1 from pg_database where datname = :'db';")
    if [[ $exists == 1 ]]; then die "cannot connect to database $U_DB:" "$conn_err"; fi
    say "creating database $U_DB"
    create_err=$(psql_q "$U_MAINT" -v db="$U_DB" -f - 2>&1 >/dev/null <<<"select format('create database %I', :'db') \\gexec") ||
      die "could not create database $U_DB:" "$create_err" \
        "A superuser must run: create database \"$U_DB\" owner \"$U_USER\";"
    continue
  fi
  if [[ $attempt -lt 3 && $U_USER == postgres && $U_HOST != /* && -n $U_HOST ]] &&
    [[ $maint_err == *authentication* || $maint_err == *password* ]] && is_root && allow_trust; then
    continue
  fi
  if [[ -n ${DATABASE_URL:-} ]]; then
    die "cannot connect with DATABASE_URL ($MASKED):" "$maint_err" "Check DATABASE_URL: its form (postgres://user:password@host:port/database), its user and its password."
  fi
  die "cannot connect to the local PostgreSQL server ($MASKED):" "$maint_err" \
    "User 'postgres' must be able to connect to $LOCAL_HOST without a password: as root, put" \
    "'host all postgres $LOCAL_HOST/32 trust' first in pg_hba.conf and reload PostgreSQL," \
    "or set DATABASE_URL with the right credentials."
done
[[ $connected -eq 1 ]] || die "cannot connect to database $U_DB ($MASKED):" "$conn_err"

# 3. pgvector installed on the server
avail=$(psql_q "$URL" -c "select default_version from pg_available_extensions where name = 'vector'")
if [[ -z $avail ]]; then
  major=$(pg_major "$URL")
  if [[ $LOCAL -eq 0 ]]; then
    die "the server of DATABASE_URL ($MASKED) has no 'vector' extension (pgvector)." \
      "An admin of that server must install pgvector for PostgreSQL $major" \
      "(Debian/Ubuntu with apt.postgresql.org: apt-get install postgresql-$major-pgvector;" \
      "managed services: enable/allow the 'vector' extension; source: https://github.com/pgvector/pgvector)" \
      "and then run as a superuser: psql \"$MASKED\" -c 'create extension if not exists vector'"
  fi
  build_pgvector "$major"
  # installing postgresql-server-dev may have upgraded and stopped the server
  if ! pg_isready -q -d "$URL"; then ensure_local_server "$URL" "$U_PORT"; fi
  avail=$(psql_q "$URL" -c "select default_version from pg_available_extensions where name = 'vector'")
  [[ -n $avail ]] || die "pgvector was built and installed, but the server on $U_HOST:$U_PORT does not see it" \
    "(is that server running from /usr/lib/postgresql/$major on this machine?)"
  verify_pgvector_scratch "$U_MAINT"
fi

# 4. final check in the target database
ensure_tmp
if out=$(probe "$URL" 2>"$TMP_DIR/probe.err"); then
  ready "$out"
  exit 0
fi
probe_err=$(cat -- "$TMP_DIR/probe.err")
if [[ $LOCAL -eq 1 && $U_USER != postgres && -n $U_HOST && $U_HOST != /* ]]; then
  # e.g. a non-superuser role: create the extension once as the postgres superuser
  su_url="postgres://postgres@$LOCAL_HOST:$U_PORT/$U_DB"
  if psql_q "$su_url" -c 'create extension if not exists vector' >/dev/null 2>&1 &&
    out=$(probe "$URL" 2>/dev/null); then
    say "created extension vector in $U_DB as user postgres"
    ready "$out"
    exit 0
  fi
fi
die "'create extension vector' does not work in $U_DB ($MASKED):" "$probe_err" \
  "A superuser must run (pgvector is not a trusted extension):" \
  "psql \"$MASKED\" -c 'create extension if not exists vector'"
