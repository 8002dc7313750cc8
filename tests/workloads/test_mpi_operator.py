"""MPIJob launcher identity in each training namespace; the MPI Operator installer and its rights."""

from __future__ import annotations

import json

import cdk8s
import cdk8s_plus_28 as kplus
import pytest
import yaml
from support import upstream_data

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.infra.tools.check.kube import selector_mismatches
from eks_training.workloads.mpi_operator import LAUNCHER_SERVICE_ACCOUNT, MpiOperatorSupportChart
from eks_training.workloads.mpi_operator_install import (
    INSTALLER,
    MPI_OPERATOR_VERSION,
    TTL_SECONDS_AFTER_FINISHED,
    MpiOperatorInstallChart,
)
from support.k8s_schemas import chart_objects, validate_k8s_objects


def _render(namespaces) -> list[dict]:
    return chart_objects(MpiOperatorSupportChart(cdk8s.App(), "mpi", namespaces=namespaces))


def test_each_namespace_gets_a_bound_read_only_launcher_identity() -> None:
    objects = validate_k8s_objects(_render(["team-a", "team-b"]))
    assert len(objects) == 6
    for namespace in ("team-a", "team-b"):
        mine = {o["kind"]: o for o in objects if o["metadata"]["namespace"] == namespace}
        assert set(mine) == {"ServiceAccount", "Role", "RoleBinding"}
        assert mine["ServiceAccount"]["metadata"]["name"] == LAUNCHER_SERVICE_ACCOUNT == "mpi-launcher"
        binding = mine["RoleBinding"]
        assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": mine["Role"]["metadata"]["name"]}
        # apiGroup "" (plus writes it): the core group, where ServiceAccounts are.
        assert binding["subjects"] == [{"apiGroup": "", "kind": "ServiceAccount", "name": "mpi-launcher", "namespace": namespace}]
        # The launcher pods ask for no token themselves and read pods through the API: the account gives one.
        assert mine["ServiceAccount"]["automountServiceAccountToken"] is True
        (rule,) = mine["Role"]["rules"]
        # v2beta1 launches over SSH: reading pods is all a launcher may need; no exec, no writes.
        assert rule["resources"] == ["pods"] and set(rule["verbs"]) <= {"get", "list", "watch"}
        for obj in mine.values():
            assert obj["metadata"]["labels"]["app.kubernetes.io/component"] == "mpi-operator"
            assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"


def test_the_launcher_identity_is_cdk8s_plus_and_every_object_renders() -> None:
    chart = MpiOperatorSupportChart(cdk8s.App(), "mpi", namespaces=["team-a"])
    plus = {type(c) for c in chart.node.children}
    assert plus == {kplus.ServiceAccount, kplus.Role, kplus.RoleBinding}
    (account,) = [c for c in chart.node.children if isinstance(c, kplus.ServiceAccount)]
    assert account.automount_token is True
    # api_objects sees the ApiObjects inside the plus constructs, in the order the cluster gets them.
    assert [o.to_json() for o in chart.api_objects] == chart.to_json()
    assert [o["kind"] for o in chart.to_json()] == ["ServiceAccount", "Role", "RoleBinding"]


def test_the_launcher_job_pods_use_the_account_without_asking_for_a_token() -> None:
    # Why the account says automountServiceAccountToken: true (plus's default is false): the launcher pods that
    # `eks-training render` writes do not ask for the token themselves.
    from eks_training.workloads.job_mpi import mpi_job
    from eks_training.workloads.job_pods import TrainingJob

    job = mpi_job(TrainingJob(name="llm", namespace="team-a", image="repo/trainer:1", instance_type="p4d.24xlarge",
                              nodes=2, checkpoint_s3_uri="s3://ckpt/llm"))
    launcher = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    assert launcher["serviceAccountName"] == LAUNCHER_SERVICE_ACCOUNT
    assert "automountServiceAccountToken" not in launcher


@pytest.mark.parametrize(
    ("namespaces", "message"),
    [
        ([], r"namespaces=\[\] is not allowed: use a non-empty list of namespace names"),
        ("team-a", r"namespaces='team-a' is not allowed: use a non-empty list"),
        (["Team_A"], r"namespace='Team_A' is not allowed: use 1-63 lowercase letters, digits or '-'"),
        (["a", "a"], r"namespaces='a' is not allowed: each must be unique \(it is given twice\)"),
    ],
)
def test_bad_namespaces_raise_one_line_errors(namespaces, message) -> None:
    with pytest.raises(ValueError, match=message):
        _render(namespaces)


# --- the installer: the pinned release manifest, applied with only the rights it needs -----------------------------

