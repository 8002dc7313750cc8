# Two commands on a fresh machine (Python 3.11+, Node.js 20+, the package registries, no AWS account):
#   make synth [ENV=dev|staging|prod]   install what is needed, synthesize an environment into cdk.out/
#   make test                           install what is needed, run the whole test suite
# Every install step is stamped, so the second run does only the work that changed.

ENV ?= dev
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# jsii (under aws-cdk-lib) has declared Node 20 end-of-life: bring Node 22 from npm when the machine's is older.
NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
NODE_BIN := $(if $(filter-out 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21,$(NODE_MAJOR)),,$(CURDIR)/.tools/node_modules/.bin)
export PATH := $(if $(NODE_BIN),$(NODE_BIN):,)$(CURDIR)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
# Offline, quiet CDK: no notices, no telemetry, no version check, no credentials needed.
export CDK_DISABLE_CLI_TELEMETRY := true
export CDK_DISABLE_NOTICES := true
export JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION := 1
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
export AWS_EC2_METADATA_DISABLED := true

CDK := node_modules/.bin/cdk
CDK_FLAGS := --no-notices --no-version-reporting --no-asset-metadata --no-path-metadata

.PHONY: synth test install install-dev node clean diagram benchmark deploy imports
.DEFAULT_GOAL := synth

synth: install
	$(CDK) synth $(CDK_FLAGS) --quiet -c env=$(ENV)
	@$(PY) -m eks_training.infra.tools.review --env $(ENV) --out cdk.out
	@$(PY) -m eks_training.infra.tools.cli check --env $(ENV) --template cdk.out/EksTraining-$(ENV).template.json > cdk.out/check-$(ENV).txt \
		&& tail -n 1 cdk.out/check-$(ENV).txt || { cat cdk.out/check-$(ENV).txt; exit 1; }

test: install-dev
	$(PY) -m pytest -n 2 -q

# Deploy (AWS credentials for the environment's account; Docker builds the training images the stack pushes).
deploy: install
	$(CDK) deploy $(CDK_FLAGS) -c env=$(ENV)

diagram: install-dev
	$(PY) -m eks_training.infra.tools.diagram --env $(ENV) --out docs/architecture-$(ENV).png

benchmark: install-dev
	$(PY) benchmarks/synth.py

# Typed classes for the custom resources the charts emit: `cdk8s import` of the upstream CRDs into
# workloads/imports/ (committed; see its generate.py for which kinds and versions). CRDS_DIR: the CRD folder
# (the upstream mirror's, or the user cache's after `eks-training fetch-upstream crds`).
CRDS_DIR ?= $(if $(EKS_TRAINING_MIRROR),$(EKS_TRAINING_MIRROR)/crds,$(HOME)/.cache/eks-training/upstream/crds)
imports: install
	$(PY) -m eks_training.workloads.imports.generate --crds $(CRDS_DIR) --cdk8s node_modules/.bin/cdk8s

# The API reference, from the docstrings, into docs/api/ (git-ignored). constructs/ has no __init__.py (see
# DESIGN.md), so pdoc is given its modules one by one; tests/test_docs.py builds the same list.
DOC_MODULES := eks_training.core $(patsubst constructs/%.py,eks_training.constructs.%,$(wildcard constructs/*.py)) eks_training.workloads eks_training.infra
docs: install-dev
	rm -rf docs/api
	@# The pdoc script, not `python -m pdoc`: -m puts the repo root on sys.path, where constructs/ would shadow the
	@# library. PDOC_ALLOW_EXEC: pdoc blocks subprocesses during imports, and importing aws_cdk starts jsii's Node.
	PDOC_ALLOW_EXEC=1 $(VENV)/bin/pdoc --output-directory docs/api $(DOC_MODULES)
	@echo "API reference: docs/api/index.html"

install: $(VENV)/.stamp-runtime node
install-dev: $(VENV)/.stamp-dev node .tools/checkov-venv/.stamp

node: node_modules/.stamp $(if $(NODE_BIN),.tools/.stamp,)

$(VENV)/bin/python:
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip "setuptools>=75" wheel

$(VENV)/.stamp-runtime: $(VENV)/bin/python requirements.txt pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

$(VENV)/.stamp-dev: $(VENV)/.stamp-runtime requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# checkov in a venv of its own (see requirements-checkov.txt); tests/test_checkov.py runs it from there.
.tools/checkov-venv/.stamp: requirements-checkov.txt
	$(PYTHON) -m venv .tools/checkov-venv
	.tools/checkov-venv/bin/pip install --quiet --disable-pip-version-check -r requirements-checkov.txt
	touch $@

node_modules/.stamp: package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

.tools/.stamp:
	npm install --prefix .tools --no-audit --no-fund --loglevel=error --no-save node@22
	touch $@

clean:
	rm -rf cdk.out .pytest_cache build *.egg-info
