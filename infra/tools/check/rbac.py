"""Kubernetes RBAC, evaluated offline: would the API server's RBAC authorizer allow this request for this identity?

Written to the semantics the Kubernetes documentation gives ("Using RBAC Authorization") and its authorizer
implements, nothing looser:

* a request is a verb on a resource (API group, resource, optional subresource, namespace, object name) or on a
  non-resource URL; it is allowed when some rule of some role bound to the identity matches it, never otherwise
  (RBAC has no deny rule);
* a ClusterRoleBinding grants its role's rules in every namespace and on cluster-scoped resources and URLs; a
  RoleBinding grants its Role's (or the referenced ClusterRole's) resource rules in its own namespace only;
* a subject matches as a User by name, a Group by membership (an authenticated identity is always in
  ``system:authenticated``), a ServiceAccount as the user ``system:serviceaccount:<namespace>:<name>``;
* a rule matches when its verbs hold the verb or ``*``, its apiGroups the group or ``*``, its resources the resource,
  ``resource/subresource``, ``*`` or ``*/subresource``, and its resourceNames are empty or hold the name (a
  ``create`` has no name yet, so a rule with resourceNames never allows it); a non-resource rule matches a URL
  exactly, or by prefix where it ends in ``*``;
* an aggregated ClusterRole (``aggregationRule``) holds the rules of every ClusterRole its selectors match.

The objects are the cluster's as the app creates them (its manifests, its rendered charts) plus Kubernetes' default
bindings for authenticated users (:data:`AUTHENTICATED_DEFAULTS`). EKS access policies are a second authorizer in front
of RBAC (:mod:`.access`); :class:`Authorizer` takes their rules as extra grants of an identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

AUTHENTICATED = "system:authenticated"
RBAC_GROUP = "rbac.authorization.k8s.io"

#: The default ClusterRoles Kubernetes binds to every authenticated identity (its RBAC documentation, "Default roles
#: and role bindings": system:basic-user, system:discovery, system:public-info-viewer; the rules as the API server's
#: bootstrap policy writes them). None of them reaches a namespaced object.
AUTHENTICATED_DEFAULTS: tuple[dict[str, Any], ...] = (
    {"kind": "ClusterRole", "metadata": {"name": "system:basic-user"}, "rules": [
        {"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
         "verbs": ["create"]},
        {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]}]},
    {"kind": "ClusterRole", "metadata": {"name": "system:discovery"}, "rules": [
        {"nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                             "/readyz", "/version", "/version/"], "verbs": ["get"]}]},
    {"kind": "ClusterRole", "metadata": {"name": "system:public-info-viewer"}, "rules": [
        {"nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": ["get"]}]},
    *({"kind": "ClusterRoleBinding", "metadata": {"name": name},
       "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": name},
       "subjects": [{"apiGroup": RBAC_GROUP, "kind": "Group", "name": AUTHENTICATED}]}
      for name in ("system:basic-user", "system:discovery", "system:public-info-viewer")),
)


@dataclass(frozen=True)
class Identity:
    """Who asks: the user name and the groups the authenticator gave (``system:authenticated`` is added)."""

    user: str
    groups: tuple[str, ...] = ()

    @property
    def all_groups(self) -> frozenset[str]:
        return frozenset((*self.groups, AUTHENTICATED))


@dataclass(frozen=True)
class Request:
    """A verb on a resource (``resource`` with an optional ``subresource``, in ``namespace``; ``name`` of the object,
    "" for create/list) or, with ``path``, on a non-resource URL."""

    verb: str
    resource: str = ""
    group: str = ""
    namespace: str | None = None
    name: str = ""
    subresource: str = ""
    path: str | None = None

    def __str__(self) -> str:
        if self.path is not None:
            return f"{self.verb} {self.path}"
        what = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        what = f"{what}.{self.group}" if self.group else what
        where = f" in {self.namespace}" if self.namespace else " (cluster scope)"
        return f"{self.verb} {what}{' ' + self.name if self.name else ''}{where}"


def resource_request(verb: str, resource: str, *, namespace: str | None, group: str = "", name: str = "") -> Request:
    """A request on ``resource`` written as RBAC names it (``pods/exec``: the exec subresource of pods)."""
    base, _, sub = resource.partition("/")
    return Request(verb, base, group, namespace, name, sub)


def guess_resource(kind: str) -> str:
    """The resource of ``kind`` as Kubernetes' REST mapper guesses it for a kind it has no discovery for (lower case,
    then -s, -es after s, -ies for a final consonant-y); the tests hold it to the pinned CRDs' plurals."""
    lower = kind.lower()
    if lower.endswith("s"):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


def object_request(verb: str, obj: Mapping[str, Any]) -> Request:
    """``verb`` on the API object ``obj`` (kubectl apply: get, then create or patch)."""
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.split("/")[0] if "/" in api_version else ""
    meta = obj.get("metadata") or {}
    return Request(verb, guess_resource(str(obj.get("kind", ""))), group, meta.get("namespace"),
                   "" if verb in ("create", "list") else meta.get("name", ""))


def _matches(values: Sequence[str] | None, wanted: str) -> bool:
    return bool(values) and ("*" in values or wanted in values)


