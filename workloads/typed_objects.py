"""Custom resources as the typed classes `cdk8s import` generated (:mod:`eks_training.workloads.imports`).

The builders return plain camelCase dicts (the fast CLI prints them without starting jsii); a chart turns each into an
instance of the generated class with :func:`emit_typed`. :func:`to_typed` walks the dict and the generated type hints
together: a dict becomes the struct its field is typed with (keys matched to the struct's fields, snake_case on the
Python side), a map (labels, nodeSelector, resources) keeps its keys, an enum field takes the member with that value,
an int-or-string field its ``from_number``/``from_string`` wrapper. A key the CRD does not define, or a value of the
wrong type, fails here with the one-line error instead of being dropped by the generated class's serializer.
"""

from __future__ import annotations

import collections.abc
import enum
import functools
import importlib
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import cdk8s
import constructs

from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import construct_id, emit

T = TypeVar("T", bound=cdk8s.ApiObject)
IMPORTS_PACKAGE = "eks_training.workloads.imports"
#: The generated class of every custom resource the charts write: (apiVersion, kind) -> (package under
#: :data:`IMPORTS_PACKAGE`, class). The packages are imported on first use: each loads a jsii assembly (KubeRay's
#: takes seconds), so a chart pays only for the kinds it writes.
GENERATED_CLASSES: dict[tuple[str, str], tuple[str, str]] = {
    ("batch.volcano.sh/v1alpha1", "Job"): ("sh.volcano.batch", "Job"),
    ("scheduling.volcano.sh/v1beta1", "Queue"): ("sh.volcano.scheduling", "Queue"),
    ("ray.io/v1", "RayCluster"): ("io.ray", "RayCluster"),
    ("ray.io/v1", "RayJob"): ("io.ray", "RayJob"),
    ("kubeflow.org/v2beta1", "MPIJob"): ("org.kubeflow", "MpiJob"),
    **{("slinky.slurm.net/v1beta1", kind): ("net.slurm.slinky", kind)
       for kind in ("Controller", "NodeSet", "LoginSet", "RestApi", "Accounting")},
    ("karpenter.sh/v1", "NodePool"): ("sh.karpenter", "NodePool"),
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): ("aws.k8s.karpenter", "Ec2NodeClass"),
    **{("kueue.x-k8s.io/v1beta2", kind): ("io.x_k8s.kueue", kind)
       for kind in ("ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort", "Topology", "WorkloadPriorityClass")},
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): ("org.kubeflow.trainer", "TrainJob"),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"): ("org.kubeflow.trainer", "ClusterTrainingRuntime"),
}
#: API groups with generated classes: an object of such a group whose kind has none is refused, not left untyped.
TYPED_GROUPS = frozenset(api_version.split("/")[0] for api_version, _ in GENERATED_CLASSES)
_NOT_ALPHANUMERIC = re.compile(r"[^a-z0-9]")


def _normalized(name: str) -> str:
    """A field name with case and separators dropped: `runtimeEnvYAML`, `runtimeEnvYaml`, `runtime_env_yaml` agree."""
    return _NOT_ALPHANUMERIC.sub("", name.lower())


def _is_struct(hint: object) -> bool:
    """Whether `hint` is a jsii data type (a struct that takes keyword arguments)."""
    return isinstance(hint, type) and hasattr(hint, "__jsii_name_mapping__")


@functools.cache
def _fields(struct: type) -> tuple[dict[str, str], dict[str, Any]]:
    """A struct's Python argument names by normalized name, and their resolved type hints."""
    hints = typing.get_type_hints(struct.__init__)
    hints.pop("return", None)
    names: dict[str, str] = {}
    for python_name, jsii_name in struct.__jsii_name_mapping__.items():
        for key in {_normalized(python_name), _normalized(jsii_name)}:
            if names.setdefault(key, python_name) != python_name:
                raise TypeError(f"{struct.__name__}: fields {names[key]} and {python_name} both read as {key!r}")
    return names, hints


def _struct_kwargs(struct: type, value: object, field: str) -> dict[str, Any]:
    """The keyword arguments of `struct` for the dict `value`, each converted to its field's type."""
    if not isinstance(value, Mapping):
        raise invalid(field, value, f"use a mapping ({struct.__name__})")
    names, hints = _fields(struct)
    kwargs: dict[str, Any] = {}
    for key, item in value.items():
        python_name = names.get(_normalized(key)) if isinstance(key, str) else None
        if python_name is None:
            raise invalid(f"{field}.{key}", item, f"{struct.__name__} has no such field; it has "
                          f"{', '.join(sorted(struct.__jsii_name_mapping__.values()))}")
        if item is not None:
            kwargs[python_name] = to_typed(hints[python_name], item, f"{field}.{key}")
    return kwargs


@functools.cache
def _enum_members(enum_class: type[enum.Enum]) -> dict[Any, enum.Enum]:
    """A generated enum's members by the value they serialize to ("OpenMPI" -> OPEN_MPI, "*" -> VALUE_ASTERISK).

    The Python members carry only their names; the values live in the generated JavaScript, so jsii's runtime
    is asked once per enum: a JSON patch of the members, applied to an empty document, comes back as the values.
    """
    members = list(enum_class)
    values = cdk8s.JsonPatch.apply({}, cdk8s.JsonPatch.add("/members", members))["members"]
    return dict(zip(values, members))


