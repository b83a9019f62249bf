#!/usr/bin/env bash
# The whole test suite: system packages, ruff, node tests, then pytest against PostgreSQL and Redis.
# pytest runs in parallel (pytest-xdist: PARABLE_TEST_WORKERS processes, default one per CPU,
# each with its own PostgreSQL database, Redis database and ports), then the tests marked
# `serial` one at a time; each pass prints its 15 slowest tests, and the command its time.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
started=$(date +%s)

need=()
# As root the server runs as the postgres user that Debian's package creates.
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && ! id -u postgres >/dev/null 2>&1; }; then
  need+=(postgresql)
fi
command -v redis-server >/dev/null || need+=(redis-server)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
command -v node >/dev/null || need+=(nodejs)
# pdflatex sets the methods section in a test (overfull boxes): LaTeX's base alone, about
# 120 MB with its fonts, without the recommended extras.
latex=()
command -v pdflatex >/dev/null || latex+=(texlive-latex-base)
if [ $(( ${#need[@]} + ${#latex[@]} )) -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "Missing system packages: ${need[*]} ${latex[*]}. Install them (as root: apt-get install ${need[*]} ${latex[*]})." >&2
    exit 1
  fi
  echo "Installing ${need[*]} ${latex[*]} from Debian's packages"
  apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  if [ ${#latex[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${latex[@]}" >/dev/null
  fi
fi

echo "== ruff"
$venv/bin/ruff check .
$venv/bin/ruff format --check .

echo "== node --test"
node --test tests/js/

services=$(mktemp -d /tmp/parable-test.XXXXXX)
trap 'bash tests/services.sh stop "$services"' EXIT
eval "$(bash tests/services.sh start "$services")"
export DATABASE_URL PARABLE_TEST_REDIS_URL PARABLE_TEST_SERVICES_DIR

workers=${PARABLE_TEST_WORKERS:-auto}
status=0
echo "== pytest in parallel ($workers workers; PostgreSQL $DATABASE_URL, Redis $PARABLE_TEST_REDIS_URL)"
$venv/bin/python -m pytest -p no:cacheprovider -n "$workers" --dist loadfile --durations=15 \
  -m "not serial" "$@" || status=$?
if grep -rqs --include='*.py' "mark.serial" tests/; then
  echo "== pytest, the tests that run alone"
  $venv/bin/python -m pytest -p no:cacheprovider --durations=15 -m serial "$@" || {
    code=$?
    [ "$code" = 5 ] || status=$code  # 5: none selected
  }
fi
echo "== the whole command took $(( $(date +%s) - started )) s"
exit $status
