"""The Slinky Slurm cluster chart: valid v1beta1 CRs, real partition wiring, and no secret material in the output."""

from __future__ import annotations

import base64
import datetime
import http.server
import ipaddress
import json
import os
import re
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import cdk8s
import pytest
import yaml

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.workloads.slinky import (
    ExternalMariaDb,
    InClusterMariaDb,
    SlurmClusterChart,
    SlurmControllerSettings,
    SlurmLoginSettings,
    SlurmPartition,
)
from support.fsx import assert_namespace_fsx
from support.k8s_schemas import chart_objects, validate_k8s_object, validate_k8s_objects

SLINKY = "slinky.slurm.net/v1beta1"
CR_CONTAINER_FIELD = {
    "Controller": "slurmctld",
    "Accounting": "slurmdbd",
    "RestApi": "slurmrestd",
    "LoginSet": "login",
    "NodeSet": "slurmd",
}


def a100(**overrides) -> SlurmPartition:
    values = dict(name="gpu-a100", instance_type="p4d.24xlarge", accelerator="nvidia", replicas=4, cpu="90",
                  memory="1000Gi", max_nodes=4, features=("a100", "nvlink"))
    return SlurmPartition(**{**values, **overrides})


def trainium(**overrides) -> SlurmPartition:
    values = dict(name="trainium", instance_type="trn1.32xlarge", accelerator="neuron", replicas=2, cpu="120",
                  memory="480Gi")
    return SlurmPartition(**{**values, **overrides})


def render(**options) -> list[dict]:
    kwargs = dict(cluster_name="ml", partitions=[a100(), trainium()])
    kwargs.update(options)
    chart = SlurmClusterChart(cdk8s.App(), "slurm", **kwargs)
    return chart_objects(chart)


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return render()


def only(objs: list[dict], kind: str, name: str | None = None) -> dict:
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {[o['metadata']['name'] for o in found]}"
    return found[0]


def nodeset_for(objs: list[dict], partition: str) -> dict:
    return only(objs, "NodeSet", f"ml-worker-{partition}")


# --- validity ----------------------------------------------------------------------------------------------------


def test_every_object_is_valid_for_kubernetes_and_the_upstream_crds(objects):
    validate_k8s_objects(objects)
    kinds = sorted(o["kind"] for o in objects if o["apiVersion"] == SLINKY)
    assert kinds == ["Accounting", "Controller", "LoginSet", "NodeSet", "NodeSet", "RestApi"]


def test_only_real_slinky_kinds_are_emitted(objects):
    slinky_like = [o for o in objects if "slurm" in o["apiVersion"] or o["kind"].startswith("Slurm")]
    assert {o["apiVersion"] for o in slinky_like} == {SLINKY}
    assert not [o for o in objects if o["kind"] in ("SlurmCluster", "SlurmNodeSet")]


@pytest.mark.parametrize("kind", sorted(CR_CONTAINER_FIELD))
def test_pod_and_container_inside_each_cr_are_valid_core_objects(objects, kind):
    # The CRDs keep pod and container specs as free-form objects, so check them as a real Pod would be.
    for cr in (o for o in objects if o["kind"] == kind):
        container = {"name": CR_CONTAINER_FIELD[kind], **cr["spec"][CR_CONTAINER_FIELD[kind]]}
        pod_spec = {**cr["spec"].get("template", {}).get("spec", {}), "containers": [container]}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "check", **cr["spec"]["template"].get("metadata", {})},
               "spec": pod_spec}
        validate_k8s_object(pod)


def test_login_service_template_is_a_valid_core_service(objects):
    service = only(objects, "LoginSet")["spec"]["service"]
    as_service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "login", **service.get("metadata", {})},
                  "spec": {**service["spec"], "ports": [{"name": "ssh", "port": 22}]}}
    validate_k8s_object(as_service)