def _wraps_int_or_string(hint: object) -> bool:
    """The class cdk8s import makes for an int-or-string (or quantity) field: `from_number` and `from_string`."""
    return isinstance(hint, type) and hasattr(hint, "from_number") and hasattr(hint, "from_string")


def to_typed(hint: Any, value: Any, field: str) -> Any:
    """`value` (a plain JSON-like value) as what the generated type `hint` expects; `field` names it in errors."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if set(options) == {int, float}:  # jsii.Number
            return to_typed(float, value, field)
        structs = [arg for arg in options if _is_struct(arg)]
        if structs and isinstance(value, Mapping):  # Union[Struct, Dict[str, Any]]: the struct
            return to_typed(structs[0], value, field)
        errors = []
        for option in options:
            try:
                return to_typed(option, value, field)
            except ValueError as error:
                errors.append(error)
        raise errors[0] if len(errors) == 1 else invalid(field, value, f"use one of {', '.join(map(_name, options))}")
    if hint is Any:
        return value
    if _is_struct(hint):
        return hint(**_struct_kwargs(hint, value, field))
    if origin in (collections.abc.Mapping, dict):
        if not isinstance(value, Mapping):
            raise invalid(field, value, f"use a mapping ({_name(hint)})")
        _, item_hint = typing.get_args(hint)
        return {key: to_typed(item_hint, item, f"{field}[{key!r}]") for key, item in value.items()}
    if origin in (collections.abc.Sequence, list):
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, collections.abc.Sequence):
            raise invalid(field, value, f"use a list ({_name(hint)})")
        (item_hint,) = typing.get_args(hint)
        return [to_typed(item_hint, item, f"{field}[{index}]") for index, item in enumerate(value)]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = _enum_members(hint)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value in members:
            return members[value]
        raise invalid(field, value, f"use one of {', '.join(map(str, members))}")
    if _wraps_int_or_string(hint):
        if isinstance(value, str):
            return hint.from_string(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return hint.from_number(value)
        raise invalid(field, value, "use a number or a string")
    if hint is bool:
        if not isinstance(value, bool):
            raise invalid(field, value, "use true or false")
        return value
    if hint in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise invalid(field, value, "use a number")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise invalid(field, value, "use a string")
        return value
    raise TypeError(f"{field}: no conversion to {_name(hint)}")


def _name(hint: object) -> str:
    return getattr(hint, "__name__", None) or str(hint)


def generated_class(api_version: str, kind: str) -> type[cdk8s.ApiObject] | None:
    """The generated class for objects of `api_version` and `kind`, or None for a kind of a group we do not import
    (the core API, for one). A kind of an imported group without a class is an error: add it to `make imports`."""
    entry = GENERATED_CLASSES.get((api_version, kind))
    if entry is None:
        if "/" in api_version and api_version.split("/")[0] in TYPED_GROUPS:
            raise invalid(f"{kind} apiVersion", api_version, "use a version and kind with a generated class: "
                          + ", ".join(f"{v} {k}" for v, k in GENERATED_CLASSES))
        return None
    module, name = entry
    return getattr(importlib.import_module(f"{IMPORTS_PACKAGE}.{module}"), name)


def emit_object(chart: constructs.Construct, obj: Mapping[str, Any]) -> cdk8s.ApiObject:
    """Add `obj` to `chart`: a custom resource as its generated class (:func:`emit_typed`), anything else as
    :func:`eks_training.workloads.k8s_objects.emit` does."""
    api_class = generated_class(obj["apiVersion"], obj["kind"])
    return emit(chart, obj) if api_class is None else emit_typed(chart, api_class, obj)


def emit_typed(chart: constructs.Construct, api_class: type[T], obj: Mapping[str, Any]) -> T:
    """Add the object dict `obj` to `chart` as an instance of the generated class `api_class`, with the construct
    id :func:`eks_training.workloads.k8s_objects.emit` would give it. `obj`'s apiVersion and kind must be the class's."""
    metadata = obj.get("metadata") or {}
    where = f"{obj.get('kind')} {metadata.get('name')!r}"
    gvk = api_class.GVK
    for key, expected in (("apiVersion", gvk.api_version), ("kind", gvk.kind)):
        if obj.get(key) != expected:
            raise invalid(f"{where} {key}", obj.get(key), f"{api_class.__name__} is {expected}")
    hints = {name: hint for name, hint in typing.get_type_hints(api_class.__init__).items()
             if name not in ("scope", "id", "return")}
    names = {_normalized(name): name for name in hints}
    kwargs = {}
    for key, value in obj.items():
        if key in ("apiVersion", "kind"):
            continue
        python_name = names.get(_normalized(key))
        if python_name is None:
            raise invalid(f"{where} {key}", value, f"{api_class.__name__} takes {', '.join(sorted(hints))}")
        kwargs[python_name] = to_typed(hints[python_name], value, f"{where} {key}")
    return api_class(chart, construct_id(obj), **kwargs)