#: Kind -> (API group, resource) of each kind an operator manifest may hold; a kind missing here fails the test
#: below, so a new kind in a new release is looked at instead of silently left without rights.
_RESOURCES = {
    "Namespace": ("", "namespaces"), "ServiceAccount": ("", "serviceaccounts"),
    "CustomResourceDefinition": ("apiextensions.k8s.io", "customresourcedefinitions"),
    "ClusterRole": ("rbac.authorization.k8s.io", "clusterroles"),
    "ClusterRoleBinding": ("rbac.authorization.k8s.io", "clusterrolebindings"),
    "Role": ("rbac.authorization.k8s.io", "roles"), "RoleBinding": ("rbac.authorization.k8s.io", "rolebindings"),
    "Deployment": ("apps", "deployments"), "Service": ("", "services"), "ConfigMap": ("", "configmaps"),
}


def _installer() -> list[dict]:
    # to_json, not the chart's direct ApiObjects: each plus construct holds its ApiObject as a child.
    return validate_k8s_objects(MpiOperatorInstallChart(cdk8s.App(), "install", kubernetes_version="1.36").to_json())


def _upstream_manifest() -> list[dict]:
    path = upstream_data.file_path(f"charts/mpi-operator-{MPI_OPERATOR_VERSION}/mpi-operator.yaml")
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _rbac_allows(rules: list[dict], verb: str, group: str, resource: str, name: str | None) -> bool:
    """Kubernetes RBAC for one request: some rule names the verb, group and resource, and the name when it lists any."""
    return any(verb in r["verbs"] and group in r["apiGroups"] and resource in r["resources"]
               and (not r.get("resourceNames") or name in r["resourceNames"]) for r in rules)


def _installer_rights(objects: list[dict]) -> tuple[list[dict], dict[str, list[dict]]]:
    """(cluster-wide rules, namespace -> rules) the installer's ServiceAccount is bound to."""
    (account,) = [o for o in objects if o["kind"] == "ServiceAccount"]
    subject = ("ServiceAccount", account["metadata"]["name"], account["metadata"]["namespace"])
    roles = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o for o in objects if o["kind"] in ("ClusterRole", "Role")}
    cluster: list[dict] = []
    namespaced: dict[str, list[dict]] = {}
    for binding in (o for o in objects if o["kind"] in ("ClusterRoleBinding", "RoleBinding")):
        # A ServiceAccount subject's apiGroup is "" whether written or left out.
        if subject not in [(b["kind"], b["name"], b.get("namespace")) for b in binding["subjects"]
                           if b.get("apiGroup", "") == ""]:
            continue
        ref = binding["roleRef"]
        namespace = binding["metadata"].get("namespace")
        role = roles[(ref["kind"], None if ref["kind"] == "ClusterRole" else namespace, ref["name"])]
        if binding["kind"] == "ClusterRoleBinding":
            cluster += role["rules"]
        else:
            namespaced.setdefault(namespace, []).extend(role["rules"])
    return cluster, namespaced


def test_installer_holds_no_cluster_admin_and_no_wildcards() -> None:
    objects = _installer()
    assert "cluster-admin" not in json.dumps(objects)
    for role in (o for o in objects if o["kind"] in ("ClusterRole", "Role")):
        for rule in role["rules"]:
            assert "*" not in rule["verbs"] + rule["resources"] + rule["apiGroups"], rule
            # Only reads may go without names (kubectl rollout status lists and watches).
            if set(rule["verbs"]) - {"list", "watch"}:
                assert rule.get("resourceNames"), rule
    cluster, namespaced = _installer_rights(objects)
    assert cluster and set(namespaced) == {"mpi-operator"}
    # Nothing it may read or write outside what it installs: no secrets, no pods, no exec.
    for rules in (cluster, *namespaced.values()):
        for resource in ("secrets", "pods", "pods/exec", "nodes"):
            assert not any(resource in r["resources"] for r in rules)


