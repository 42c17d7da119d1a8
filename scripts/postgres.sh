#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (packages/workflow): one cluster under
# ${TMPDIR:-/tmp}/svir-postgres, on 127.0.0.1 only, port 54329 (or SVIR_PG_PORT). Starts it unless
# it is already answering, creates the database `svir`, and prints its URL as the only line on
# stdout. Prints nothing else unless something fails. Needs PostgreSQL's binaries; downloads
# nothing. Run as root, the server runs as the `postgres` user, as initdb and postgres refuse root.
set -euo pipefail

port=${SVIR_PG_PORT:-54329}
base="${TMPDIR:-/tmp}"
base="${base%/}/svir-postgres"
url="postgres://postgres@127.0.0.1:$port/svir"

fail() {
  echo "scripts/postgres.sh: $*" >&2
  exit 1
}

# Runs a command with its output kept back; shows the output only when the command fails.
quiet() {
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" >&2
    return 1
  fi
}

find_bindir() {
  local dir
  if command -v pg_config > /dev/null; then
    dir=$(pg_config --bindir 2> /dev/null || true)
    if [ -x "$dir/initdb" ]; then
      echo "$dir"
      return
    fi
  fi
  dir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  if [ -x "$dir/initdb" ]; then
    echo "$dir"
    return
  fi
  if command -v initdb > /dev/null; then
    dirname "$(command -v initdb)"
    return
  fi
  fail "PostgreSQL's server binaries (initdb, pg_ctl, postgres) are not in pg_config --bindir," \
    "/usr/lib/postgresql/*/bin or PATH; install PostgreSQL (on Debian: apt-get install postgresql)"
}

bin=$(find_bindir)

# initdb and postgres refuse to run as root.
if [ "$(id -u)" -eq 0 ]; then
  as_server() {
    if command -v runuser > /dev/null; then
      runuser -u postgres -- "$@"
    else
      su -s /bin/sh postgres -c "$(printf '%q ' "$@")"
    fi
  }
else
  as_server() { "$@"; }
fi

# The pid of our postmaster from postmaster.pid, when that process is alive and is a postmaster of
# this data directory. After a kill -9 the file stays behind, and its pid may since belong to
# another process.
live_postmaster() {
  local pid
  pid=$(head -n 1 "$data/postmaster.pid" 2> /dev/null) || return 1
  [ -n "$pid" ] || return 1
  case "$(ps -p "$pid" -o args= 2> /dev/null)" in
    *" -D $data"*) echo "$pid" ;;
    *) return 1 ;;
  esac
}

answering() {
  local listening
  live_postmaster > /dev/null || return 1
  listening=$(sed -n 4p "$data/postmaster.pid")
  [ "$listening" = "$port" ] && "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres
}

init_cluster() {
  local new="$data.new"
  rm -rf "$data" "$new"
  mkdir -m 700 "$new"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres > /dev/null 2>&1 ||
      quiet useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres ||
      fail "could not create the postgres user"
    chown postgres: "$new"
  fi
  # Trust without a password: the cluster is thrown away, and it listens on 127.0.0.1 alone.
  quiet as_server "$bin/initdb" -D "$new" -U postgres --auth=trust -E UTF8 --locale=C --no-sync ||
    fail "initdb failed"
  as_server sh -c 'cat > "$1/pg_hba.conf"' sh "$new" << 'EOF'
# A throwaway test cluster (scripts/postgres.sh): anyone on this machine may connect, as anyone.
local all all trust
host all all 127.0.0.1/32 trust
EOF
  # Durability is not wanted for tests; two test runners with their pools, and 100 workflows, need
  # more than the default 100 connections. No Unix socket: its default directory is not
  # writable by every user, and the tests connect over TCP.
  as_server sh -c 'cat >> "$1/postgresql.conf"' sh "$new" << 'EOF'

# scripts/postgres.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  mv "$new" "$data"
}

start_server() {
  local pid attempt out
  if pid=$(live_postmaster); then
    # Ours, but on another port or not answering: start again.
    quiet as_server "$bin/pg_ctl" stop -D "$data" -m fast -w ||
      quiet as_server "$bin/pg_ctl" stop -D "$data" -m immediate -w ||
      fail "could not stop the server $pid of $data"
  else
    # Left by a server that was killed. postgres would take it for a running server while its
    # pid is a zombie not yet reaped, or belongs to another process.
    rm -f "$data/postmaster.pid"
  fi
  # After a kill -9 the old server's children hold its shared memory until they notice that their
  # parent has gone, which takes a moment; the new postmaster refuses to start until then.
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    # Closes the lock's descriptor (9), which the server would otherwise keep, holding the lock.
    if out=$(as_server "$bin/pg_ctl" start -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-p $port" 2>&1 9>&-); then
      return
    fi
    [ "$attempt" -eq 10 ] || sleep 1
  done
  printf '%s\n' "$out" >&2
  echo "== the end of $data/server.log" >&2
  tail -n 20 "$data/server.log" >&2 || true
  fail "could not start the server on 127.0.0.1:$port"
}

ensure_database() {
  local exists
  exists=$("$bin/psql" -X -qtA -h 127.0.0.1 -p "$port" -U postgres -d postgres \
    -c "select 1 from pg_database where datname = 'svir'" 2>&1) ||
    fail "could not connect to 127.0.0.1:$port: $exists"
  [ "$exists" = 1 ] ||
    quiet "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres -O postgres svir ||
    fail "could not create the database svir"
}

mkdir -p "$base"
chmod 755 "$base"
# As postgres spells it in its command line, which live_postmaster matches.
base=$(cd "$base" && pwd)
data="$base/data"
# Two test runners may start at once; one starts the server while the other waits.
exec 9> "$base/lock"
if command -v flock > /dev/null; then
  flock 9
fi

if ! answering; then
  version=$("$bin/initdb" --version | sed -E 's/^[^0-9]*([0-9]+).*/\1/')
  if [ "$(cat "$data/PG_VERSION" 2> /dev/null)" != "$version" ]; then
    init_cluster
  fi
  start_server
fi
ensure_database
echo "$url"