def test_every_object_carries_the_platform_labels(objects):
    for obj in objects:
        labels = obj["metadata"].get("labels", {})
        assert labels.get("app.kubernetes.io/part-of") == "eks-training", obj["metadata"]["name"]
        assert labels.get("app.kubernetes.io/component") == "slurm", obj["metadata"]["name"]
        if obj["kind"] != "Namespace":
            assert obj["metadata"]["namespace"] == "slurm"


# --- partitions -------------------------------------------------------------------------------------------------


def test_gpu_nodeset_requests_all_gpus_and_efa_of_a_p4d(objects):
    spec = nodeset_for(objects, "gpu-a100")["spec"]
    resources = spec["slurmd"]["resources"]
    for side in ("requests", "limits"):
        assert resources[side]["nvidia.com/gpu"] == 8
        assert resources[side]["vpc.amazonaws.com/efa"] == 4  # p4d.24xlarge: 4 network cards, one EFA each
        assert resources[side]["memory"] == "1000Gi"
    assert resources["requests"]["cpu"] == "90"
    assert spec["replicas"] == 4
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "p4d.24xlarge"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert "Gres=gpu:8" in spec["extraConf"].split()
    assert "Features=a100,nvlink" in spec["extraConf"].split()


def test_neuron_nodeset_requests_all_devices_and_efa_of_a_trn1(objects):
    spec = nodeset_for(objects, "trainium")["spec"]
    limits = spec["slurmd"]["resources"]["limits"]
    assert limits["aws.amazon.com/neuron"] == 16
    assert limits["vpc.amazonaws.com/efa"] == 8  # trn1.32xlarge: 8 EFA interfaces
    assert "nvidia.com/gpu" not in limits
    tolerations = spec["template"]["spec"]["tolerations"]
    assert {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"} in tolerations
    assert "extraConf" not in spec  # no GRES for Neuron devices and no features asked


def test_partition_name_and_config_reach_slurm(objects):
    gpu, trn = nodeset_for(objects, "gpu-a100")["spec"], nodeset_for(objects, "trainium")["spec"]
    # The operator names the Slurm partition after the hostname prefix, without the trailing dash.
    assert gpu["template"]["spec"]["hostname"] == "gpu-a100-"
    assert trn["template"]["spec"]["hostname"] == "trainium-"
    assert gpu["partition"]["enabled"] is True and trn["partition"]["enabled"] is True
    gpu_config, trn_config = gpu["partition"]["config"].split(), trn["partition"]["config"].split()
    assert "MaxNodes=4" in gpu_config and "Default=YES" in gpu_config
    assert "Default=YES" not in trn_config and not [c for c in trn_config if c.startswith("MaxNodes")]
    assert gpu["controllerRef"] == {"name": "ml"} and trn["controllerRef"] == {"name": "ml"}


def test_fsx_is_mounted_at_fsx_and_shm_is_memory_in_slurmd_and_login_pods(objects):
    for cr, container_field in ((nodeset_for(objects, "gpu-a100"), "slurmd"), (only(objects, "LoginSet"), "login")):
        volumes = {v["name"]: v for v in cr["spec"]["template"]["spec"]["volumes"]}
        # The FSx paths of every pod: sbatch scripts and rendered jobs name the same paths.
        assert_namespace_fsx(volumes, cr["spec"][container_field]["volumeMounts"])
    slurmd = nodeset_for(objects, "trainium")["spec"]
    volumes = {v["name"]: v for v in slurmd["template"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in slurmd["slurmd"]["volumeMounts"]}
    assert volumes[mounts["/dev/shm"]]["emptyDir"] == {"medium": "Memory"}


def test_gpu_cluster_gets_gres_autodetect_and_neuron_only_cluster_does_not():
    objs = render()
    controller = only(objs, "Controller")["spec"]
    config_map = only(objs, "ConfigMap", controller["configFileRefs"][0]["name"])
    assert "AutoDetect=nvidia" in config_map["data"]["gres.conf"]
    assert "GresTypes=gpu" in controller["extraConf"]
    neuron_only = only(render(partitions=[trainium()]), "Controller")["spec"]
    assert "configFileRefs" not in neuron_only and neuron_only["extraConf"] == "DisableRootJobs=YES"


# --- controller, accounting, rest api, login ----------------------------------------------------------------------


def test_controller_persistence_and_resources_follow_settings():
    settings = SlurmControllerSettings(cpu="4", memory="8Gi", storage_size="80Gi", storage_class="gp3")
    spec = only(render(controller=settings), "Controller")["spec"]
    assert spec["clusterName"] == "ml"
    assert spec["persistence"]["storageClassName"] == "gp3"
    assert spec["persistence"]["resources"]["requests"]["storage"] == "80Gi"
    assert spec["slurmctld"]["resources"]["requests"] == {"cpu": "4", "memory": "8Gi"}


def test_in_cluster_mariadb_backs_accounting(objects):
    accounting = only(objects, "Accounting")
    assert only(objects, "Controller")["spec"]["accountingRef"] == {"name": accounting["metadata"]["name"]}
    database = only(objects, "StatefulSet", "ml-mariadb")
    service = only(objects, "Service", "ml-mariadb")
    assert accounting["spec"]["storageConfig"]["host"] == "ml-mariadb.slurm.svc"
    assert service["spec"]["selector"] == database["spec"]["selector"]["matchLabels"]
    assert database["spec"]["serviceName"] == "ml-mariadb"
    claim = database["spec"]["volumeClaimTemplates"][0]
    assert claim["spec"]["resources"]["requests"]["storage"] == "100Gi"
    env = {e["name"]: e for e in database["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["MARIADB_USER"]["value"] == accounting["spec"]["storageConfig"]["username"]
    assert env["MARIADB_DATABASE"]["value"] == accounting["spec"]["storageConfig"]["database"]
    # The password reaches the server as a file from the same Secret slurmdbd reads, never as an env value.
    pod = database["spec"]["template"]["spec"]
    secret_ref = accounting["spec"]["storageConfig"]["passwordKeyRef"]
    volume = next(v for v in pod["volumes"] if v["name"] == "password")
    mount = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "password")
    assert volume["secret"]["secretName"] == secret_ref["name"]
    assert volume["secret"]["items"] == [{"key": secret_ref["key"], "path": secret_ref["key"]}]
    assert env["MARIADB_PASSWORD_FILE"]["value"] == f"{mount['mountPath']}/{secret_ref['key']}"
    assert "MARIADB_PASSWORD" not in env


def test_external_database_uses_its_host_and_existing_password_secret():
    external = ExternalMariaDb(host="slurm-db.abc.us-west-2.rds.amazonaws.com", password_secret_name="rds-slurm",
                               port=3307, username="slurm_acct")
    objs = render(accounting=external)
    validate_k8s_objects(objs)
    storage = only(objs, "Accounting")["spec"]["storageConfig"]
    assert storage == {"host": "slurm-db.abc.us-west-2.rds.amazonaws.com", "port": 3307,
                       "database": "slurm_acct_db", "username": "slurm_acct",
                       "passwordKeyRef": {"name": "rds-slurm", "key": "password"}}
    assert not [o for o in objs if o["kind"] == "StatefulSet"]
    assert "rds-slurm" not in {s["name"] for s in generator_spec(objs)}


def test_without_accounting_there_is_no_accounting_cr():
    objs = render(accounting=None)
    assert not [o for o in objs if o["kind"] in ("Accounting", "StatefulSet")]
    assert "accountingRef" not in only(objs, "Controller")["spec"]


def test_rest_api_replicas(objects):
    assert only(objects, "RestApi")["spec"]["replicas"] == 1
    assert only(render(rest_api_replicas=3), "RestApi")["spec"]["replicas"] == 3


def test_login_ssh_is_a_cluster_ip_service_by_default(objects):
    # The platform installs no load balancer controller: a LoadBalancer Service would never get an address.
    login = only(objects, "LoginSet")["spec"]
    assert login["service"] == {"spec": {"type": "ClusterIP"}}
    assert login["replicas"] == 1 and login["controllerRef"] == {"name": "ml"}


def test_login_ssh_behind_an_internal_nlb_on_request():
    settings = SlurmLoginSettings(replicas=2, load_balancer=True, source_ranges=("10.8.0.0/16",))
    login = only(render(login=settings), "LoginSet")["spec"]
    annotations = login["service"]["metadata"]["annotations"]
    assert login["service"]["spec"]["type"] == "LoadBalancer"
    # EKS's AWS cloud provider makes it (no controller to install): an NLB, internal, forwarding only from the nodes
    # the login pods run on, and only from the client networks named.
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-type"] == "nlb"
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    node_selector = login["template"]["spec"]["nodeSelector"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-target-node-labels"] == ",".join(
        f"{k}={v}" for k, v in node_selector.items())
    assert login["service"]["spec"]["loadBalancerSourceRanges"] == ["10.8.0.0/16"]
    # SSH is encrypted end to end: no TLS listener.
    assert not any("ssl" in key for key in annotations)
    assert login["replicas"] == 2


def test_people_log_in_as_themselves_through_their_directory_never_as_root():
    login = only(render(login=SlurmLoginSettings(sssd_conf_secret="corp-ldap")), "LoginSet")["spec"]
    # The directory's SSSD configuration (a Secret the operator makes, like the hub's client secret): uids and keys.
    assert login["sssdConfRef"] == {"name": "corp-ldap", "key": "sssd.conf"}
    sshd = [line.strip() for line in login["extraSshdConfig"].splitlines()]
    assert {"PermitRootLogin no", "PasswordAuthentication no", "AuthorizedKeysCommandUser nobody",
            "AuthorizedKeysCommand /usr/bin/sss_ssh_authorizedkeys %u"} <= set(sshd)
    assert "rootSshAuthorizedKeys" not in login
    # No setuid program makes a user root in the login pod, where root reads the Slurm key.
    assert login["login"]["securityContext"] == {"allowPrivilegeEscalation": False}
    # Without a directory, the platform's local-users SSSD config (nobody but the image's users).
    assert only(render(), "LoginSet")["spec"]["sssdConfRef"]["name"] == "ml-sssd-conf"


def test_images_are_pinned_slinky_images_of_a_supported_slurm():
    for tag in ("26.05-ubuntu26.04", "25.11-ubuntu24.04"):
        for cr in (o for o in render(slurm_image_tag=tag) if o["apiVersion"] == SLINKY):
            image = cr["spec"][CR_CONTAINER_FIELD[cr["kind"]]]["image"]
            assert re.fullmatch(rf"ghcr\.io/slinkyproject/(slurmctld|slurmd|slurmrestd|slurmdbd|login):{tag}", image)


# --- secrets ------------------------------------------------------------------------------------------------------


def generator_spec(objs: list[dict]) -> list[dict]:
    job = only(objs, "Job", "ml-secret-generator")
    env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    return json.loads(env["SECRETS_SPEC"])


def referenced_secrets(objs: list[dict]) -> set[tuple[str, str]]:
    """(name, key) of every Secret a CR field `*KeyRef`/`*ConfRef` or an env `secretKeyRef` points at."""
    found: set[tuple[str, str]] = set()

    def walk(node):
        if isinstance(node, dict):
            for field, value in node.items():
                if field in ("slurmKeyRef", "jwtKeyRef", "jwtHs256KeyRef", "passwordKeyRef", "sssdConfRef",
                             "secretKeyRef"):
                    found.add((value["name"], value["key"]))
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(objs)
    return found


def test_crs_reference_exactly_the_secrets_the_generator_creates(objects):
    generated = {(s["name"], s["key"]) for s in generator_spec(objects)}
    sssd = only(objects, "Secret")
    rendered = {(sssd["metadata"]["name"], key) for key in sssd["stringData"]}
    assert referenced_secrets(objects) == generated | rendered
    controller = only(objects, "Controller")["spec"]
    assert (controller["slurmKeyRef"]["name"], controller["slurmKeyRef"]["key"]) in generated
    assert (controller["jwtKeyRef"]["name"], controller["jwtKeyRef"]["key"]) in generated
    assert len(generated) == 3  # slurm key, JWT key, database password


def test_the_only_rendered_secret_is_the_sssd_config_and_holds_no_credentials(objects):
    secrets = [o for o in objects if o["kind"] == "Secret"]
    assert [s["metadata"]["name"] for s in secrets] == ["ml-sssd-conf"]
    conf = secrets[0]["stringData"]["sssd.conf"]
    assert "data" not in secrets[0]
    assert "id_provider = proxy" in conf
    assert not re.search(r"(?i)(authtok|password|secret|key)\s*=", conf)


def test_output_has_no_key_or_password_material():
    first, second = cdk8s.App(), cdk8s.App()
    for app in (first, second):
        SlurmClusterChart(app, "slurm", cluster_name="ml", partitions=[a100(), trainium()])
    text = first.synth_yaml()
    # Generated at synth time, a key would differ between two renders; in-cluster generation keeps them equal.
    assert text == second.synth_yaml()
    # A run of 40+ base64 characters: random key bytes hold digits or '+'/'/' (all letters: odds about 1 in 4,000),
    # Kubernetes field names (requiredDuringSchedulingIgnoredDuringExecution) hold none. Image digests are public
    # hashes (the pins in core.versions), not secrets: each is taken out first, and counted.
    digests = re.findall(r"@sha256:[0-9a-f]{64}\b", text)
    assert len(set(digests)) == 3  # alpine (sidecars), python (the generator), mariadb
    runs = re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", re.sub(r"@sha256:[0-9a-f]{64}\b", "@sha256:digest", text))
    assert not [run for run in runs if re.search(r"[0-9+/]", run)], "a long base64 run looks like key material"
    for obj in yaml.safe_load_all(text):
        if obj["kind"] == "Secret":
            assert set(obj) == {"apiVersion", "kind", "metadata", "type", "stringData"}
        for container in _containers(obj):
            for env in container.get("env", []):
                if env["name"] == "SECRETS_SPEC":  # what to generate: names and sizes, never values
                    assert all(set(item) == {"name", "key", "encoding", "size"} for item in json.loads(env["value"]))
                elif env["name"].endswith("_FILE"):  # a path to a mounted Secret, no value
                    assert env["value"].startswith("/run/secrets/"), env
                elif re.search(r"(?i)pass|token|key", env["name"]):
                    assert "valueFrom" in env or env["value"] in ("1", "yes"), env


def _containers(obj: dict) -> list[dict]:
    pod = obj.get("spec", {}).get("template", {}).get("spec", {})
    return list(pod.get("containers", [])) + list(pod.get("initContainers", []))


def test_secret_generator_runs_least_privileged(objects):
    role = only(objects, "Role", "ml-secret-generator")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]}]
    binding = only(objects, "RoleBinding", "ml-secret-generator")
    assert binding["roleRef"]["name"] == "ml-secret-generator"
    assert binding["subjects"] == [{"apiGroup": "", "kind": "ServiceAccount", "name": "ml-secret-generator",
                                    "namespace": "slurm"}]
    # The account mounts no token by itself; the Job's pod, which creates the Secrets through the API, asks for it.
    assert only(objects, "ServiceAccount", "ml-secret-generator")["automountServiceAccountToken"] is False
    pod = only(objects, "Job")["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "ml-secret-generator"
    assert pod["automountServiceAccountToken"] is True
    assert pod["restartPolicy"] == "OnFailure"
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"]) == (65534, 65534)
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert_on_system_nodes(pod)
    (container,) = pod["containers"]
    assert container["securityContext"] == {"allowPrivilegeEscalation": False, "privileged": False,
                                            "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                                            "capabilities": {"drop": ["ALL"]}}
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["resources"] == {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "64Mi"}}
    (mount,) = container["volumeMounts"]
    assert mount["readOnly"] is True
    (volume,) = pod["volumes"]
    assert volume["configMap"]["name"] == only(objects, "ConfigMap", "ml-secret-generator")["metadata"]["name"]


def assert_on_system_nodes(pod: dict) -> None:
    """Required node affinity to nodes with every system node label (plus's form of a nodeSelector)."""
    assert "nodeSelector" not in pod
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}
                                         for key, value in SYSTEM_NODE_SELECTOR.items()]}