def test_installer_can_server_side_apply_every_object_of_the_release_manifest() -> None:
    manifest = _upstream_manifest()
    objects = _installer()
    cluster, namespaced = _installer_rights(objects)
    ours = {(o["kind"], o["metadata"]["name"]) for o in objects}
    unknown = sorted({o["kind"] for o in manifest} - set(_RESOURCES))
    assert not unknown, f"the manifest has kinds {unknown}: add them to _RESOURCES and give the installer their rights"
    for obj in manifest:
        group, resource = _RESOURCES[obj["kind"]]
        name, namespace = obj["metadata"]["name"], obj["metadata"].get("namespace")
        rules = namespaced.get(namespace, []) if namespace else cluster
        what = f"{obj['kind']} {namespace or ''}/{name}"
        # Server-side apply is a PATCH; the API server checks create too when the object is new, unless our chart
        # creates it first (the operator's namespace, so the namespaced rights can be a RoleBinding inside it).
        assert _rbac_allows(rules, "patch", group, resource, name), what
        assert _rbac_allows(rules, "create", group, resource, name) or ("Namespace", name) in ours, what
        if obj["kind"] == "ClusterRole":
            # Writing a role with rights the writer lacks needs escalate on it.
            assert _rbac_allows(cluster, "escalate", group, resource, name), what
        if obj["kind"] in ("ClusterRoleBinding", "RoleBinding"):
            ref = obj["roleRef"]
            assert _rbac_allows(cluster, "bind", "rbac.authorization.k8s.io", ref["kind"].lower() + "s", ref["name"]), what
    # ...and nothing beyond it: each named right is for an object of the manifest or the installer's own bindings.
    names = {o["metadata"]["name"] for o in manifest} | {"mpi-operator-installer"}
    for rules in (cluster, *namespaced.values()):
        for rule in rules:
            assert set(rule.get("resourceNames") or []) <= names, rule


