#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL server for the store tests (a ctest
# fixture). It listens on a unix socket in a fresh temp dir only, so parallel
# test runs never collide on a port. `start STATE_FILE` writes the server's URL
# to STATE_FILE, or "skip: <reason>" when Debian's postgresql is not installed
# (the tests then skip loudly). `stop STATE_FILE` shuts it down and removes it.
# For outage tests: `crash STATE_FILE` stops it at once (immediate mode, as a
# crash), `restart STATE_FILE` starts the same server again.
set -euo pipefail
action="$1"
state="$2"

find_bin() {
  command -v "$1" 2>/dev/null && return
  ls /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1
}

as_owner() {  # initdb and postgres refuse to run as root
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_server() {  # the server in $1, listening on a socket there only
  as_owner "$pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$1' -c fsync=off -c max_connections=50" start >/dev/null
}

if [ "$action" = start ]; then
  initdb=$(find_bin initdb || true)
  pg_ctl=$(find_bin pg_ctl || true)
  if [ -z "$initdb" ] || [ -z "$pg_ctl" ]; then
    echo "skip: PostgreSQL server binaries (initdb, pg_ctl) not found; scripts/setup installs Debian's postgresql" >"$state"
    echo "pg_server.sh: $(cat "$state")"
    exit 0
  fi
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "skip: running as root and there is no 'postgres' user to own the server" >"$state"
    exit 0
  fi
  dir=$(mktemp -d /tmp/meshtest-pg.XXXXXX)
  user=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; user=postgres; fi
  as_owner "$initdb" -D "$dir/data" -U "$user" --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1
  start_server "$dir"
  echo "postgresql:///postgres?host=$dir&user=$user" >"$state"
  echo "$dir" >"$state.dir"
  echo "pg_server.sh: PostgreSQL running at $(cat "$state")"
elif [ "$action" = crash ]; then
  as_owner "$(find_bin pg_ctl)" -D "$(cat "$state.dir")/data" -m immediate -w stop >/dev/null
elif [ "$action" = restart ]; then
  pg_ctl=$(find_bin pg_ctl)
  start_server "$(cat "$state.dir")"
elif [ "$action" = stop ]; then
  if [ -f "$state.dir" ]; then
    dir=$(cat "$state.dir")
    pg_ctl=$(find_bin pg_ctl)
    as_owner "$pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir" "$state.dir"
  fi
  rm -f "$state"
fi
