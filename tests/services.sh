#!/usr/bin/env bash
# Start or stop the PostgreSQL and Redis that the test suite uses, on loopback in a temporary folder.
#   tests/services.sh start DIR   -> prints the environment to export (DATABASE_URL, PARABLE_TEST_REDIS_URL)
#   tests/services.sh stop DIR
#   tests/services.sh pg-stop DIR | pg-start DIR -> PostgreSQL alone down and up again, its data kept
#     (a database outage under requests: tests/integration/test_database_outage.py)
# PARABLE_TEST_PG_PORT and PARABLE_TEST_REDIS_PORT choose the ports; PARABLE_PG_OPTIONS adds
# server options (bench/serving loads pg_stat_statements with it).
set -euo pipefail
action=$1
dir=$2
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
pg_port=${PARABLE_TEST_PG_PORT:-25432}
redis_port=${PARABLE_TEST_REDIS_PORT:-26379}

as_pg() {
  # initdb and postgres refuse to run as root.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() {
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir/pg -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 ${PARABLE_PG_OPTIONS:-}" \
    start >/dev/null || { cat "$dir/pg/server.log" >&2; exit 1; }
}

case "$action" in
start)
  [ -n "$pg_bin" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
  command -v redis-server >/dev/null || { echo "redis-server not found (apt-get install redis-server)" >&2; exit 1; }
  mkdir -p "$dir/pg" "$dir/redis"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir/pg"; chmod 755 "$dir"; fi
  as_pg "$pg_bin/initdb" -D "$dir/pg/data" -U parable --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/pg/initdb.log" 2>&1 \
    || { cat "$dir/pg/initdb.log" >&2; exit 1; }
  pg_start
  as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U parable parable
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir/redis" --daemonize yes \
    --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" --save "" --appendonly no >/dev/null
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$redis_port" ping >/dev/null || { cat "$dir/redis/redis.log" >&2; exit 1; }
  echo "export DATABASE_URL=postgres://parable@127.0.0.1:$pg_port/parable"
  echo "export PARABLE_TEST_REDIS_URL=redis://127.0.0.1:$redis_port/0"
  echo "export PARABLE_TEST_SERVICES_DIR=$dir"
  ;;
pg-stop)
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null;;
pg-start)
  pg_start;;
stop)
  if [ -f "$dir/pg/data/postmaster.pid" ]; then as_pg "$pg_bin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -f "$dir/redis/redis.pid" ]; then redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || kill "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true; fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop|pg-stop|pg-start DIR" >&2; exit 2;;
esac