def test_installer_job_cleans_up_pins_the_operator_and_unbinds_itself() -> None:
    objects = _installer()
    (job,) = [o for o in objects if o["kind"] == "Job"]
    assert job["spec"]["ttlSecondsAfterFinished"] == TTL_SECONDS_AFTER_FINISHED > 0
    container = job["spec"]["template"]["spec"]["containers"][0]
    script = container["command"][-1]
    env = {e["name"]: e["value"] for e in container["env"]}
    patch = json.loads(env["NODE_SELECTOR_PATCH"])
    assert patch["spec"]["template"]["spec"]["nodeSelector"] == SYSTEM_NODE_SELECTOR
    lines = script.splitlines()
    apply = next(i for i, line in enumerate(lines) if "apply --server-side" in line)
    pin = next(i for i, line in enumerate(lines) if "patch deployment mpi-operator" in line and "$NODE_SELECTOR_PATCH" in line)
    unbind = [i for i, line in enumerate(lines) if " delete " in f" {line} " and "binding mpi-operator-installer" in line]
    assert apply < pin < min(unbind) and len(unbind) == 2
    bindings = {(o["kind"], o["metadata"].get("namespace")) for o in objects if o["kind"].endswith("Binding")}
    assert bindings == {("ClusterRoleBinding", None), ("RoleBinding", "mpi-operator")}
    assert any("-n mpi-operator delete rolebinding" in lines[i] for i in unbind)
    assert any("delete clusterrolebinding" in lines[i] for i in unbind)
    # The installer's own namespace runs only this hardened Job: restricted is enforced there.
    namespaces = {o["metadata"]["name"]: o["metadata"]["labels"] for o in objects if o["kind"] == "Namespace"}
    assert namespaces["mpi-operator-install"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert namespaces["mpi-operator"]["pod-security.kubernetes.io/enforce"] == "baseline"


def test_installer_namespace_reaches_only_dns_and_https_and_accepts_nothing() -> None:
    from eks_training.infra.tools.check.network_policy import Address, Flow, Pod, PolicySet

    objects = _installer()
    policies = PolicySet(objects)
    installer = Pod("mpi-operator-install", {"app.kubernetes.io/component": "mpi-operator"})
    assert policies.flow_allowed(Flow("download", installer, Address("185.199.108.133"), 443))
    assert policies.flow_allowed(Flow("dns", installer, Pod("kube-system", {"k8s-app": "kube-dns"}), 53, "UDP"))
    assert not policies.flow_allowed(Flow("http", installer, Address("185.199.108.133"), 80))
    assert not policies.flow_allowed(Flow("into it", Pod("default", {}), installer, 8080))
    (job,) = [o for o in objects if o["kind"] == "Job"]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"]


def test_installer_objects_are_cdk8s_plus_constructs() -> None:
    chart = MpiOperatorInstallChart(cdk8s.App(), "install", kubernetes_version="1.36")
    kinds = {type(c).__name__: c for c in chart.node.children if not isinstance(c, kplus.Volume)}
    assert [type(c) for c in chart.node.children if not isinstance(c, kplus.Volume)] == [
        kplus.Namespace, kplus.Namespace, kplus.ServiceAccount, kplus.ClusterRole, kplus.ClusterRoleBinding,
        kplus.Role, kplus.RoleBinding, kplus.Job, kplus.NetworkPolicy,
        # The operator's own namespace: default deny, DNS, HTTPS to the API (workloads.network_policies).
        kplus.NetworkPolicy, kplus.NetworkPolicy, kplus.NetworkPolicy]
    # No plain object beside them.
    assert not [c for c in chart.node.children if isinstance(c, cdk8s.ApiObject)]
    # api_objects lists the ApiObjects inside the plus constructs, in the order the chart renders them.
    assert [o.to_json() for o in chart.api_objects] == chart.to_json()
    assert [o.kind for o in chart.api_objects] == [
        "Namespace", "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Job",
        "NetworkPolicy", "NetworkPolicy", "NetworkPolicy", "NetworkPolicy"]
    job = kinds["Job"]
    assert job.service_account.name == INSTALLER and job.automount_service_account_token is True
    assert job.ttl_after_finished.to_seconds() == TTL_SECONDS_AFTER_FINISHED


def test_installer_rbac_is_exactly_what_the_install_needs() -> None:
    """Every (group, resource, name, verb) the installer holds, flattened: a right added or dropped fails here."""
    objects = _installer()
    cluster, namespaced = _installer_rights(objects)

    def flat(rules: list[dict]) -> set[tuple[str, str, str, str]]:
        return {(group, resource, name, verb) for r in rules for group in r["apiGroups"] for resource in r["resources"]
                for name in (r.get("resourceNames") or ["*"]) for verb in r["verbs"]}

    rbac, apply = "rbac.authorization.k8s.io", ("get", "create", "patch")
    expected_cluster = {
        *{("apiextensions.k8s.io", "customresourcedefinitions", "mpijobs.kubeflow.org", v) for v in apply},
        ("", "namespaces", "mpi-operator", "get"), ("", "namespaces", "mpi-operator", "patch"),
        *{(rbac, "clusterroles", name, v) for v in (*apply, "escalate")
          for name in ("kubeflow-mpijobs-admin", "kubeflow-mpijobs-edit", "kubeflow-mpijobs-view", "mpi-operator")},
        (rbac, "clusterroles", "mpi-operator", "bind"),
        *{(rbac, "clusterrolebindings", "mpi-operator", v) for v in apply},
        (rbac, "clusterrolebindings", "mpi-operator-installer", "get"),
        (rbac, "clusterrolebindings", "mpi-operator-installer", "delete"),
    }
    expected_namespaced = {
        *{("", "serviceaccounts", "mpi-operator", v) for v in apply},
        *{("apps", "deployments", "mpi-operator", v) for v in apply},
        ("apps", "deployments", "*", "list"), ("apps", "deployments", "*", "watch"),
        (rbac, "rolebindings", "mpi-operator-installer", "get"), (rbac, "rolebindings", "mpi-operator-installer", "delete"),
    }
    assert flat(cluster) == expected_cluster
    assert set(namespaced) == {"mpi-operator"} and flat(namespaced["mpi-operator"]) == expected_namespaced
    # Bindings point at the installer's own roles, and the account mounts no token unless a pod asks.
    (account,) = [o for o in objects if o["kind"] == "ServiceAccount"]
    assert account["automountServiceAccountToken"] is False
    for binding in (o for o in objects if o["kind"].endswith("Binding")):
        assert binding["roleRef"]["name"] == INSTALLER
        assert [(s["kind"], s["name"], s["namespace"]) for s in binding["subjects"]] == [
            ("ServiceAccount", INSTALLER, "mpi-operator-install")]


def test_installer_job_sets_every_plus_default_it_depends_on() -> None:
    (job,) = [o for o in _installer() if o["kind"] == "Job"]
    spec = job["spec"]
    assert spec["backoffLimit"] == 3 and spec["ttlSecondsAfterFinished"] == TTL_SECONDS_AFTER_FINISHED
    pod = spec["template"]["spec"]
    # The token is what kubectl authenticates with; plus would leave it out.
    assert pod["serviceAccountName"] == INSTALLER and pod["automountServiceAccountToken"] is True
    assert pod["restartPolicy"] == "OnFailure"
    assert not pod["hostNetwork"]
    assert pod["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534,
                                      "seccompProfile": {"type": "RuntimeDefault"}, "fsGroupChangePolicy": "Always"}
    (container,) = pod["containers"]
    assert container["imagePullPolicy"] == "IfNotPresent"
    # Not plus's 1 CPU / 512Mi requests and 1.5 CPU / 2Gi limits; no CPU limit.
    assert container["resources"] == {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}
    assert container["securityContext"] == {
        "runAsNonRoot": True, "privileged": False, "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]}}
    assert pod["volumes"] == [{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}]
    # Pinned to the system nodes (required node affinity: plus's form of a nodeSelector) and nowhere else.
    assert "nodeSelector" not in pod
    assert selector_mismatches(pod, {**SYSTEM_NODE_SELECTOR, "node.kubernetes.io/instance-type": "m6i.xlarge"}) == []
    for key in SYSTEM_NODE_SELECTOR:
        assert selector_mismatches(pod, {**SYSTEM_NODE_SELECTOR, key: "gpu"}), key
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == {"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in SYSTEM_NODE_SELECTOR.items()]}
