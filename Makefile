# Two commands do everything: `make book` builds the book, `make test` runs every test.
# `make check` runs the static tests in a few minutes; `make test NB=...` one chapter.
# All targets use a project-local virtual environment (.venv); your Python is untouched.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BOOK_FLAGS := -W -n --keep-going
STYLED := normbook grading upkeep measure tests book/_ext notebooks
PYTEST_FLAGS := -n 2 -p no:cacheprovider --durations=50

.PHONY: help book test execute clean lab data student bench badges sync browser venv \
	test-colab test-latest format check-submissions check-seeds full-scale bench-autograde \
	grade collect feedback export gradescope variants test-triton bench-gpu gpt-at-scale placements-at-depth \
	placements-streams norm-sweeps norms-at-scale \
	conditional-sweep check test-browser-matrix sandbox pdf

help:
	@echo "make book     build the HTML book into _build/html (in .venv-book, env/book.txt: no torch)"
	@echo "make check    ruff and the static tests: no chapter run, site or browser"
	@echo "make test     the whole suite but the opt-in targets below (about half an hour)"
	@echo "make test NB=notebooks/x.ipynb   a chapter: nbval, Colab, grading, pages"
	@echo "make execute  re-run every notebook in place in a fresh kernel (NB=notebooks/x.ipynb for one)"
	@echo "make pdf      the whole book as one PDF, _build/html/book.pdf (after make book)"
	@echo "make lab      open JupyterLab on reader copies of the chapters (_build/lab; sources untouched)"
	@echo "make data     fetch and verify MNIST into data/mnist"
	@echo "make student  hand-outs, per-chapter zips, nbgrader sources into _build/ (builds the site)"
	@echo "make bench    print notebook run times and training throughput"
	@echo "make bench-autograde  run times as nbgrader autograde runs the chapters"
	@echo "make badges   rewrite the Open-in-Colab badges from _config.yml's repository setting"
	@echo "make test-colab PY=python3.13   the Colab-stack test on another Python (slow: CUDA torch)"
	@echo "make test-latest                every chapter on the newest releases"
	@echo "make test-triton                chapter 10 and its Triton kernels (interpreter)"
	@echo "make test-browser-matrix        the browser tests at both widths and schemes"
	@echo "make bench-gpu                  measure them on a GPU (PYTHON with CUDA torch, triton)"
	@echo "make gpt-at-scale               chapter 08's GPT at larger sizes (a GPU: about 12 minutes)"
	@echo "make placements-at-depth        chapter 13's sweep at 12 blocks (3 parts x 30 min a core; -j3)"
	@echo "make placements-streams         its rate 0.01 again, with the streams' RMS (2 x 8 min; -j2)"
	@echo "make norm-sweeps                chapters 12 and 13's rate and width sweeps (15 min a core; -j2)"
	@echo "make norms-at-scale             the same sweeps 10-100 times larger (a GPU)"
	@echo "make conditional-sweep          chapter 14's sweep of conditioning variants (35 min a core)"
	@echo "make format   format and lint-fix the code: notebooks, normbook, packages, tests (ruff)"
	@echo "make sync     write normbook/'s shared code into the chapters' synced cells"
	@echo "make check-seeds NB=notebooks/x.ipynb   run a chapter with two other seed lists"
	@echo "make full-scale                 chapter 07 at the papers' step counts (about an hour)"
	@echo "make check-submissions RELEASED=... SUBMITTED=... [SOURCE=...]   flag tampering"
	@echo "make collect COURSE=... DOWNLOAD=...   an LMS download into an nbgrader course"
	@echo "make grade COURSE=... ASSIGNMENT=...   grade a course's submissions (sandboxed)"
	@echo "make feedback COURSE=... ASSIGNMENT=...   feedback for students, no mark schemes"
	@echo "make gradescope ASSIGNMENT=...   Gradescope autograder zip (the book's grader)"
	@echo "make variants SEED=...   a course's own exercise variants and hidden-test seeds"
	@echo "make export COURSE=... ASSIGNMENT=... [DUE=...]   grades CSV for the LMS"
	@echo "make clean    remove build products"

# A virtual environment and its stamp: $(call venv,FOLDER,what pip installs).
define venv
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --upgrade pip
	$(1)/bin/python -m pip install --quiet $(2)
	touch $@
endef

venv: $(STAMP)
$(STAMP): requirements.txt
	$(call venv,$(VENV),-r requirements.txt)

# Colab's package set (env/colab.txt): every chapter also runs alone in it.
COLAB_VENV := .venv-colab
$(COLAB_VENV)/.installed: env/colab.txt
	$(call venv,$(COLAB_VENV),-r env/colab.txt)