def test_the_generator_and_mariadb_are_cdk8s_plus_constructs_the_rest_plain_or_typed():
    import cdk8s_plus_28 as kplus

    chart = SlurmClusterChart(cdk8s.App(), "slurm", cluster_name="ml", partitions=[a100()])
    plus = {(type(c).__name__, cdk8s.ApiObject.of(c).name) for c in chart.node.children
            if isinstance(c, kplus.Resource)}
    assert plus == {("ServiceAccount", "ml-secret-generator"), ("Role", "ml-secret-generator"),
                    ("RoleBinding", "ml-secret-generator"), ("ConfigMap", "ml-secret-generator"),
                    ("Job", "ml-secret-generator"), ("Service", "ml-mariadb"), ("StatefulSet", "ml-mariadb")}
    # api_objects sees the ApiObjects inside the plus constructs, in the order the cluster applies them: the
    # Namespace first.
    rendered = chart.to_json()
    assert [o.to_json() for o in chart.api_objects] == rendered
    assert rendered[0]["kind"] == "Namespace"
    assert {o["kind"] for o in rendered} >= {"Namespace", "Job", "StatefulSet", "Secret", "Controller", "NodeSet"}


def test_mariadb_pod_is_pinned_hardened_and_tokenless(objects):
    database = only(objects, "StatefulSet", "ml-mariadb")
    selector = {"app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": "ml-mariadb"}
    # Our labels select the pods, not plus's cdk8s.io/metadata.addr; the headless Service routes by the same.
    assert database["spec"]["selector"] == {"matchLabels": selector}
    service = only(objects, "Service", "ml-mariadb")
    assert service["spec"]["selector"] == selector
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["ports"] == [{"name": "mysql", "port": 3306}]
    pod = database["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"] == {"runAsNonRoot": True, "runAsUser": 999, "runAsGroup": 999, "fsGroup": 999,
                                      "fsGroupChangePolicy": "Always", "seccompProfile": {"type": "RuntimeDefault"}}
    assert_on_system_nodes(pod)
    (container,) = pod["containers"]
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["imagePullPolicy"] == "IfNotPresent"
    # 4Gi, written in Mi by plus; no CPU limit.
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "4096Mi"}, "limits": {"memory": "4096Mi"}}
    assert [m["mountPath"] for m in container["volumeMounts"]] == [
        "/var/lib/mysql", "/run/mysqld", "/tmp", "/run/secrets/mariadb"]
    assert container["volumeMounts"][0]["name"] == database["spec"]["volumeClaimTemplates"][0]["metadata"]["name"]
    assert container["livenessProbe"]["initialDelaySeconds"] == 120
    assert container["livenessProbe"]["failureThreshold"] == 6


