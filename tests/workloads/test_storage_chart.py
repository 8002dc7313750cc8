"""StorageChart: rendered standalone, every object validated, binding and token pass-through checked."""

from __future__ import annotations

import aws_cdk
import cdk8s
import pytest
import yaml

from eks_training.workloads.storage import FsxVolume, StorageChart
from support.k8s_schemas import chart_objects, validate_chart

FSX = FsxVolume(
    file_system_id="fs-0123456789abcdef0",
    dns_name="fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
    mount_name="abcdef12",
    capacity_gib=4800,
)
EFS_ID = "fs-0fedcba9876543210"
NAMESPACES = ["training", "research"]


def _chart(**values) -> StorageChart:
    return StorageChart(cdk8s.App(), "storage", **values)


def _full_chart() -> StorageChart:
    return _chart(
        namespaces=NAMESPACES,
        fsx=FSX,
        efs_file_system_id=EFS_ID,
        efs_access_point_ids={"research": "fsap-0123456789abcdef0"},
        scratch_storage_class=True,
        scratch_subnet_id="subnet-0123456789abcdef0",
        scratch_security_group_ids=["sg-0123456789abcdef0", "sg-0fedcba9876543210"],
    )


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return validate_chart(_full_chart())


def _find(objects: list[dict], kind: str, name: str, namespace: str | None = None) -> dict:
    (found,) = [
        o for o in objects
        if o["kind"] == kind and o["metadata"]["name"] == name and o["metadata"].get("namespace") == namespace
    ]
    return found


def test_every_object_is_valid_and_labelled(objects) -> None:
    kinds = sorted((o["kind"], o["metadata"]["name"], o["metadata"].get("namespace")) for o in objects)
    (job,) = [name for kind, name, _ in kinds if kind == "Job"]
    assert kinds == sorted([
        ("PersistentVolume", "fsx-data-training", None),
        ("PersistentVolume", "fsx-data-research", None),
        ("PersistentVolume", "fsx-workspace-training", None),
        ("PersistentVolume", "fsx-workspace-research", None),
        ("PersistentVolumeClaim", "fsx-data", "training"),
        ("PersistentVolumeClaim", "fsx-data", "research"),
        ("PersistentVolumeClaim", "fsx-workspace", "training"),
        ("PersistentVolumeClaim", "fsx-workspace", "research"),
        ("PersistentVolume", "fsx-root", None),
        ("PersistentVolumeClaim", "fsx-root", "kube-system"),
        ("Job", job, "kube-system"),
        ("StorageClass", "efs-models", None),
        ("PersistentVolumeClaim", "models", "training"),
        ("PersistentVolume", "models-research", None),
        ("PersistentVolumeClaim", "models", "research"),
        ("StorageClass", "fsx-lustre-scratch", None),
        ("StorageClass", "gp3", None),
    ])
    for obj in objects:
        labels = obj["metadata"]["labels"]
        assert labels["app.kubernetes.io/part-of"] == "eks-training"
        assert labels["app.kubernetes.io/component"] in ("fsx-lustre", "efs-models", "block-storage")


def _fsx_volume_of(objects, claim: str, namespace: str) -> tuple[dict, dict]:
    claim_object = _find(objects, "PersistentVolumeClaim", claim, namespace)
    volume = _find(objects, "PersistentVolume", claim_object["spec"]["volumeName"])
    assert volume["spec"]["claimRef"] == {"namespace": namespace, "name": claim}  # pre-bound both ways
    return volume, claim_object


def test_each_namespace_mounts_only_its_workspace_read_write_and_the_data_read_only(objects) -> None:
    for namespace in NAMESPACES:
        workspace, workspace_claim = _fsx_volume_of(objects, "fsx-workspace", namespace)
        data, data_claim = _fsx_volume_of(objects, "fsx-data", namespace)
        # The driver mounts <dnsname>@tcp:/<mountname>: a mountname with a path mounts only that directory.
        assert workspace["spec"]["csi"]["volumeAttributes"] == {
            "dnsname": FSX.dns_name, "mountname": f"{FSX.mount_name}/workspaces/{namespace}"}
        assert data["spec"]["csi"]["volumeAttributes"] == {"dnsname": FSX.dns_name, "mountname": f"{FSX.mount_name}/data"}
        assert workspace["spec"]["accessModes"] == workspace_claim["spec"]["accessModes"] == ["ReadWriteMany"]
        assert "readOnly" not in workspace["spec"]["csi"]
        # Read-only at the source: whatever a pod's volumeMount says, the driver mounts it `ro`.
        assert data["spec"]["csi"]["readOnly"] is True
        assert data["spec"]["accessModes"] == data_claim["spec"]["accessModes"] == ["ReadOnlyMany"]
        for volume, claim in ((workspace, workspace_claim), (data, data_claim)):
            assert volume["spec"]["storageClassName"] == claim["spec"]["storageClassName"] == ""
            assert volume["spec"]["capacity"] == {"storage": "4800Gi"}
            assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
            assert volume["spec"]["mountOptions"] == ["flock"]
            assert volume["spec"]["csi"]["volumeHandle"].startswith(FSX.file_system_id + "::")
        # A pod mounts both: kubelet never mounts two PVs of one handle in one pod (aws-fsx-csi-driver#328).
        assert workspace["spec"]["csi"]["volumeHandle"] != data["spec"]["csi"]["volumeHandle"]


