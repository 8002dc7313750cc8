# Two commands on a fresh machine (Python 3.11+, Node.js 20+, the package registries, no AWS account):
#   make synth [ENV=dev|staging|prod]   install what is needed, synthesize an environment into cdk.out/
#              [CONFIG=path/to/mine.yaml]  (or an environment file of your own, anywhere)
#   make test                           install what is needed, run the whole test suite
# Every install step is stamped, so the second run does only the work that changed.

ENV ?= dev
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# One Node everywhere: package.json pins Node 22 itself (jsii, under aws-cdk-lib, has declared Node 20 end-of-life),
# so node_modules/.bin/node runs the CDK CLI here and under `npx cdk`, and the venv's jsii is pointed at it (below).
export PATH := $(CURDIR)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
# Offline, quiet CDK: no notices, no telemetry, no version check, no credentials needed.
export CDK_DISABLE_CLI_TELEMETRY := true
export CDK_DISABLE_NOTICES := true
export AWS_EC2_METADATA_DISABLED := true

CDK := node_modules/.bin/cdk
CDK_FLAGS := --no-notices --no-version-reporting --no-asset-metadata --no-path-metadata

.PHONY: synth test install install-dev node clean diagram benchmark deploy change review-diff imports
.DEFAULT_GOAL := synth

# The environment by name (ENV=prod) or an environment file of your own (CONFIG=path/to/team.yaml, named after it).
CONFIG ?=
NAME = $(if $(CONFIG),$(basename $(notdir $(CONFIG))),$(ENV))
STACK = EksTraining-$(NAME)
CDK_ENV = $(if $(CONFIG),-c config=$(CONFIG),-c env=$(ENV))
CHECK_ENV = $(if $(CONFIG),--config $(CONFIG),--env $(ENV))

synth: install
	$(CDK) synth $(CDK_FLAGS) --quiet $(CDK_ENV)
	@$(PY) -m eks_training.infra.tools.review $(CHECK_ENV) --out cdk.out
	@# The deploy check: the whole table in cdk.out/check-NAME.txt; here what it could not check, and its verdict.
	@$(PY) -m eks_training.infra.tools.cli check $(CHECK_ENV) --template cdk.out/$(STACK).template.json > cdk.out/check-$(NAME).txt \
		&& { sed -n '/^Not checked:/,/^$$/p' cdk.out/check-$(NAME).txt; tail -n 1 cdk.out/check-$(NAME).txt; } \
		|| { cat cdk.out/check-$(NAME).txt; exit 1; }

# worksteal: a worker that runs out of tests takes some of the other's, so the long ones do not end the run alone.
# First the pinned upstream artifacts the tests read, where this machine reaches upstream (nothing to do with a mirror,
# one line when offline: then the tests that need one skip, each naming the command that fetches it).
test: install-dev
	@$(PY) -m eks_training.infra.tools.cli fetch-upstream --if-reachable
	$(PY) -m pytest -n 2 --dist worksteal -q

# Acknowledged changes of the change stage: ACK="replace:X prune:Namespace/y" and/or ACK_FILE=path (one ID a line).
ACK ?=
ACK_FILE ?=
ACK_FLAGS = $(foreach id,$(ACK),--acknowledge $(id)) $(if $(ACK_FILE),--acknowledgements $(ACK_FILE))

# Deploy (AWS credentials for the environment's account; Docker builds the training images the stack pushes): synth,
# the deploy check with the change stage against the stack CloudFormation runs now (none yet: a first deploy), then
# `cdk deploy` of exactly that cloud assembly. A destructive change stops it until acknowledged (ACK, ACK_FILE).
deploy: install
	@# Every chart from its digest-checked package: fetched and verified first, then shipped as an asset (a chart
	@# whose upstream publishes no digest needs `eks-training fetch-upstream --trust-on-first-use NAME` once).
	$(PY) -m eks_training.infra.tools.cli fetch-upstream charts
	$(CDK) synth $(CDK_FLAGS) --quiet $(CDK_ENV) -c eks-training:ship-verified-charts=true
	$(PY) -m eks_training.infra.tools.cli check $(CHECK_ENV) --template cdk.out/$(STACK).template.json --previous-stack $(STACK) $(ACK_FLAGS)
	$(CDK) deploy $(CDK_FLAGS) --app cdk.out $(STACK)

