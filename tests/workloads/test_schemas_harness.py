"""The validation harness must accept what a strict API server accepts and reject what it rejects."""

from __future__ import annotations

import textwrap

import pytest

from support import k8s_schemas
from support.k8s_schemas import requires_crds, skip_unless_crds, validate_k8s_object
from support.upstream_data import MISSING_UPSTREAM


def _role(rule: dict) -> dict:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "reader", "namespace": "team-a"},
        "rules": [rule],
    }


def _queue(spec: dict) -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"}, "spec": spec}


# --- core kinds -------------------------------------------------------------------------------------------------


def test_valid_core_object_passes_for_both_versions() -> None:
    validate_k8s_object(_role({"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}))


def test_core_typo_field_is_rejected_with_path() -> None:
    with pytest.raises(AssertionError, match=r"Role .*'reader' invalid for Kubernetes 1\.31: rules\.0: .*'resource'"):
        validate_k8s_object(_role({"apiGroups": [""], "resources": ["pods"], "resource": ["x"], "verbs": ["get"]}))


def test_core_wrong_type_is_rejected() -> None:
    with pytest.raises(AssertionError, match=r"rules\.0\.verbs: 'get' is not of type 'array'"):
        validate_k8s_object(_role({"apiGroups": [""], "resources": ["pods"], "verbs": "get"}))


def test_core_kind_removed_in_a_checked_version_is_rejected() -> None:
    flow_schema = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1beta3",
        "kind": "FlowSchema",
        "metadata": {"name": "f"},
        "spec": {"priorityLevelConfiguration": {"name": "workload-low"}},
    }
    validate_k8s_object(flow_schema, kubernetes_versions=("1.31",))
    with pytest.raises(AssertionError, match=r"does not exist in Kubernetes 1\.35"):
        validate_k8s_object(flow_schema, kubernetes_versions=("1.31", "1.35"))


def test_object_without_name_or_kind_is_rejected() -> None:
    with pytest.raises(AssertionError, match="no metadata.name"):
        validate_k8s_object({"apiVersion": "v1", "kind": "Namespace", "metadata": {}})
    with pytest.raises(AssertionError, match="not a Kubernetes object"):
        validate_k8s_object({"apiVersion": "v1", "metadata": {"name": "x"}})


# --- custom resources against the upstream CRDs -----------------------------------------------------------------


@requires_crds
def test_valid_custom_resource_passes_int_or_string_both_ways() -> None:
    validate_k8s_object(_queue({"weight": 2, "reclaimable": True, "capability": {"cpu": "64", "nvidia.com/gpu": 8}}))


@requires_crds
def test_custom_resource_typo_and_wrong_type_are_both_reported() -> None:
    with pytest.raises(AssertionError) as caught:
        validate_k8s_object(_queue({"wieght": 2, "capability": {"cpu": ["64"]}}))
    message = str(caught.value)
    assert "Queue scheduling.volcano.sh/v1beta1 'q' invalid against its upstream CRD" in message
    assert "$.spec: Additional properties are not allowed ('wieght' was unexpected)" in message
    assert "$.spec.capability.cpu:" in message


@requires_crds
def test_custom_resource_wrong_scalar_type_is_rejected() -> None:
    with pytest.raises(AssertionError, match=r"\$\.spec\.weight: 'heavy' is not of type 'integer'"):
        validate_k8s_object(_queue({"weight": "heavy"}))


@requires_crds
def test_typo_deep_inside_an_embedded_pod_template_is_rejected() -> None:
    ray_cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "r", "namespace": "ml"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {"spec": {"containers": [{"name": "head", "image": "rayproject/ray:2.49.1"}]}},
            }
        },
    }
    validate_k8s_object(ray_cluster)
    ray_cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(AssertionError, match=r"containers\[0\]: Additional properties .*'imagePullPolicyy'"):
        validate_k8s_object(ray_cluster)