def test_growing_the_file_system_changes_the_volumes_capacity_and_no_claim() -> None:
    # Kubernetes refuses to change a static claim's request (PersistentVolumeClaimResize): a claim that followed the
    # capacity would fail the deploy of every FSx growth, with the file system already grown (it never shrinks).
    def fsx_objects(capacity_gib: int) -> list[dict]:
        grown = FsxVolume(FSX.file_system_id, FSX.dns_name, FSX.mount_name, capacity_gib)
        return chart_objects(_chart(namespaces=NAMESPACES, fsx=grown))

    before, after = fsx_objects(4800), fsx_objects(7200)
    claims = [[o for o in objects if o["kind"] == "PersistentVolumeClaim"] for objects in (before, after)]
    assert claims[0] == claims[1] and len(claims[0]) == 2 * len(NAMESPACES) + 1  # + the workspace Job's root claim
    assert {c["spec"]["resources"]["requests"]["storage"] for c in claims[0]} == {"1200Gi"}  # FSx's smallest size
    volumes = [o for o in after if o["kind"] == "PersistentVolume"]
    assert volumes and {v["spec"]["capacity"]["storage"] for v in volumes} == {"7200Gi"}  # may change in place


def test_no_training_namespace_can_reach_the_file_system_root(objects) -> None:
    roots = [o for o in objects if o["kind"] == "PersistentVolume" and o["spec"]["csi"]["driver"] == "fsx.csi.aws.com"
             and o["spec"]["csi"]["volumeAttributes"]["mountname"] == FSX.mount_name]
    assert [r["spec"]["claimRef"] for r in roots] == [{"namespace": "kube-system", "name": "fsx-root"}]