# The change stage offline, for review in a pull request: what deploying the environment does to the stack whose
# template you kept (PREVIOUS: a *.template.json or a cloud assembly folder). TEMPLATE: check that synthesized
# template (e.g. cdk.out/EksTraining-prod.template.json) instead of synthesizing in-process.
PREVIOUS ?=
TEMPLATE ?=
change: install
	@test -n "$(PREVIOUS)" || { echo "make change: PREVIOUS=path/to/deployed.template.json is required (the template deployed now)" >&2; exit 2; }
	$(PY) -m eks_training.infra.tools.cli check $(CHECK_ENV) $(if $(TEMPLATE),--template $(TEMPLATE)) --previous $(PREVIOUS) $(ACK_FLAGS)

# What changes in the cluster between two review folders (cdk.out/manifests/ENV of two synths), object by object:
# keep a copy of the one deployed (OLD), synthesize the change, compare (NEW, default: this synth's).
OLD ?=
NEW ?= cdk.out/manifests/$(NAME)
review-diff: install
	@test -n "$(OLD)" || { echo "make review-diff: OLD=path/to/review-folder is required (a copy of cdk.out/manifests/$(NAME) before the change)" >&2; exit 2; }
	$(PY) -m eks_training.infra.tools.cli review-diff $(OLD) $(NEW)

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

install: node $(VENV)/.stamp-runtime $(VENV)/.stamp-node $(VENV)/.stamp-bytecode
install-dev: install $(VENV)/.stamp-dev .tools/checkov-venv/.stamp

node: node_modules/.stamp

$(VENV)/bin/python:
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip "setuptools>=75" wheel

$(VENV)/.stamp-runtime: $(VENV)/bin/python requirements.txt pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

# Every Python of the venv (eks-training, app.py, the examples, pytest) runs jsii on the project's Node 22: the node
# of node_modules/ beside the venv (found from the venv's own prefix, so the file names no absolute path).
$(VENV)/.stamp-node: $(VENV)/.stamp-runtime Makefile
	@echo 'import os, sys; node = os.path.join(os.path.dirname(sys.prefix), "node_modules", ".bin", "node"); os.path.exists(node) and os.environ.setdefault("JSII_NODE", node)' \
		> "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/eks_training_node.pth"
	touch $@

# The editable source gets its bytecode at install: where Python writes none (PYTHONDONTWRITEBYTECODE, as in CI),
# every synth would otherwise compile the 13.6 MB of generated classes again (about 2 s).
$(VENV)/.stamp-bytecode: $(VENV)/.stamp-runtime workloads/imports/sources.json
	$(PY) -m compileall -q -j 0 core constructs workloads infra training
	touch $@

# requirements-dev.txt adds PyTorch's CPU index: one retry per index lookup, so that a machine that reaches only some
# indexes (a mirror, no download.pytorch.org) asks each package once instead of backing off five times.
$(VENV)/.stamp-dev: $(VENV)/.stamp-runtime requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --retries 1 -r requirements-dev.txt
	touch $@

# checkov in a venv of its own (see requirements-checkov.txt); tests/test_checkov.py runs it from there.
.tools/checkov-venv/.stamp: requirements-checkov.txt
	$(PYTHON) -m venv .tools/checkov-venv
	.tools/checkov-venv/bin/pip install --quiet --disable-pip-version-check -r requirements-checkov.txt
	touch $@

node_modules/.stamp: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf cdk.out .pytest_cache build *.egg-info
