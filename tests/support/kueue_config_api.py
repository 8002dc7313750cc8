"""Kueue 0.19.2's Configuration API (``config.kueue.x-k8s.io/v1beta2``), as its manager decodes and validates it.

Kueue has no CRD for its own configuration: the manager decodes the ConfigMap strictly (``pkg/config/config.go``
builds its codec with ``serializer.EnableStrict``, so an unknown or misspelt field stops the manager) into the Go
types of ``apis/config/v1beta2/configuration_types.go``, then runs ``pkg/config/validation.go``. This module states
those facts for the fields we set, read at tag v0.19.2 of kubernetes-sigs/kueue:

* the json names of ``Configuration`` (with ``ControllerManager`` inlined), ``WaitForPodsReady`` and
  ``RequeuingStrategy``;
* the field types: ``metav1.Duration`` (Go's ``time.ParseDuration``), ``*bool``, ``*int32``;
* ``validateWaitForPodsReady``: timeout required and not negative, recoveryTimeout not negative, timestamp one of
  Creation/Eviction, backoffLimitCount/backoffBaseSeconds/backoffMaxSeconds not negative.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

API_VERSION = "config.kueue.x-k8s.io/v1beta2"

#: ``Configuration``'s fields (TypeMeta and ControllerManager are inlined).
CONFIGURATION_FIELDS = frozenset({
    "apiVersion", "kind", "namespace", "manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
    "internalCertManagement", "waitForPodsReady", "clientConnection", "integrations", "multiKueue", "fairSharing",
    "admissionFairSharing", "resources", "featureGates", "objectRetentionPolicies", "visibilityServer",
    # ControllerManager
    "webhook", "leaderElection", "metrics", "health", "pprofBindAddress", "controller", "tls",
})
WAIT_FOR_PODS_READY_FIELDS = frozenset({"timeout", "blockAdmission", "requeuingStrategy", "recoveryTimeout"})
REQUEUING_STRATEGY_FIELDS = frozenset({"timestamp", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"})
REQUEUING_TIMESTAMPS = ("Creation", "Eviction")

_INT32 = (-(2**31), 2**31 - 1)
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: Any) -> float:
    """Seconds of a Go duration string (``time.ParseDuration``: "15m", "1h30m", "-5s", "0"); ValueError if not one."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"{text!r} is not a duration string")
    sign, rest = (-1.0, text[1:]) if text[0] == "-" else (1.0, text.lstrip("+"))
    if rest == "0":
        return 0.0
    position, total = 0, 0.0
    while position < len(rest):
        part = _DURATION_PART.match(rest, position)
        if part is None:
            raise ValueError(f"time: invalid duration {text!r}")
        total += float(part.group(1)) * _UNIT_SECONDS[part.group(2)]
        position = part.end()
    if position == 0:
        raise ValueError(f"time: invalid duration {text!r}")
    return sign * total


def _int32(where: str, value: Any, errors: list[str]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not _INT32[0] <= value <= _INT32[1]:
        errors.append(f"{where}: {value!r} is not an int32")
        return None
    return value


def _unknown(where: str, given: Mapping, known: frozenset, errors: list[str]) -> None:
    errors.extend(f'{where}: unknown field "{key}"' for key in sorted(set(given) - known))


def configuration_errors(document: Any) -> list[str]:
    """What Kueue's manager would refuse in ``document`` (a decoded ``controller_manager_config.yaml``); [] if none."""
    if not isinstance(document, Mapping):
        return [f"the configuration is {type(document).__name__}, not an object"]
    errors: list[str] = []
    if document.get("apiVersion") != API_VERSION or document.get("kind") != "Configuration":
        errors.append(f"apiVersion/kind {document.get('apiVersion')}/{document.get('kind')}: not "
                      f"{API_VERSION}/Configuration")
    _unknown("Configuration", document, CONFIGURATION_FIELDS, errors)
    wait = document.get("waitForPodsReady")
    if wait is None:
        return errors
    if not isinstance(wait, Mapping):
        return [*errors, f"waitForPodsReady: {wait!r} is not an object"]
    _unknown("waitForPodsReady", wait, WAIT_FOR_PODS_READY_FIELDS, errors)
    durations = {}
    for name in ("timeout", "recoveryTimeout"):
        if name in wait:
            try:
                durations[name] = parse_go_duration(wait[name])
            except ValueError as error:
                errors.append(f"waitForPodsReady.{name}: {error}")
    if "timeout" not in wait or durations.get("timeout") == 0:
        errors.append("waitForPodsReady.timeout: Required value: must be specified")
    for name in ("timeout", "recoveryTimeout"):
        if durations.get(name, 0) < 0:
            errors.append(f"waitForPodsReady.{name}: Invalid value: must be greater than or equal to 0")
    if "blockAdmission" in wait and not isinstance(wait["blockAdmission"], bool):
        errors.append(f"waitForPodsReady.blockAdmission: {wait['blockAdmission']!r} is not a bool")
    strategy = wait.get("requeuingStrategy")
    if strategy is None:
        return errors
    if not isinstance(strategy, Mapping):
        return [*errors, f"waitForPodsReady.requeuingStrategy: {strategy!r} is not an object"]
    where = "waitForPodsReady.requeuingStrategy"
    _unknown(where, strategy, REQUEUING_STRATEGY_FIELDS, errors)
    if "timestamp" in strategy and strategy["timestamp"] not in REQUEUING_TIMESTAMPS:
        errors.append(f"{where}.timestamp: Unsupported value: {strategy['timestamp']!r}: supported values: "
                      + ", ".join(f'"{t}"' for t in REQUEUING_TIMESTAMPS))
    for name in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        if strategy.get(name) is None:
            continue  # null: the default (no limit for backoffLimitCount)
        value = _int32(f"{where}.{name}", strategy[name], errors)
        if value is not None and value < 0:
            errors.append(f"{where}.{name}: Invalid value: {value}: must be greater than or equal to 0")
    return errors