@requires_crds
def test_crd_group_that_shares_a_core_prefix_is_checked_against_the_crd() -> None:
    # batch.volcano.sh must not be mistaken for the core batch group: a core Job has no spec.tasks.
    volcano_job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ml"},
        "spec": {"tasks": [{"name": "worker", "replicas": 1, "template": {"spec": {"containers": []}}}]},
    }
    validate_k8s_object(volcano_job)


@requires_crds
def test_cluster_scoped_custom_resource_with_namespace_is_rejected() -> None:
    queue = _queue({"weight": 1})
    queue["metadata"]["namespace"] = "default"
    with pytest.raises(AssertionError, match="cluster-scoped kind takes no namespace"):
        validate_k8s_object(queue)


@requires_crds
def test_unknown_kind_is_rejected_unless_allow_listed() -> None:
    certificate = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "c"}}
    with pytest.raises(AssertionError, match="Certificate cert-manager.io/v1 'c': unknown kind"):
        validate_k8s_object(certificate)
    validate_k8s_object(certificate, allow_unknown_kinds={("cert-manager.io/v1", "Certificate")})


@requires_crds
def test_unserved_version_of_a_known_kind_is_rejected() -> None:
    with pytest.raises(AssertionError, match="unknown kind"):
        validate_k8s_object({**_queue({}), "apiVersion": "scheduling.volcano.sh/v1"})


# --- the CRDs folder: env var, conversion rules, absence ---------------------------------------------------------

_SYNTHETIC_CRD = textwrap.dedent(
    """\
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: widgets.example.test}
    spec:
      group: example.test
      scope: Namespaced
      names: {kind: Widget, plural: widgets}
      versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                apiVersion: {type: string}
                kind: {type: string}
                metadata: {type: object}
                spec:
                  type: object
                  required: [size]
                  properties:
                    size:
                      x-kubernetes-int-or-string: true
                    note: {type: string, nullable: true}
                    free:
                      type: object
                      x-kubernetes-preserve-unknown-fields: true
                      properties:
                        known: {type: string}
    """
)


@pytest.fixture()
def synthetic_crds(tmp_path, monkeypatch):
    folder = tmp_path / "crds" / "example"
    folder.mkdir(parents=True)
    (folder / "example.test_widgets.yaml").write_text(_SYNTHETIC_CRD)
    monkeypatch.setattr(k8s_schemas, "crd_files", lambda: (folder / "example.test_widgets.yaml",))
    return tmp_path / "crds"


def _widget(spec: dict) -> dict:
    return {"apiVersion": "example.test/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def test_a_given_crd_file_list_is_what_custom_kinds_validate_against(synthetic_crds) -> None:
    validate_k8s_object(_widget({"size": 3}))
    with pytest.raises(AssertionError, match="unknown kind"):
        validate_k8s_object(_queue({"weight": 1}))  # Volcano's CRD is not in the given list


def test_conversion_int_or_string_nullable_and_preserved_fields(synthetic_crds) -> None:
    validate_k8s_object(_widget({"size": "3Gi", "note": None, "free": {"known": "a", "anything": {"x": 1}}}))
    with pytest.raises(AssertionError, match=r"\$\.spec\.size: \[3\] is not valid under any"):
        validate_k8s_object(_widget({"size": [3]}))
    with pytest.raises(AssertionError, match=r"\$\.spec: 'size' is a required property"):
        validate_k8s_object(_widget({"note": "n"}))
    with pytest.raises(AssertionError, match=r"\$: Additional properties .*'status'"):
        validate_k8s_object({**_widget({"size": 1}), "status": {}})


def test_absent_crds_skip_saying_how_to_get_them_but_core_kinds_still_validate(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("EKS_TRAINING_MIRROR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(k8s_schemas, "crd_files", k8s_schemas.crd_files.__wrapped__)  # not the session's cached answer
    assert k8s_schemas.crd_files() is None
    with pytest.raises(pytest.skip.Exception, match=f"{MISSING_UPSTREAM}: .*eks-training fetch-upstream crds/"):
        skip_unless_crds()
    with pytest.raises(pytest.skip.Exception, match=MISSING_UPSTREAM):
        validate_k8s_object(_queue({"weight": 1}))
    validate_k8s_object({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ok"}})
