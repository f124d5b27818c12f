# Every target creates .venv on first use, so a fresh clone needs nothing but Python 3.11.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: chat test lint bench install clean fuzz

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; run 'make PYTHON=python3 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q --upgrade pip >/dev/null
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

chat: $(STAMP)
	@$(BIN)/dialogkit chat flows/support_ticket.yaml $(ARGS)

# The suite runs on every core (pytest-xdist; TEST_WORKERS=0 runs it in one process, as a debugger wants).
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/ruff check dialogkit tests bench examples
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check dialogkit tests bench examples
	$(BIN)/mypy

# Many more fuzz examples than make test runs, with fresh randomness: FUZZ_EXAMPLES per test.
FUZZ_EXAMPLES ?= 10000
fuzz: $(STAMP)
	DIALOGKIT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/fuzz -o timeout=0 $(ARGS)

# The benchmarks' extras (LangGraph for bench/peer.py) on top of the dev install, once.
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q -e '.[bench]'
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .dialogkit
