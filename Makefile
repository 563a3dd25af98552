# Two commands do everything: `make book` builds the book, `make test` runs every test.
# All targets use a project-local virtual environment (.venv); your Python is untouched.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BOOK_FLAGS := -W -n --keep-going
PYTEST_FLAGS := -n 2 --dist loadfile -p no:cacheprovider

.PHONY: help book test execute clean lab data student bench badges sync-helper browser venv

help:
	@echo "make book     build the HTML book into _build/html"
	@echo "make test     run the whole test suite (notebooks, book build, browser, instructor pipeline)"
	@echo "make execute  re-run every notebook in place in a fresh kernel (NB=notebooks/x.ipynb for one)"
	@echo "make lab      open JupyterLab on the notebooks"
	@echo "make data     fetch and verify MNIST into data/mnist"
	@echo "make student  write student versions and a zip into _build/student"
	@echo "make bench    print notebook run times and training throughput"
	@echo "make badges   rewrite the Open-in-Colab badges from _config.yml's repository setting"
	@echo "make clean    remove build products"

venv: $(STAMP)
$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

book: $(STAMP)
	$(BIN)/python scripts/fetch_mathjax.py
	$(BIN)/jupyter-book build . $(BOOK_FLAGS)
	@echo "Book built: open _build/html/index.html"

data: $(STAMP)
	$(BIN)/python scripts/fetch_mnist.py

browser:
	@bash scripts/ensure_browser.sh

# nbval (strict) runs each notebook alone in an empty folder, as Colab would open it.
# Two notebooks run at once, so each kernel gets one thread (two would oversubscribe 2 cores).
test: $(STAMP) data browser
	$(BIN)/python scripts/fetch_mathjax.py
	rm -rf _build/standalone
	for nb in notebooks/*.ipynb; do d=_build/standalone/$$(basename $$nb .ipynb); mkdir -p $$d; cp $$nb $$d/; done
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m pytest $(PYTEST_FLAGS) \
		--nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg tests _build/standalone

execute: $(STAMP) data
	MNIST_DIR=$(CURDIR)/data/mnist $(BIN)/python scripts/execute_notebooks.py $(NB)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks

student: $(STAMP)
	$(BIN)/python scripts/make_student.py

bench: $(STAMP) data
	$(BIN)/python scripts/bench.py

badges: $(STAMP)
	$(BIN)/python scripts/badges.py

sync-helper: $(STAMP)
	$(BIN)/python scripts/sync_helper.py

clean:
	rm -rf _build .pytest_cache
	find . -name __pycache__ -prune -not -path './.venv/*' -exec rm -rf {} +
	find . -name .ipynb_checkpoints -prune -not -path './.venv/*' -exec rm -rf {} +
