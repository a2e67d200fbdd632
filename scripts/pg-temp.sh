#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on a loopback port as the postgres user, in a temporary directory.
# Prints the URL on stdout; `scripts/pg-temp.sh stop DIR` stops it. Used by .ci/run and by hand.
set -euo pipefail
if [ "${1:-}" = "stop" ]; then
  dir="$2"
  bindir=$(pg_config --bindir)
  su postgres -s /bin/bash -c "'$bindir/pg_ctl' -D '$dir/data' -m immediate stop" >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi
if ! command -v pg_config >/dev/null 2>&1 || [ ! -x "$(pg_config --bindir)/initdb" ]; then
  echo "installing postgresql..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
fi
bindir=$(pg_config --bindir)
port=${PGTEMP_PORT:-55432}
# Take the first free loopback port from there (another server may already hold it).
while (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
dir=$(mktemp -d /tmp/pgtemp.XXXXXX)
chown postgres "$dir"
su postgres -s /bin/bash -c "'$bindir/initdb' -D '$dir/data' -U postgres --auth=trust -E UTF8 >/dev/null"
# A port that looked free can still be taken before the server binds it (a listener that came up meanwhile,
# or the local end of a client connection: loopback clients take ephemeral ports): then the next one.
for attempt in $(seq 1 20); do
  if su postgres -s /bin/bash -c "'$bindir/pg_ctl' -D '$dir/data' -l '$dir/log' -w -o '-p $port -h 127.0.0.1 -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300' start >/dev/null"; then
    echo "$dir postgres://postgres@127.0.0.1:$port/postgres"
    exit 0
  fi
  grep -q "Address already in use" "$dir/log" || break
  port=$((port + 1))
  while (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
done
echo "pg-temp.sh: PostgreSQL did not start (log: $dir/log)" >&2
exit 1
