"""Input checks shared by the job builders and the platform's cdk8s charts, and object emission for the charts.

Every user-facing value goes through one of the `check_*` helpers so a mistake surfaces as a one-line
ValueError naming the field, the bad value and what is allowed, instead of a manifest the API server rejects
(or silently prunes) at deploy time.
"""

from __future__ import annotations

import re
from decimal import Decimal
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from eks_training.core.validation import check_dns_label, invalid, is_token

if TYPE_CHECKING:
    import cdk8s
    import constructs

# RFC 1123 subdomain (names of cluster-scoped kinds, label prefixes); labels are core.validation's DNS_LABEL.
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
# A Kubernetes resource.Quantity: "4", "500m", "16Gi", "1.5", "1e3".
_QUANTITY = re.compile(r"^(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[mkMGTPE]|[eE][+-]?\d+)?$")


# Every check below raises core.validation's one line, "field=value is not allowed: what is allowed", and lets a
# CDK token through (a value known only at deploy time). check_dns_label is core.validation's own, re-exported.


def _check_name(field: str, value: object, pattern: re.Pattern[str], max_length: int, allowed: str) -> str:
    if is_token(value):
        return value  # type: ignore[return-value]
    if not isinstance(value, str) or len(value) > max_length or not pattern.match(value):
        raise invalid(field, value, f"use {allowed}")
    return value


def check_dns_subdomain(field: str, value: object) -> str:
    """A name that must be an RFC 1123 subdomain (at most 253 characters, dot-separated labels)."""
    return _check_name(field, value, _DNS_SUBDOMAIN, 253, "lowercase letters, digits, '-' and '.' (at most 253), "
                       "starting and ending with a letter or digit")


def check_label_key(field: str, key: object) -> str:
    """A label or taint key: `[prefix/]name`, prefix a DNS subdomain, name at most 63 characters."""
    if is_token(key):
        return key  # type: ignore[return-value]
    prefix, slash, name = key.rpartition("/") if isinstance(key, str) else ("", "", "")
    valid_prefix = (not slash) or (len(prefix) <= 253 and _DNS_SUBDOMAIN.match(prefix) is not None)
    if not (isinstance(key, str) and valid_prefix and len(name) <= 63 and _LABEL_NAME.match(name)):
        raise invalid(f"{field} key", key, "use a label key [dns-prefix/]name, name 1-63 letters, digits, '-', '_' or '.'")
    return key


def check_label_value(field: str, value: object) -> str:
    """A label value: at most 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric (or empty)."""
    return _check_name(field, value, _LABEL_VALUE, 63, "a label value: at most 63 letters, digits, '-', '_' or '.', "
                       "starting and ending with a letter or digit")


def check_labels(field: str, labels: Mapping[str, str]) -> dict[str, str]:
    """A whole label map, every key and value checked; returned as a plain dict."""
    if not isinstance(labels, Mapping):
        raise invalid(field, labels, "use a mapping of label keys to string values")
    for key, value in labels.items():
        check_label_key(field, key)
        check_label_value(f"{field}[{key!r}]", value)
    return dict(labels)


def check_quantity(field: str, value: object) -> str:
    """A non-negative Kubernetes quantity ("8", "500m", "64Gi"); integers are accepted and turned into strings."""
    if is_token(value):
        return value  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not _QUANTITY.match(str(value)):
        raise invalid(field, value, "use a non-negative Kubernetes quantity, e.g. 8, '500m' or '64Gi'")
    return str(value)


def check_int(field: str, value: object, *, minimum: int, maximum: int | None = None) -> int:
    """An integer within [minimum, maximum]."""
    if is_token(value):
        return value  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum is not None and value > maximum):
        allowed = f"an integer >= {minimum}" if maximum is None else f"an integer from {minimum} to {maximum}"
        raise invalid(field, value, f"use {allowed}")
    return value


def check_choice(field: str, value: object, allowed: tuple[str, ...]) -> str:
    """One of a fixed set of strings."""
    if value not in allowed:
        raise invalid(field, value, f"use one of {', '.join(allowed)}")
    return value  # type: ignore[return-value]


def check_unique(field: str, values: list[str]) -> None:
    """No value twice (names of objects of one kind, list entries that must be distinct)."""
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise invalid(field, value, "each must be unique (it is given twice)")
        seen.add(value)


def construct_id(obj: Mapping[str, Any]) -> str:
    """The id of an object's construct in its chart: ``<kind>:<namespace>:<name>`` (':' is in no Kubernetes name,
    so the id is unique per kind, namespace and name)."""
    metadata = obj["metadata"]
    return ":".join(part for part in (obj["kind"], metadata.get("namespace"), metadata["name"]) if part)


def emit(chart: constructs.Construct, obj: Mapping[str, Any]) -> cdk8s.ApiObject:
    """Add a complete object dict to a chart as a cdk8s ApiObject (construct id `<kind>:<namespace>:<name>`)."""
    # Imported here, not at the top: the job builders use this module's checks, and `eks-training render` must not
    # pay for cdk8s (it starts jsii's Node runtime) when it only prints dicts.
    import cdk8s

    metadata = obj["metadata"]
    api_object = cdk8s.ApiObject(chart, construct_id(obj), api_version=obj["apiVersion"], kind=obj["kind"],
                                 metadata=metadata)
    # ApiObject only takes apiVersion/kind/metadata; the body (spec, rules, subjects, ...) goes in as JSON patches.
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata"):
            api_object.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
    return api_object


_SUFFIX_FACTORS = {
    "": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}


def quantity_value(field: str, value: object) -> Decimal:
    """The numeric value of a quantity ("64Gi" -> 68719476736), to compare quantities given in different units."""
    text = check_quantity(field, value)
    number = re.match(r"^(\d+(\.\d*)?|\.\d+)", text).group(0)  # type: ignore[union-attr]
    suffix = text[len(number):]
    if suffix[:1] in ("e", "E"):
        return Decimal(text)
    return Decimal(number) * _SUFFIX_FACTORS[suffix]
