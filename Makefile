# Parable: `make run` serves the embedded default, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format migrate worker bench clean prolific-standin

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first, from its pinned CPU build, so nothing else can pull another one.
$(VENV)/.runtime: requirements.txt | $(VENV)/bin/activate
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.runtime
	$(PIP) install --quiet -r requirements-test.txt
	touch $@

migrate: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput

# The links it prints and sends to Prolific and MTurk follow HOST and PORT unless
# PARABLE_PUBLIC_URL is set, in the environment or .env (a real deployment sets it).
# One gunicorn process with threads: SQLite takes one writer at a time (the process's
# writers queue in turn) and in-process tasks run on a background thread per lane.
run: export PARABLE_RUN_URL = http://$(HOST):$(PORT)
run: migrate
	$(PY) manage.py bootstrap
	$(PY) -m gunicorn config.wsgi:application -c platform/gunicorn.conf.py \
		--bind $(HOST):$(PORT) --workers 1 --threads 4 --no-control-socket

# A local stand-in of Prolific's API; it prints the settings that point Parable at it.
prolific-standin: $(VENV)/.runtime
	$(PY) manage.py prolific_standin --host $(HOST) --port $${PROLIFIC_STANDIN_PORT:-8010}

# A worker per lane (docs/deploying.md): short interactive work never waits behind an
# import or an analysis ("bulk"), nor behind a training run ("modeling").
worker: $(VENV)/.runtime
	$(VENV)/bin/celery -A config worker -Q bulk -n bulk@%h --loglevel=INFO & bulk=$$!; \
	$(VENV)/bin/celery -A config worker -Q modeling -n modeling@%h --loglevel=INFO & \
	modeling=$$!; trap "kill $$bulk $$modeling" EXIT; \
	$(VENV)/bin/celery -A config worker -Q celery -n interactive@%h --loglevel=INFO

test: $(VENV)/.test
	bash tests/run.sh

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.test
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(VENV)/.test
	for script in bench/*/run.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) staticfiles