def test_the_workspace_job_creates_every_workspace_before_pods_mount_them(objects) -> None:
    (job,) = [o for o in objects if o["kind"] == "Job"]
    pod = job["spec"]["template"]["spec"]
    # System nodes only, as required node affinity (plus's form of a nodeSelector).
    assert "nodeSelector" not in pod
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == {"matchExpressions": [{"key": "eks-training/role", "operator": "In", "values": ["system"]}]}
    assert pod["automountServiceAccountToken"] is False
    assert pod["restartPolicy"] == "OnFailure"
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (container,) = pod["containers"]
    # uid 0 (root owns the file system root), and nothing else of root's: no capability, no escalation, read-only
    # root file system; runAsNonRoot false, not plus's true, which would refuse to start it.
    assert container["securityContext"] == {"runAsUser": 0, "runAsNonRoot": False, "privileged": False,
                                            "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "capabilities": {"drop": ["ALL"]}}
    assert pod["securityContext"]["runAsNonRoot"] is False
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["resources"] == {"requests": {"cpu": "50m", "memory": "32Mi"},
                                      "limits": {"cpu": "200m", "memory": "64Mi"}}
    (mount,) = container["volumeMounts"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["persistentVolumeClaim"]["claimName"] == "fsx-root"
    script = container["command"][-1]
    for namespace in NAMESPACES:
        for sub in ("checkpoints", "datasets", "logs", "ray-results"):
            assert f"{mount['mountPath']}/workspaces/{namespace}/{sub}" in script.split()


def test_the_workspace_job_is_a_cdk8s_plus_job_and_the_volumes_stay_plain() -> None:
    import cdk8s_plus_28 as kplus

    chart = _chart(namespaces=NAMESPACES, fsx=FSX)
    (job,) = [c for c in chart.node.children if isinstance(c, kplus.Job)]
    assert cdk8s.ApiObject.of(job).metadata.namespace == "kube-system"
    assert job.automount_service_account_token is False
    # plus has no class for a CSI PersistentVolume: volumes and claims are plain ApiObjects of the chart.
    plain = [c.kind for c in chart.node.children if isinstance(c, cdk8s.ApiObject)]
    assert set(plain) == {"StorageClass", "PersistentVolume", "PersistentVolumeClaim"}
    assert [o.to_json() for o in chart.api_objects] == chart.to_json()


def test_a_new_namespace_list_is_a_new_workspace_job() -> None:
    # A Job's pod template is immutable: changing what it creates must change its name, or the apply fails.
    def job_name(namespaces):
        return [o for o in chart_objects(_chart(namespaces=namespaces, fsx=FSX)) if o["kind"] == "Job"][0]["metadata"]["name"]

    assert job_name(["training"]) == job_name(["training"])
    assert job_name(["training"]) != job_name(["training", "research"])


def _workspace_job() -> dict:
    (job,) = [o for o in chart_objects(_chart(namespaces=NAMESPACES, fsx=FSX)) if o["kind"] == "Job"]
    return job


@pytest.mark.parametrize("change", ["toleration", "image", "memory limit"])
def test_any_change_to_the_workspace_jobs_template_is_a_new_job(monkeypatch, change) -> None:
    # The script stays the same: a name that hashed only the script would be kept, and the apply of a changed pod
    # template under it refused (a Job's template is immutable).
    from eks_training.workloads import fsx_volumes, plus_pods

    before = _workspace_job()
    assert _workspace_job() == before  # rendered twice, unchanged: the same name
    if change == "toleration":
        monkeypatch.setattr(plus_pods, "SYSTEM_NODE_TOLERATIONS",
                            (*plus_pods.SYSTEM_NODE_TOLERATIONS, {"key": "eks-training/upgrading", "operator": "Exists"}))
    elif change == "image":
        monkeypatch.setattr(fsx_volumes, "WORKSPACE_JOB_IMAGE", "docker.io/library/busybox:1.37")
    else:
        real = plus_pods.requests_with_memory_limit
        monkeypatch.setattr(plus_pods, "requests_with_memory_limit",
                            lambda *args, **kwargs: real(*args, **{**kwargs, "memory_limit": "128Mi"}))
    after = _workspace_job()
    command = lambda job: job["spec"]["template"]["spec"]["containers"][0]["command"]  # noqa: E731
    assert command(after) == command(before) and after["spec"]["template"] != before["spec"]["template"]
    assert after["metadata"]["name"] != before["metadata"]["name"]
    assert after["metadata"]["name"].startswith("fsx-workspaces-")


def test_a_storage_chart_without_the_workspace_job_keeps_the_root_claim_the_job_mounts() -> None:
    from eks_training.workloads.fsx_volumes import ROOT_CLAIM_NAME, add_workspace_directories_job

    objects = chart_objects(_chart(namespaces=NAMESPACES, fsx=FSX, workspace_job=False))
    assert "Job" not in {o["kind"] for o in objects}
    assert _find(objects, "PersistentVolumeClaim", ROOT_CLAIM_NAME, "kube-system")
    apart = cdk8s.Chart(cdk8s.App(), "storage")
    add_workspace_directories_job(apart, NAMESPACES)
    (job,) = apart.to_json()
    assert job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == ROOT_CLAIM_NAME


def test_the_workspace_job_really_creates_the_directories(tmp_path) -> None:
    import shutil
    import subprocess

    if shutil.which("sh") is None:
        pytest.skip("no POSIX shell on this machine to run the Job's script")
    (job,) = [o for o in chart_objects(_chart(namespaces=NAMESPACES, fsx=FSX)) if o["kind"] == "Job"]
    (container,) = job["spec"]["template"]["spec"]["containers"]
    mount_path = container["volumeMounts"][0]["mountPath"]
    script = container["command"][-1].replace(mount_path, str(tmp_path))
    subprocess.run([*container["command"][:-1], script], check=True)
    subprocess.run([*container["command"][:-1], script], check=True)  # idempotent: a rerun succeeds
    for namespace in NAMESPACES:
        workspace = tmp_path / "workspaces" / namespace
        assert sorted(p.name for p in workspace.iterdir()) == ["checkpoints", "datasets", "logs", "ray-results"]
        assert workspace.stat().st_mode & 0o777 == 0o777


def test_efs_storage_class_and_claims(objects) -> None:
    storage_class = _find(objects, "StorageClass", "efs-models")
    assert storage_class["provisioner"] == "efs.csi.aws.com"
    assert storage_class["parameters"]["provisioningMode"] == "efs-ap"
    assert storage_class["parameters"]["fileSystemId"] == EFS_ID
    assert storage_class["reclaimPolicy"] == "Retain"
    dynamic = _find(objects, "PersistentVolumeClaim", "models", "training")
    assert dynamic["spec"]["storageClassName"] == "efs-models"
    assert "volumeName" not in dynamic["spec"]
    static = _find(objects, "PersistentVolumeClaim", "models", "research")
    assert static["spec"]["volumeName"] == "models-research"
    volume = _find(objects, "PersistentVolume", "models-research")
    assert volume["spec"]["csi"] == {"driver": "efs.csi.aws.com", "volumeHandle": f"{EFS_ID}::fsap-0123456789abcdef0"}


def test_scratch_storage_class_is_scratch_2_without_throughput(objects) -> None:
    storage_class = _find(objects, "StorageClass", "fsx-lustre-scratch")
    assert storage_class["provisioner"] == "fsx.csi.aws.com"
    assert storage_class["parameters"]["deploymentType"] == "SCRATCH_2"
    assert storage_class["parameters"]["subnetId"] == "subnet-0123456789abcdef0"
    assert storage_class["parameters"]["securityGroupIds"] == "sg-0123456789abcdef0,sg-0fedcba9876543210"
    assert "perUnitStorageThroughput" not in storage_class["parameters"]


def test_synth_yaml_renders_the_same_objects() -> None:
    app = cdk8s.App()
    chart = StorageChart(app, "storage", namespaces=["training"], fsx=FSX)
    documents = [d for d in yaml.safe_load_all(app.synth_yaml()) if d]
    assert documents == chart_objects(chart)
    assert [d["kind"] for d in documents] == ["StorageClass", *["PersistentVolume", "PersistentVolumeClaim"] * 3, "Job"]


def test_the_default_storage_class_is_encrypted_gp3_and_the_only_default() -> None:
    objects = chart_objects(StorageChart(cdk8s.App(), "storage", namespaces=["training"], fsx=FSX, scratch_storage_class=True,
                                         scratch_subnet_id="subnet-0123456789abcdef0",
                                         scratch_security_group_ids=["sg-0123456789abcdef0"]))
    defaults = [o for o in objects if o["kind"] == "StorageClass"
                and o["metadata"].get("annotations", {}).get("storageclass.kubernetes.io/is-default-class") == "true"]
    assert [(d["metadata"]["name"], d["provisioner"], d["parameters"]) for d in defaults] == [
        ("gp3", "ebs.csi.aws.com", {"type": "gp3", "encrypted": "true"})]
    assert defaults[0]["volumeBindingMode"] == "WaitForFirstConsumer"  # the volume follows the pod's zone


def test_cdk_tokens_pass_through_into_the_manifest() -> None:
    stack = aws_cdk.Stack(aws_cdk.App(), "Tokens")
    file_system_id = aws_cdk.Fn.ref("LustreFileSystem")
    dns_name = aws_cdk.Fn.get_att("LustreFileSystem", "DNSName").to_string()
    mount_name = aws_cdk.Fn.get_att("LustreFileSystem", "LustreMountName").to_string()
    subnet = aws_cdk.Fn.import_value("TrainingSubnet")
    chart = _chart(
        namespaces=["training"],
        fsx=FsxVolume(file_system_id, dns_name, mount_name, 1200),
        efs_file_system_id=aws_cdk.Fn.ref("ModelsFileSystem"),
        scratch_storage_class=True,
        scratch_subnet_id=subnet,
        scratch_security_group_ids=[aws_cdk.Fn.import_value("FsxSg")],
    )
    objects = validate_chart(chart)
    volume = _find(objects, "PersistentVolume", "fsx-workspace-training")
    attributes = stack.resolve(volume["spec"]["csi"]["volumeAttributes"])
    assert attributes["dnsname"] == {"Fn::GetAtt": ["LustreFileSystem", "DNSName"]}
    assert attributes["mountname"] == {"Fn::Join": ["", [{"Fn::GetAtt": ["LustreFileSystem", "LustreMountName"]},
                                                         "/workspaces/training"]]}
    assert stack.resolve(volume["spec"]["csi"]["volumeHandle"]) == {"Fn::Join": ["", [{"Ref": "LustreFileSystem"},
                                                                                    "::/workspaces/training"]]}
    root = _find(objects, "PersistentVolume", "fsx-root")
    assert stack.resolve(root["spec"]["csi"]["volumeHandle"]) == {"Ref": "LustreFileSystem"}
    scratch = _find(objects, "StorageClass", "fsx-lustre-scratch")
    assert stack.resolve(scratch["parameters"]["subnetId"]) == {"Fn::ImportValue": "TrainingSubnet"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"namespaces": []}, "namespaces=[] is not allowed"),
        ({"namespaces": ["Training"]}, "namespaces='Training' is not allowed: use 1-63 lowercase letters"),
        ({"namespaces": ["a", "a"]}, "namespaces='a' is not allowed: each must be unique (it is given twice)"),
        ({"namespaces": ["a"], "default_storage_class_name": None}, "give at least one of them"),
        ({"namespaces": ["a"], "default_storage_class_name": "GP3"}, "default_storage_class_name='GP3'"),
        ({"namespaces": ["a"], "efs_file_system_id": "fs-xyz"}, "efs_file_system_id='fs-xyz' is not allowed"),
        ({"namespaces": ["a"], "efs_file_system_id": EFS_ID, "models_claim_size": "lots"}, "models_claim_size='lots'"),
        ({"namespaces": ["a"], "efs_file_system_id": EFS_ID, "efs_base_path": "models"}, "efs_base_path='models'"),
        (
            {"namespaces": ["a"], "efs_file_system_id": EFS_ID, "efs_access_point_ids": {"b": "fsap-0123456789abcdef0"}},
            "efs_access_point_ids keys=['b'] is not allowed: use namespaces from ['a']",
        ),
        (
            {"namespaces": ["a"], "efs_file_system_id": EFS_ID, "efs_access_point_ids": {"a": "ap-1"}},
            "efs_access_point_ids['a']='ap-1' is not allowed",
        ),
        ({"namespaces": ["a"], "fsx": FSX, "efs_access_point_ids": {"a": "fsap-0123456789abcdef0"}},
         "efs_access_point_ids={'a': 'fsap-0123456789abcdef0'} is not allowed: give them only with efs_file_system_id"),
        ({"namespaces": ["a"], "scratch_storage_class": True}, "scratch_subnet_id=None is not allowed"),
        (
            {"namespaces": ["a"], "scratch_storage_class": True, "scratch_subnet_id": "subnet-0123456789abcdef0"},
            "scratch_security_group_ids=() is not allowed",
        ),
        (
            {"namespaces": ["a"], "scratch_storage_class": True, "scratch_subnet_id": "sub-1", "scratch_security_group_ids": ["sg-0123456789abcdef0"]},
            "scratch_subnet_id='sub-1' is not allowed",
        ),
        ({"namespaces": ["a"], "fsx": FSX, "scratch_subnet_id": "subnet-0123456789abcdef0"},
         "scratch_subnet_id='subnet-0123456789abcdef0' is not allowed: set scratch_storage_class=True"),
        ({"namespaces": ["a"], "fsx": {"file_system_id": "fs-1"}}, "fsx={'file_system_id': 'fs-1'} is not allowed"),
    ],
)
def test_bad_values_raise_one_line_errors(values: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _chart(**values)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"file_system_id": "fsx-123"}, "file_system_id='fsx-123' is not allowed"),
        ({"dns_name": "not a host"}, "dns_name='not a host' is not allowed"),
        ({"mount_name": "Mount_Name"}, "mount_name='Mount_Name' is not allowed"),
        ({"capacity_gib": 0}, "capacity_gib=0 is not allowed"),
    ],
)
def test_bad_fsx_volume_fields_raise_one_line_errors(fields: dict, message: str) -> None:
    values = {
        "file_system_id": FSX.file_system_id, "dns_name": FSX.dns_name, "mount_name": FSX.mount_name, "capacity_gib": 1200,
    } | fields
    with pytest.raises(ValueError) as caught:
        FsxVolume(**values)
    assert message in str(caught.value)


def test_lustre_storage_attributes_feed_the_chart() -> None:
    from aws_cdk import aws_ec2 as ec2

    from eks_training.constructs.storage import LustreStorage

    stack = aws_cdk.Stack(aws_cdk.App(), "Platform")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=1, nat_gateways=0)
    lustre = LustreStorage(stack, "Lustre", vpc=vpc, subnet=vpc.public_subnets[0], capacity_gib=2400)
    volume = FsxVolume(lustre.file_system_id, lustre.dns_name, lustre.mount_name, 2400)
    objects = validate_chart(_chart(namespaces=["training"], fsx=volume))
    csi = stack.resolve(_find(objects, "PersistentVolume", "fsx-root")["spec"]["csi"])
    logical_id = stack.get_logical_id(lustre.file_system)
    assert csi["volumeHandle"] == {"Ref": logical_id}
    assert csi["volumeAttributes"] == {
        "dnsname": {"Fn::GetAtt": [logical_id, "DNSName"]},
        "mountname": {"Fn::GetAtt": [logical_id, "LustreMountName"]},
    }