# The site builds in a light environment of its own (env/book.txt): Jupyter Book and its
# Sphinx packages only, since the pages show stored outputs and execute nothing.
BOOK_VENV := .venv-book
$(BOOK_VENV)/.installed: env/book.txt
	@echo "make book: installing the book-only environment $(BOOK_VENV) from env/book.txt (once)"
	$(call venv,$(BOOK_VENV),-r env/book.txt)

book: $(BOOK_VENV)/.installed
	@echo "make book: building the site into _build/html from the notebooks' stored outputs"
	@echo "  (nothing is executed; MathJax and Thebe are fetched once with npm into _build/vendor)"
	$(BOOK_VENV)/bin/jupyter-book build . $(BOOK_FLAGS)
	@echo "make book: done. Reader copies of the chapters: _build/html/notebooks/*.ipynb"
	@echo "  View the site: $(PYTHON) -m http.server -d _build/html 8000, then open http://localhost:8000"

# The whole book as one PDF beside the site (_build/html/book.pdf, linked from the front
# page): Sphinx's single-page build of the same sources, printed by Chromium.
pdf: book $(STAMP) browser
	rm -rf _build/singlehtml
	$(BOOK_VENV)/bin/jupyter-book build . --builder singlehtml $(BOOK_FLAGS)
	$(BIN)/python book/_ext/print_book.py _build

data: $(STAMP)
	$(BIN)/python -m upkeep.fetch_mnist

browser:
	@bash upkeep/ensure_browser.sh

# The grader's sandbox (bubblewrap): installed as root on Debian/Ubuntu, else named.
sandbox:
	@bash upkeep/ensure_sandbox.sh

# The static tier: ruff and every test marked `static` (pyproject.toml's markers): the
# notebooks' structure, text, imports and exercise metadata, sync and badges, the
# bibliography, and the unit tests; no chapter runs, no site is built, no browser. One
# thread per worker, as in make test (the tiny trainings would oversubscribe 2 cores).
check: $(STAMP)
	$(BIN)/ruff format --check $(STYLED)
	$(BIN)/ruff check $(STYLED)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest $(PYTEST_FLAGS) -m static tests

