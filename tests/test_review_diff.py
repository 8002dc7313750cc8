"""`eks-training review-diff`: two review folders compared object by object, with the fields that changed."""

from __future__ import annotations

from pathlib import Path

import yaml

from eks_training.infra.tools.cli import main

PRUNE = "aws.cdk.eks/prune-c8" + "0" * 40


def _deployment(image: str, replicas: int, env: dict[str, str], prune: str = PRUNE) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system", "labels": {prune: ""}},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                {"name": "sidecar", "image": "busybox:1"},
                {"name": "manager", "image": image, "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}


def _review(folder: Path, objects: list[dict], releases: list[dict]) -> Path:
    folder.mkdir(parents=True)
    (folder / "kueue.yaml").write_text("# Applied by CloudFormation resource X\n" + yaml.safe_dump_all(objects))
    (folder / "helm-releases.yaml").write_text(yaml.safe_dump({"releases": releases}))
    (folder / "summary.json").write_text("{}\n")
    return folder


def _namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def test_added_removed_and_changed_objects_with_their_fields(tmp_path: Path, capsys) -> None:
    release = {"release": "karpenter", "namespace": "kube-system", "chart": "karpenter", "version": "1.8.1",
               "values": {"settings": {"clusterName": "eks-training-prod"}}}
    old = _review(tmp_path / "old", [_namespace("team-a"), _namespace("kept"),
                                     _deployment("kueue:v0.14.0", 1, {"A": "1", "B": "2"})], [release])
    new = _review(tmp_path / "new", [_namespace("team-b"), _namespace("kept"),
                                     # the containers reordered: matched by name, not by position
                                     {**_deployment("kueue:v0.14.1", 2, {"B": "3", "A": "1"}, PRUNE.replace("0", "1"))}],
                  [{**release, "version": "1.8.2"}])
    new_deployment = yaml.safe_load_all((new / "kueue.yaml").read_text())
    objects = list(new_deployment)
    objects[2]["spec"]["template"]["spec"]["containers"].reverse()
    (new / "kueue.yaml").write_text(yaml.safe_dump_all(objects))
    assert main(["review-diff", str(old), str(new)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "~ Deployment/kueue-system/kueue-controller-manager  (kueue.yaml)",
        f"    metadata.labels.aws.cdk.eks/prune: c8{'0' * 40} -> c8{'1' * 40}",
        "    spec.replicas: 1 -> 2",
        "    spec.template.spec.containers[name=manager].env[name=B].value: 2 -> 3",
        "    spec.template.spec.containers[name=manager].image: kueue:v0.14.0 -> kueue:v0.14.1",
        "~ HelmRelease/kube-system/karpenter  (helm-releases.yaml)",
        "    version: 1.8.1 -> 1.8.2",
        "- Namespace/-/team-a  (kueue.yaml)",
        "+ Namespace/-/team-b  (kueue.yaml)",
        "1 added, 1 removed, 2 changed, 1 unchanged",
    ]


def test_long_values_are_shown_where_they_differ(tmp_path: Path, capsys) -> None:
    uri = "111122223333.dkr.ecr.us-west-2.amazonaws.com/cdk-hnb659fds-container-assets-111122223333-us-west-2:"
    old = _review(tmp_path / "old", [_deployment(uri + "a" * 64, 1, {})], [])
    new = _review(tmp_path / "new", [_deployment(uri + "b" * 64, 1, {})], [])
    assert main(["review-diff", str(old), str(new)]) == 0
    field = capsys.readouterr().out.splitlines()[1]
    assert field.startswith("    spec.template.spec.containers[name=manager].image: ...")
    size = len(uri) + 64
    assert f"-us-west-2:{'a' * 64} ({size} characters) -> ..." in field
    assert field.endswith(f"-us-west-2:{'b' * 64} ({size} characters)")


def test_identical_reviews_and_a_folder_that_is_no_review(tmp_path: Path, capsys) -> None:
    old = _review(tmp_path / "old", [_namespace("kept")], [])
    assert main(["review-diff", str(old), str(old)]) == 0
    assert capsys.readouterr().out == "no change: the same 1 objects\n"
    assert main(["review-diff", str(old), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: review-diff: {str(tmp_path)!r} is not a review folder") and err.count("\n") == 1
