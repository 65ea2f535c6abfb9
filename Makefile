# 集群训练工程教学套件 — build and test entry points. Only Python ≥ 3.11 and make are needed:
# every target bootstraps the local virtual environment .venv from the pinned lock file first.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg
export SOURCE_DATE_EPOCH := 1700000000
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: help venv book pdf test lint typecheck unit nbval nbval-simd exercises-check site-check browser-check site-tests browser-tests lab-tests outputs exercises bench lock clean

help:
	@echo "make book       构建本书 HTML → book/_build/html/index.html"
	@echo "make pdf        构建全书 PDF → book/_build/html/clusterlab-book.pdf（先建书；系统 Chromium，离线）"
	@echo "make test       运行全部测试（lint、类型、单元与性质测试、nbval、建书、模拟集群实测、习题流水线、站点检查与浏览器测试）"
	@echo "make outputs    重新执行笔记本，刷新存储的输出"
	@echo "make exercises  生成学生版习题与评分包 → exercises/_build/，学生版复制到 book/_exercises/（随书发布）"
	@echo "make bench      基准：环形模拟器 vs np.sum；全班 40 份习题的批改速度（-j 2）；5D 规划器；MPI 实验的留出误差；模拟集群一次扫描的用时"

venv: $(STAMP)
$(STAMP): requirements/lock.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 > /dev/null
	@touch $(STAMP)

book: $(STAMP)
	$(PY) tools/vendor_assets.py book/_extra/_static/vendor
	$(PY) tools/glossary.py book/_build/glossary.dict
	rm -rf book/_build/.doctrees book/_build/html
	$(VENV)/bin/jupyter-book build book --warningiserror --nitpick --keep-going
	@echo "→ book/_build/html/index.html"

# The PDF edition: the built site printed page by page by the system Chromium (Playwright), merged with bookmarks
# and page numbers; every page's download menu then links it (tools/pdf.py)
pdf: book
	$(PY) tools/pdf.py book/_build/html

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests tools
typecheck: $(STAMP)
	$(VENV)/bin/mypy --strict src
unit: $(STAMP)
	$(PY) -m pytest -q tests/unit tests/book -n 2
NBVAL := $(PY) -m pytest -q --nbval --nbval-current-env --nbval-cell-timeout=300 \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg -n 2 --dist loadscope -p tests.nbval_plugin book exercises/source
# numpy's SIMD levels above the x86-64 baseline; with them disabled numpy runs its baseline code (SSE4.2, no AVX/FMA)
NPY_BASELINE := X86_V3 X86_V4 AVX512_ICL AVX512_SPR
nbval: $(STAMP)
	$(NBVAL)
# every stored output again, with numpy's run-time dispatch limited to the baseline: the numbers must not depend on
# the CPU's SIMD level (x86-64 only; OPENBLAS_CORETYPE is never set here, some machines set it on purpose)
nbval-simd: $(STAMP)
	@if [ "$$(uname -m)" = x86_64 ]; then \
	  echo "nbval-simd: NPY_DISABLE_CPU_FEATURES=\"$(NPY_BASELINE)\""; \
	  NPY_DISABLE_CPU_FEATURES="$(NPY_BASELINE)" $(NBVAL); \
	else echo "nbval-simd: skipped, numpy's baseline levels are defined for x86-64 only"; fi
exercises-check: $(STAMP)
	$(PY) -m pytest -q -rs -n 2 --dist loadfile tests/pipeline tests/grading
site-check: book site-tests
browser-check: book browser-tests
site-tests: $(STAMP)
	$(PY) -m pytest -q tests/site
# the built site in headless Chromium (skipped, with one line saying why, when Chromium is not installed)
browser-tests: $(STAMP)
	$(PY) -m pytest -q -rs -p no:xdist tests/browser

# The exercise pipeline (CPU) and the browser (mostly waiting on Chromium) run side by side once the book is built.
# the emulated cluster for real (network namespaces, shaped links, MPICH over TCP; about a minute): run alone, since
# its timings are measurements; skipped with one line where neither root nor user namespaces are available
lab-tests: $(STAMP)
	$(PY) -m pytest -q -rs -p no:xdist tests/lab

test: lint typecheck unit nbval book lab-tests
	$(MAKE) --no-print-directory -j 2 --output-sync=target nbval-simd exercises-check site-tests browser-tests
	@echo "全部测试通过 / all checks passed"

outputs: $(STAMP)
	$(PY) tools/refresh_notebooks.py book exercises/source
	$(PY) tools/site_exercises.py exercises/source exercises/_build book/_exercises

exercises: $(STAMP)
	$(PY) tools/site_exercises.py exercises/source exercises/_build book/_exercises

bench: $(STAMP)
	$(PY) -m pytest -q -s benchmarks -p no:xdist

lock:
	$(PY) -m pip freeze --exclude-editable | grep -v '^clusterlab' > requirements/lock.txt

clean:
	rm -rf book/_build exercises/_build book/_extra/_static/vendor
