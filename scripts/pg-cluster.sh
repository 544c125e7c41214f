#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and developers (Debian's postgresql package):
# initdb in a fresh temporary folder, a free loopback port, its unix socket in that folder,
# trust authentication, one database `matombo`.
#
#   eval "$(bash scripts/pg-cluster.sh start)"   # sets MATOMBO_TEST_PG and PG_CLUSTER_DIR
#   cargo test -p matombo-online
#   bash scripts/pg-cluster.sh stop "$PG_CLUSTER_DIR"
#
# `start` prints the two `export` lines on stdout (everything else goes to stderr). As
# root the server runs as the `postgres` user (PostgreSQL refuses to run as root), with
# the folder given to it. `stop DIR` stops the server and removes the folder.
set -euo pipefail

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] || { echo "no PostgreSQL found in /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2; return 1; }
  echo "$d"
}

# Runs a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local bin dir port
  bin=$(bindir)
  dir=$(mktemp -d /tmp/matombo-pg.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  port=$(free_port)
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; return 1; }
  # Loopback only; fsync off: a test cluster that dies is thrown away anyway.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >&2 ||
    { cat "$dir/server.log" >&2; return 1; }
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres matombo >&2
  echo "export MATOMBO_TEST_PG=postgres://postgres@127.0.0.1:$port/matombo"
  echo "export PG_CLUSTER_DIR=$dir"
}

stop() {
  local dir=${1:?usage: pg-cluster.sh stop DIR} bin
  bin=$(bindir)
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
