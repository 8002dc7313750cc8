"""FSx isolation in `eks-training check`: the shipped platform gives each namespace only its own workspace and the
shared data read-only; each way of opening the file system further (today's root volume among them) fails."""

from __future__ import annotations

import copy

import pytest
from support import upstream_data

from eks_training.infra.tools.check.deploy_check import check_snapshot, render_all_jobs
from eks_training.infra.tools.check.fsx_isolation import FsxVolume, volume_findings
from eks_training.infra.tools.check.snapshot import load_snapshot

pytestmark = upstream_data.requires(*upstream_data.installed_charts())


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


def _fsx_findings(prod, jobs, snap) -> list[str]:
    report = check_snapshot(snap, config=prod.config, jobs=copy.deepcopy(jobs))
    return [f"{f.subject} {f.field}: {f.message}" for f in report.failures if f.area == "storage"]


def _volume(snap, name: str) -> dict:
    (found,) = [o for _, o in snap.objects() if o["kind"] == "PersistentVolume" and o["metadata"]["name"] == name]
    return found


def test_the_shipped_platform_mounts_sub_directories_only(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    assert _fsx_findings(prod, prod_jobs, snap) == []
    mount_names = {o["metadata"]["name"]: o["spec"]["csi"]["volumeAttributes"]["mountname"]
                   for _, o in snap.objects() if o["kind"] == "PersistentVolume"
                   and o["spec"]["csi"]["driver"] == "fsx.csi.aws.com"}
    for namespace in [n.name for n in prod.config.training_namespaces]:
        assert mount_names[f"fsx-workspace-{namespace}"].endswith(f"/workspaces/{namespace}")
        assert mount_names[f"fsx-data-{namespace}"].endswith("/data")


def test_todays_root_volume_per_namespace_fails(prod, prod_jobs) -> None:
    # Before: every namespace's FSx volume mounted the file system root read-write.
    snap = load_snapshot(copy.deepcopy(prod.template))
    volume = _volume(snap, "fsx-workspace-training")
    mount_name = volume["spec"]["csi"]["volumeAttributes"]["mountname"]
    volume["spec"]["csi"]["volumeAttributes"]["mountname"] = mount_name.split("/", 1)[0]
    findings = _fsx_findings(prod, prod_jobs, snap)
    assert any("fsx-workspace-training" in f and "mounts the file system root in namespace 'training'" in f
               for f in findings), findings


def test_a_writable_data_volume_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    del _volume(snap, "fsx-data-ai-research")["spec"]["csi"]["readOnly"]
    findings = _fsx_findings(prod, prod_jobs, snap)
    assert any("fsx-data-ai-research (claim ai-research/fsx-data) csi.readOnly" in f and "writable" in f
               for f in findings), findings


def test_another_namespaces_workspace_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    attributes = _volume(snap, "fsx-workspace-ai-research")["spec"]["csi"]["volumeAttributes"]
    attributes["mountname"] = attributes["mountname"].replace("/workspaces/ai-research", "/workspaces/training")
    findings = _fsx_findings(prod, prod_jobs, snap)
    assert any("the workspace of 'training', in namespace 'ai-research'" in f for f in findings), findings


def test_two_volumes_of_one_handle_in_a_namespace_fail(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    data = _volume(snap, "fsx-data-training")
    data["spec"]["csi"]["volumeHandle"] = _volume(snap, "fsx-workspace-training")["spec"]["csi"]["volumeHandle"]
    findings = _fsx_findings(prod, prod_jobs, snap)
    assert any("csi.volumeHandle" in f and "aws-fsx-csi-driver#328" in f for f in findings), findings


def test_a_job_in_a_namespace_without_the_claims_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    for objects in snap.manifests.values():
        objects[:] = [o for o in objects if not (o["kind"] == "PersistentVolumeClaim"
                                                 and o["metadata"].get("namespace") == "training")]
    findings = _fsx_findings(prod, prod_jobs, snap)
    assert any(f.startswith("job pytorch-job") and "claim 'fsx-workspace' does not exist in namespace 'training'" in f
               for f in findings), findings


@pytest.mark.parametrize(
    ("volume", "fails"),
    [
        (FsxVolume("v", "team-a", "c", "/workspaces/team-a", False, "h"), False),
        (FsxVolume("v", "team-a", "c", "/workspaces/team-a/sub", False, "h"), False),
        (FsxVolume("v", "team-a", "c", "/workspaces/team-ab", False, "h"), True),  # a prefix is not the namespace
        (FsxVolume("v", "team-a", "c", "/workspaces", False, "h"), True),  # every namespace's workspace
        (FsxVolume("v", "team-a", "c", "/data", True, "h"), False),
        (FsxVolume("v", "team-a", "c", "/data/wiki", False, "h"), True),
        (FsxVolume("v", "team-a", "c", "/", True, "h"), True),  # the root, even read-only: every workspace
        (FsxVolume("v", "kube-system", "c", "/", False, "h"), False),
    ],
)
def test_volume_rules(volume, fails) -> None:
    assert bool(volume_findings([volume])) is fails


def test_the_shipped_links_keep_s3_copies_of_pruned_checkpoints(prod) -> None:
    # The trainer prunes old checkpoints on FSx (--keep-last); README promises their S3 copies stay.
    links = {r["Properties"]["FileSystemPath"]: r["Properties"]["S3"] for r in prod.template["Resources"].values()
             if r["Type"] == "AWS::FSx::DataRepositoryAssociation"}
    assert set(links) == {"/data", "/workspaces"}
    assert links["/workspaces"]["AutoExportPolicy"]["Events"] == ["NEW", "CHANGED"]
    assert "DELETED" not in links["/workspaces"]["AutoImportPolicy"]["Events"]
    assert links["/data"] == {"AutoImportPolicy": {"Events": ["NEW", "CHANGED", "DELETED"]}}