def test_mariadb_settings_reach_the_claim_and_the_container():
    objs = render(accounting=InClusterMariaDb(storage_size="20Gi", storage_class="gp3", cpu="500m", memory="1536Mi"))
    database = only(objs, "StatefulSet", "ml-mariadb")
    (claim,) = database["spec"]["volumeClaimTemplates"]
    assert claim["spec"] == {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                             "storageClassName": "gp3"}
    (container,) = database["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == {"requests": {"cpu": "500m", "memory": "1536Mi"}, "limits": {"memory": "1536Mi"}}


def test_mariadb_memory_must_be_whole_mebibytes():
    # plus writes memory in Mi: 4G (3814.7Mi) cannot be written exactly, so it is refused, not rounded.
    with pytest.raises(ValueError, match=r"accounting memory='4G' is not allowed: use a whole number of mebibytes"):
        render(accounting=InClusterMariaDb(memory="4G"))


# --- the generator script, run against a local fake API server ----------------------------------------------------


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "ca.crt", folder / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class FakeApiServer:
    """Answers POST .../secrets like the API server: 201, or 409 for names in `existing`, or `fail_with`."""

    def __init__(self, tls_files, existing=(), fail_with=None):
        self.requests: list[tuple[str, dict, dict]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, dict(self.headers), body))
                code = fail_with or (409 if body["metadata"]["name"] in existing else 201)
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls_files)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def run_generator(objects, tls_files, tmp_path, server) -> subprocess.CompletedProcess:
    account = tmp_path / "account"
    account.mkdir(exist_ok=True)
    (account / "token").write_text("test-token\n")
    (account / "namespace").write_text("slurm")
    (account / "ca.crt").write_bytes(tls_files[0].read_bytes())
    script = tmp_path / "generate_secrets.py"
    script.write_text(only(objects, "ConfigMap", "ml-secret-generator")["data"]["generate_secrets.py"])
    container = only(objects, "Job")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    env.update(PATH=os.environ.get("PATH", ""), SERVICE_ACCOUNT_DIR=str(account),
               KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(server.server.server_address[1]))
    return subprocess.run([sys.executable, "-B", str(script)], env=env, capture_output=True, text=True, timeout=30)