# nbval (strict) runs each notebook alone in an empty folder, as Colab would open it.
# Two notebooks run at once, so each kernel gets one thread (two would oversubscribe
# 2 cores). A notebook's cells stay on one worker (tests/conftest.py schedules them as
# a unit, slow kinds of work first); every other test goes to whichever worker is free.
# `make test NB=notebooks/x.ipynb`: that chapter's tests only (-k on its name): nbval,
# the Colab-stack run of its reader copy, its grading round, its static tests, its page
# in the browser (the site is built for it).
# Not in `make test` (opt-in, named at the end of the run): chapter 10, whose kernels
# need triton (`make test-triton`, own environment), and the browser tests' whole
# width x colour-scheme matrix (`make test-browser-matrix`). Under CI=true a test whose
# environment is missing (Chromium, the Colab stack) fails instead of skipping.
# The report: --durations in the log, every test's time in _build/test-report.xml.
TRITON_CHAPTERS := notebooks/10-layernorm-gpu.ipynb
STANDALONE = $(if $(NB),$(NB),$(filter-out $(TRITON_CHAPTERS),$(wildcard notebooks/*.ipynb)))
CHAPTER = $(if $(NB),-k $(basename $(notdir $(NB))))
OPT_IN = -m "not triton and not browser_matrix"
test: $(STAMP) $(COLAB_VENV)/.installed $(BOOK_VENV)/.installed data browser sandbox
	@if [ -n "$(filter $(NB),$(TRITON_CHAPTERS))" ]; then \
		echo "make test: $(NB) needs triton; run make test-triton"; exit 2; fi
	rm -rf _build/standalone
	for nb in $(STANDALONE); do d=_build/standalone/$$(basename $$nb .ipynb); \
		mkdir -p $$d; cp $$nb $$d/; done
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 \
		STANDALONE_PYTHON=$(CURDIR)/$(COLAB_VENV)/bin/python \
		$(BIN)/python -m pytest $(PYTEST_FLAGS) $(OPT_IN) $(CHAPTER) \
		--junitxml=_build/test-report.xml --nbval --nbval-current-env \
		--nbval-sanitize-with tests/sanitize.cfg tests _build/standalone; \
	status=$$?; echo "make test: not run here (opt-in): $(TRITON_CHAPTERS) and" \
		"tests/test_triton_kernels.py (make test-triton); the rest of the browser" \
		"tests' width x colour-scheme matrix (make test-browser-matrix)"; exit $$status

# Opt-in: the layout and accessibility tests at both widths (390 and 1400 px) in both
# colour schemes on every page, with full-page screenshots of every chapter at each
# into _build/test-artifacts/screenshots; `make test` runs one combination or two of
# each, and takes no screenshot.
test-browser-matrix: $(STAMP) $(BOOK_VENV)/.installed browser
	$(BIN)/python -m pytest $(PYTEST_FLAGS) tests/test_browser.py --screenshots \
		-k "test_layout_fits_phone_and_desktop or test_no_serious_accessibility_violations"

# Opt-in: the Colab-stack test on another Python. torch 2.13.0 then comes from the package
# registry with its CUDA packages (several GB, slow). It runs the reader copies that
# `make book` writes (READER_COPIES); chapter 10 needs triton (make test-triton).
PY ?= python3.13
COLAB_PY_VENV := .venv-colab-$(notdir $(PY))
READER_COPIES := READER_COPIES=$(CURDIR)/_build/html/notebooks
test-colab: $(STAMP) data book
	test -x $(COLAB_PY_VENV)/bin/python || $(PY) -m venv $(COLAB_PY_VENV)
	$(COLAB_PY_VENV)/bin/python -m pip install --quiet -r env/colab.txt
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(READER_COPIES) \
		STANDALONE_PYTHON=$(CURDIR)/$(COLAB_PY_VENV)/bin/python \
		$(BIN)/python -m pytest $(PYTEST_FLAGS) -v -m "not triton" tests/test_colab_stack.py

# Opt-in: every chapter on the newest releases (a fresh environment each time).
test-latest: $(STAMP) data book
	rm -rf .venv-latest && $(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade -r env/latest.txt
	.venv-latest/bin/python -m pip list 2>/dev/null | grep -iE '^(numpy|torch|matplotlib|pillow|ipywidgets|ipykernel|ipython|numba) '
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(READER_COPIES) \
		STANDALONE_PYTHON=$(CURDIR)/.venv-latest/bin/python \
		$(BIN)/python -m pytest $(PYTEST_FLAGS) -v -m "not triton" tests/test_colab_stack.py

# Opt-in: chapter 10 and its Triton kernels, under Triton's interpreter on the CPU
# (compiled on the GPU where there is one), in an environment of their own
# (env/triton.txt): triton is about 1 GB, so it stays out of requirements.txt. The
# kernels' tests on small shapes, the chapter's nbval run and its grading round; then
# the chapter's reader copy (`make book`'s) alone on Colab's package set (env/colab.txt)
# with env/triton.txt's triton, as Colab's torch brings it. The tests marked `triton`.
TRITON_VENV := .venv-triton
$(TRITON_VENV)/.installed: env/triton.txt
	$(call venv,$(TRITON_VENV),-r env/triton.txt)

COLAB_TRITON_VENV := .venv-colab-triton
$(COLAB_TRITON_VENV)/.installed: env/colab.txt env/triton.txt
	$(call venv,$(COLAB_TRITON_VENV),-r env/colab.txt $$(grep '^triton==' env/triton.txt))

test-triton: $(TRITON_VENV)/.installed $(COLAB_TRITON_VENV)/.installed book
	rm -rf _build/standalone-triton
	for nb in $(TRITON_CHAPTERS); do d=_build/standalone-triton/$$(basename $$nb .ipynb); \
		mkdir -p $$d; cp $$nb $$d/; done
	OMP_NUM_THREADS=1 $(TRITON_VENV)/bin/python -m pytest -p no:cacheprovider \
		--nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg \
		tests/test_triton_kernels.py _build/standalone-triton
	OMP_NUM_THREADS=1 $(TRITON_VENV)/bin/python -m pytest -p no:cacheprovider \
		-m triton tests/test_instructors.py tests/test_variants.py
	OMP_NUM_THREADS=1 STANDALONE_PYTHON=$(CURDIR)/$(COLAB_TRITON_VENV)/bin/python \
		$(READER_COPIES) $(TRITON_VENV)/bin/python -m pytest -p no:cacheprovider -v \
		-m triton tests/test_colab_stack.py

# On a machine with a GPU, in a Python with a CUDA build of torch and triton: measure
# chapter 10's kernels against PyTorch and store the results as data (GPU_NAME names
# the file; the JSON records the device, driver, versions, date and command).
GPU_NAME ?= h200
bench-gpu:
	$(PYTHON) -m measure.bench_gpu --out book/assets/measurements/gpu-$(GPU_NAME).json

# On a machine with a GPU: chapter 08's GPT (normbook/gpt.py) at larger sizes and depths,
# stored as data beside the device, versions, date and command. The stored runs were
# made on an H100: `make gpt-at-scale GPU_NAME=h100` replaces them (chapter 08 reads
# gpt-scale-h100.json and gpt-depth-h100.json).
gpt-at-scale:
	$(PYTHON) -m measure.gpt_at_scale --out book/assets/measurements/gpt-scale-$(GPU_NAME).json
	$(PYTHON) -m measure.gpt_at_scale --sizes medium-2,medium-4,medium-16 \
		--out book/assets/measurements/gpt-depth-$(GPU_NAME).json

# Chapter 13's stored sweep: five placements at 12 blocks, nine seeds in three parts of
# one CPU core each (side by side with make -j3), merged.
DEPTH_PARTS := $(foreach s,0-2 3-5 6-8,_build/depth/seeds-$(s).json)
placements-at-depth: $(DEPTH_PARTS)
	$(BIN)/python -m measure.placements_at_depth --merge $^ \
		--out book/assets/measurements/placements-at-depth.json

_build/depth/seeds-%.json: $(STAMP)
	mkdir -p _build/depth
	OMP_NUM_THREADS=1 $(BIN)/python -m measure.placements_at_depth --seeds $* --out $@

# The same sweep's rate 0.01 trained again, for the RMS of the residual stream that the
# stored sweep predates (chapter 11's growth law after training; a test checks that
# every model ends where the sweep's did).
STREAM_PARTS := $(foreach s,0-4 5-8,_build/depth/streams-$(s).json)
placements-streams: $(STREAM_PARTS)
	$(BIN)/python -m measure.placements_at_depth --merge $^ \
		--out book/assets/measurements/placements-streams.json

_build/depth/streams-%.json: $(STAMP)
	mkdir -p _build/depth
	OMP_NUM_THREADS=1 $(BIN)/python -m measure.placements_at_depth --lrs 0.01 --seeds $* \
		--out $@

# Chapters 12 and 13's stored sweeps at the chapters' size (one CPU core each): every
# arm of chapter 12 at every rate on both data budgets, and chapter 13's recipes at
# three widths. norms-at-scale runs both 10 to 100 times larger, on a GPU.
norm-sweeps: $(foreach p,budgets widths,book/assets/measurements/norm-sweeps-$(p).json)
book/assets/measurements/norm-sweeps-%.json: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m measure.norm_sweeps --size chapter --parts $* \
		--out $@
norms-at-scale:
	$(PYTHON) -m measure.norm_sweeps --size scale \
		--out book/assets/measurements/norms-at-scale-$(GPU_NAME).json

# Chapter 14's stored sweep: the four ways for a class to enter a small flow-matching
# transformer and the unconditional model. Rates are chosen on seeds 0-1 (five rates),
# then each variant at its rate on seeds 2-8, in two parts (85 runs: about 35 minutes
# of one core on a quiet machine; make -j2 runs the two parts side by side).
COND := _build/conditional
conditional-sweep: $(COND)/compared-2-5.json $(COND)/compared-6-8.json
	$(BIN)/python -m measure.conditional_sweep --merge $(COND)/rates.json $^ \
		--out book/assets/measurements/conditional-sweep.json
$(COND)/rates.json: $(STAMP) data
	mkdir -p $(COND)
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m measure.conditional_sweep \
		--out $@
$(COND)/compared-%.json: $(COND)/rates.json
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m measure.conditional_sweep \
		--best-from $< --seeds $* --out $@

# Opt-in: chapter 07 at the papers' step counts (FULL_SCALE = True), executed as a copy.
full-scale: $(STAMP) data
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m upkeep.variant full-scale

format: $(STAMP)
	$(BIN)/ruff format $(STYLED)
	$(BIN)/ruff check --fix $(STYLED)

# One thread: each chapter states its run time on one core (run-times.json, recorded here).
execute: $(STAMP)
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m upkeep.execute $(NB)

# The reader copies that `make book` writes, copied once into _build/lab/.
lab: $(STAMP) book
	$(BIN)/python -m upkeep.lab

student: $(STAMP) book
	$(BIN)/python -m grading.handouts

# Every assertion of a chapter must hold for other seeds: NB=notebooks/x.ipynb [FIRST="9001 123456"]
check-seeds: $(STAMP) data
	MNIST_DIR=$(CURDIR)/data/mnist OMP_NUM_THREADS=1 $(BIN)/python -m upkeep.variant seeds $(NB) $(FIRST)

check-submissions: $(STAMP)
	$(BIN)/python -m grading.scan $(if $(SOURCE),--source $(SOURCE)) $(RELEASED) $(SUBMITTED)

# Grade an nbgrader course's submissions, each in a sandbox of its own, the checks apart
# from the student's code (COURSE an absolute path):
# make grade COURSE=/path/to/course ASSIGNMENT=03-layernorm-backward [JOBS=2]
# UNSAFE=1 grades without the sandbox: only inside a container (Dockerfile).
# A chapter that needs triton (TRITON_CHAPTERS) is graded in its environment, .venv-triton.
JOBS ?= 1
GRADES_WITH_TRITON = $(filter $(ASSIGNMENT),$(basename $(notdir $(TRITON_CHAPTERS))))
GRADER = $(if $(GRADES_WITH_TRITON),$(TRITON_VENV),$(VENV))
grade: $(STAMP) $(if $(GRADES_WITH_TRITON),$(TRITON_VENV)/.installed) \
		$(if $(UNSAFE),,sandbox)
	OMP_NUM_THREADS=1 $(GRADER)/bin/python -m grading.grade --course $(COURSE) \
		$(ASSIGNMENT) --jobs $(JOBS) $(if $(UNSAFE),--unsafe-no-sandbox)

# Put an LMS download (a folder or zip of notebooks, however renamed) into COURSE/submitted/,
# LMS ids mapped to students by ROSTER (a CSV with the columns id and lms_id)
collect: $(STAMP)
	$(BIN)/python -m grading.collect $(COURSE) $(DOWNLOAD) $(if $(ROSTER),--roster $(ROSTER))

# A course's own exercises: one variant of each coding exercise from the bank
# (grading/bank/, or the course's folder BANK) and private hidden-test seeds, drawn from
# SEED; every chapter checked by grading (the chapters that need triton in .venv-triton).
# make variants SEED=... [BANK=...] writes _build/variants/SEED/ (not part of the site).
variants: student $(TRITON_VENV)/.installed
	@test -n "$(SEED)" || { echo "make variants SEED=<a number of your own>"; exit 2; }
	OMP_NUM_THREADS=1 MNIST_DIR=$(CURDIR)/data/mnist NORMBOOK_BANK=$(BANK) \
		$(BIN)/python -m grading.variants $(SEED) \
		$(basename $(notdir $(filter-out $(TRITON_CHAPTERS),$(wildcard notebooks/*.ipynb))))
	OMP_NUM_THREADS=1 NORMBOOK_BANK=$(BANK) $(TRITON_VENV)/bin/python -m grading.variants \
		$(SEED) $(basename $(notdir $(TRITON_CHAPTERS)))

# Gradescope's autograder zip for one chapter (ASSIGNMENT), the book's grader inside;
# SEED=...: for the course's variant (make variants SEED=... first)
gradescope: student
	$(BIN)/python -m grading.gradescope zip $(ASSIGNMENT) \
		$(if $(SEED),_build/gradescope/$(ASSIGNMENT).zip _build/variants/$(SEED)/source)

# The students' feedback (nbgrader's generate_feedback) without model answers and mark schemes
feedback: $(STAMP)
	$(BIN)/python -m grading.feedback $(COURSE) $(ASSIGNMENT)

# The grades as a CSV for the LMS: points per exercise, total, late penalty
# (PENALTY % per started day after DUE, e.g. DUE="2026-03-02 23:59 UTC")
PENALTY ?= 10
export: $(STAMP)
	$(BIN)/python -m grading.export $(COURSE) $(ASSIGNMENT) --penalty $(PENALTY) \
		$(if $(DUE),--due "$(DUE)") $(if $(ROSTER),--roster $(ROSTER))

bench: $(STAMP) data
	OMP_NUM_THREADS=1 $(BIN)/python -m upkeep.variant bench $(NB)

# Each chapter as nbgrader's autograde runs it (heavy cells shrink), one thread.
bench-autograde: $(STAMP) data
	NBGRADER_EXECUTION=autograde OMP_NUM_THREADS=1 $(BIN)/python -m upkeep.variant bench $(NB)

badges: $(STAMP)
	$(BIN)/python -m upkeep.badges

sync: $(STAMP)
	$(BIN)/python -m upkeep.sync

clean:
	rm -rf _build .pytest_cache
	find . -name __pycache__ -prune -not -path './.venv/*' -exec rm -rf {} +
	find . -name .ipynb_checkpoints -prune -not -path './.venv/*' -exec rm -rf {} +