def _resource_matches(resources: Sequence[str] | None, request: Request) -> bool:
    combined = f"{request.resource}/{request.subresource}" if request.subresource else request.resource
    for resource in resources or ():
        if resource in ("*", combined):
            return True
        if request.subresource and resource == f"*/{request.subresource}":
            return True
    return False


def _url_matches(urls: Sequence[str] | None, path: str) -> bool:
    return any(url == "*" or url == path or (url.endswith("*") and path.startswith(url[:-1])) for url in urls or ())


def rule_allows(rule: Mapping[str, Any], request: Request) -> bool:
    """Whether one PolicyRule allows ``request`` (resource rules for resource requests, URL rules for URLs)."""
    if not _matches(rule.get("verbs"), request.verb):
        return False
    if request.path is not None:
        return _url_matches(rule.get("nonResourceURLs"), request.path)
    if not _matches(rule.get("apiGroups"), request.group) or not _resource_matches(rule.get("resources"), request):
        return False
    names = rule.get("resourceNames") or []
    return not names or (bool(request.name) and request.name in names)


def _selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


@dataclass(frozen=True)
class Grant:
    """Rules an identity holds, and where: ``namespaces`` None for every namespace and the cluster scope."""

    source: str
    rules: tuple[Mapping[str, Any], ...]
    namespaces: frozenset[str] | None = None

    def allows(self, request: Request) -> bool:
        if self.namespaces is not None:
            if request.path is not None or request.namespace not in self.namespaces:
                return False
        return any(rule_allows(rule, request) for rule in self.rules)


@dataclass
class Authorizer:
    """RBAC over a set of objects (Roles, ClusterRoles and their bindings, whatever else is among them is ignored)."""

    objects: Sequence[Mapping[str, Any]]
    defaults: Sequence[Mapping[str, Any]] = AUTHENTICATED_DEFAULTS
    _cluster_roles: dict[str, Mapping[str, Any]] = field(init=False, default_factory=dict)
    _roles: dict[tuple[str, str], Mapping[str, Any]] = field(init=False, default_factory=dict)
    _bindings: list[Mapping[str, Any]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        for obj in (*self.defaults, *self.objects):
            kind, meta = obj.get("kind"), obj.get("metadata") or {}
            if kind == "ClusterRole":
                self._cluster_roles[meta.get("name")] = obj
            elif kind == "Role":
                self._roles[(meta.get("namespace"), meta.get("name"))] = obj
            elif kind in ("ClusterRoleBinding", "RoleBinding"):
                self._bindings.append(obj)

    def cluster_role_rules(self, name: str) -> list[Mapping[str, Any]]:
        """A ClusterRole's rules, an aggregated one's gathered from the ClusterRoles its selectors match."""
        role = self._cluster_roles.get(name)
        if role is None:
            return []
        aggregation = role.get("aggregationRule")
        if not aggregation:
            return list(role.get("rules") or [])
        rules: list[Mapping[str, Any]] = []
        for other_name, other in self._cluster_roles.items():
            labels = (other.get("metadata") or {}).get("labels") or {}
            if other_name != name and any(_selector_matches(s, labels) for s in aggregation.get("clusterRoleSelectors") or []):
                rules += other.get("rules") or []
        return rules

    @staticmethod
    def _subject_matches(subject: Mapping[str, Any], identity: Identity, binding_namespace: str | None) -> bool:
        kind, name = subject.get("kind"), subject.get("name")
        if kind == "User":
            return name == identity.user
        if kind == "Group":
            return name in identity.all_groups
        if kind == "ServiceAccount":
            namespace = subject.get("namespace") or binding_namespace
            return identity.user == f"system:serviceaccount:{namespace}:{name}"
        return False

    def grants(self, identity: Identity) -> list[Grant]:
        """Every binding's rules that apply to ``identity``, each with where it applies."""
        found = []
        for binding in self._bindings:
            meta = binding.get("metadata") or {}
            namespace = meta.get("namespace") if binding.get("kind") == "RoleBinding" else None
            if not any(self._subject_matches(s, identity, namespace) for s in binding.get("subjects") or []):
                continue
            ref = binding.get("roleRef") or {}
            if ref.get("kind") == "ClusterRole":
                rules = self.cluster_role_rules(ref.get("name"))
            elif ref.get("kind") == "Role" and namespace is not None:
                rules = list((self._roles.get((namespace, ref.get("name"))) or {}).get("rules") or [])
            else:
                rules = []
            where = None if namespace is None else frozenset({namespace})
            found.append(Grant(f"{binding.get('kind')} {(namespace + '/') if namespace else ''}{meta.get('name')}",
                               tuple(rules), where))
        return found

    def allows(self, identity: Identity, request: Request, extra: Iterable[Grant] = ()) -> bool:
        """Whether RBAC (or one of the ``extra`` grants another authorizer gives ``identity``) allows ``request``."""
        return self.allowed_by(identity, request, extra) is not None

    def allowed_by(self, identity: Identity, request: Request, extra: Iterable[Grant] = ()) -> str | None:
        """The first grant that allows ``request`` (None: denied)."""
        for grant in (*extra, *self.grants(identity)):
            if grant.allows(request):
                return grant.source
        return None