def test_generator_creates_each_secret_with_fresh_random_bytes(objects, tls_files, tmp_path):
    values = []
    for _ in range(2):
        with FakeApiServer(tls_files) as server:
            result = run_generator(objects, tls_files, tmp_path, server)
        assert result.returncode == 0, result.stderr
        paths = {path for path, _, _ in server.requests}
        assert paths == {"/api/v1/namespaces/slurm/secrets"}
        assert all(headers["Authorization"] == "Bearer test-token" for _, headers, _ in server.requests)
        bodies = {body["metadata"]["name"]: body for _, _, body in server.requests}
        assert set(bodies) == {"ml-slurm-key", "ml-jwt-key", "ml-mariadb-password"}
        decoded = {name: base64.b64decode(next(iter(b["data"].values()))) for name, b in bodies.items()}
        assert len(decoded["ml-slurm-key"]) == 1024
        assert len(decoded["ml-jwt-key"]) == 32
        assert re.fullmatch(rb"[A-Za-z0-9_-]{43}", decoded["ml-mariadb-password"])
        assert all(b["immutable"] is True and b["type"] == "Opaque" for b in bodies.values())
        assert bodies["ml-slurm-key"]["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"
        values.append(decoded)
    assert all(values[0][name] != values[1][name] for name in values[0])


def test_generator_leaves_existing_secrets_alone_and_fails_on_other_errors(objects, tls_files, tmp_path):
    with FakeApiServer(tls_files, existing={"ml-slurm-key"}) as server:
        result = run_generator(objects, tls_files, tmp_path, server)
    assert result.returncode == 0, result.stderr
    assert "ml-slurm-key already exists; left unchanged" in result.stdout
    with FakeApiServer(tls_files, fail_with=403) as server:
        result = run_generator(objects, tls_files, tmp_path, server)
    assert result.returncode == 1
    assert "HTTP 403" in result.stderr


# --- one-line errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: a100(name="GPU_A100"), "SlurmPartition.name='GPU_A100'"),
        (lambda: a100(name="default"), "SlurmPartition.name='default'"),
        (lambda: a100(name="a" * 25), f"SlurmPartition.name={'a' * 25!r}"),
        (lambda: a100(replicas=-1), "replicas=-1"),
        (lambda: a100(accelerator="amd"), "accelerator='amd'"),
        (lambda: a100(accelerator="neuron"), "accelerator='neuron'"),
        (lambda: a100(instance_type="m5.large"), "instance_type='m5.large'"),
        (lambda: a100(devices_per_node=9), "devices_per_node=9"),
        (lambda: trainium(efa_interfaces=9), "efa_interfaces=9"),
        (lambda: a100(cpu="96"), "cpu='96'"),
        (lambda: a100(memory="2Ti"), "memory='2Ti'"),
        (lambda: a100(memory="lots"), "memory='lots'"),
        (lambda: a100(max_nodes=5), "max_nodes=5"),
        (lambda: a100(features=("a100 nvlink",)), "features entry='a100 nvlink'"),
        (lambda: render(partitions=[a100(), a100()]), "partition names='gpu-a100'"),
        (lambda: render(partitions=[]), "partitions=[]"),
        (lambda: render(slurm_image_tag="24.05"), "slurm_image_tag='24.05'"),
        (lambda: render(slurm_image_tag="latest"), "slurm_image_tag='latest'"),
        (lambda: render(cluster_name="ML_Cluster"), "cluster_name='ML_Cluster'"),
        (lambda: render(cluster_name="c" * 31), f"cluster_name={'c' * 31!r}"),
        (lambda: render(rest_api_replicas=0), "rest_api_replicas=0"),
        (lambda: SlurmLoginSettings(replicas=0), "login.replicas=0"),
        (lambda: SlurmLoginSettings(load_balancer=True), "login.source_ranges=()"),
        (lambda: SlurmLoginSettings(load_balancer=True, internet_facing=True, source_ranges=("10.0.0.0/8",)),
         "login.internet_facing=True"),
        (lambda: SlurmLoginSettings(source_ranges=("10.0.0.0/8",)), "login.load_balancer=False"),
        (lambda: SlurmLoginSettings(root_ssh_authorized_keys=("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHxample a@b",)),
         "login.root_ssh_authorized_keys='1 key(s)'"),
        (lambda: SlurmLoginSettings(sssd_conf_secret="Not_A_Name"), "login.sssd_conf_secret='Not_A_Name'"),
        (lambda: SlurmLoginSettings(source_ranges=("10.0.0.0/33",)), "login.source_ranges entry='10.0.0.0/33'"),
        (lambda: SlurmLoginSettings(root_ssh_authorized_keys=("hunter2",)), "login.root_ssh_authorized_keys entry='hunter2'"),
        (lambda: SlurmControllerSettings(storage_class="GP3"), "controller.storage_class='GP3'"),
        (lambda: InClusterMariaDb(storage_size="0Gi"), "accounting.storage_size='0Gi'"),
        (lambda: ExternalMariaDb(host="db", password_secret_name="s", port=70000), "accounting.port=70000"),
        (lambda: ExternalMariaDb(host="", password_secret_name="s"), "accounting.host=''"),
    ],
)
def test_bad_input_gets_a_one_line_error_naming_field_and_value(make, expected):
    with pytest.raises(ValueError) as raised:
        make()
    message = str(raised.value)
    # The one format: the field and the bad value, then what is allowed.
    assert f"{expected} is not allowed: " in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("options", "field", "allowed"),
    [
        ({"controller": {"replicas": 1}}, "controller", "use a SlurmControllerSettings"),
        ({"login": "ssh"}, "login", "use a SlurmLoginSettings"),
        ({"accounting": "mariadb"}, "accounting", "use InClusterMariaDb(), ExternalMariaDb(...) or None"),
        ({"partitions": ["gpu-a100"]}, "partitions", "give one or more SlurmPartition objects"),
    ],
)
def test_the_chart_names_the_settings_object_it_wants(options, field, allowed):
    from eks_training.core.validation import InvalidValue

    with pytest.raises(InvalidValue) as raised:
        render(**options)
    assert (raised.value.field, raised.value.value, raised.value.allowed) == (field, options[field], allowed)
