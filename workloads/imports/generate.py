"""`make imports`: regenerate the typed custom-resource classes next to this file with `cdk8s import`.

Only the kinds and versions the charts write are imported (a CRD's other served versions would double the code and
the time to load it): each API group's CRDs go to cdk8s import together, as one multi-document file, so the group
becomes one Python package. The output replaces every generated package here, and ``sources.json`` records what it
came from, which tests/workloads/test_typed_objects.py compares with the CRD files of the checkout.

    python -m eks_training.workloads.imports.generate --crds "$EKS_TRAINING_MIRROR/crds" --cdk8s node_modules/.bin/cdk8s
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: What records the sources of the generated packages (read by the freshness test).
SOURCES_FILE = "sources.json"
#: Files of ours in this folder; every other entry is cdk8s import's output and is replaced on each run.
OWN_FILES = ("__init__.py", "generate.py", SOURCES_FILE)


@dataclass(frozen=True)
class ImportSource:
    """One API group: its CRD files (relative to the CRD folder) and the versions of it the charts write."""

    group: str
    files: tuple[str, ...]
    versions: tuple[str, ...]

    @property
    def module(self) -> str:
        """The package cdk8s import makes for the group, relative to this one (`ray.io` -> `io.ray`; a '-', which
        no Python name takes, becomes '_': `kueue.x-k8s.io` -> `io.x_k8s.kueue`)."""
        return ".".join(reversed(self.group.replace("-", "_").split(".")))


SOURCES = (
    ImportSource("batch.volcano.sh", ("volcano/batch.volcano.sh_jobs.yaml",), ("v1alpha1",)),
    ImportSource("scheduling.volcano.sh", ("volcano/scheduling.volcano.sh_queues.yaml",), ("v1beta1",)),
    # v1alpha1 is still served (deprecated, no conversion); we write v1 only.
    ImportSource("ray.io", ("kuberay/ray.io_rayclusters.yaml", "kuberay/ray.io_rayjobs.yaml"), ("v1",)),
    ImportSource("kubeflow.org", ("mpi-operator/kubeflow.org_mpijobs.yaml",), ("v2beta1",)),
    ImportSource(
        "slinky.slurm.net",
        tuple(f"slurm-operator/slinky.slurm.net_{plural}.yaml"
              for plural in ("controllers", "nodesets", "loginsets", "restapis", "accountings")),
        ("v1beta1",),
    ),
    ImportSource("karpenter.sh", ("karpenter/karpenter.sh_nodepools.yaml",), ("v1",)),
    ImportSource("karpenter.k8s.aws", ("karpenter/karpenter.k8s.aws_ec2nodeclasses.yaml",), ("v1",)),
    # v1beta1 is still served (deprecated); v1beta2 is the storage version, the one we write.
    ImportSource(
        "kueue.x-k8s.io",
        tuple(f"kueue/kueue.x-k8s.io_{plural}.yaml" for plural in (
            "resourceflavors", "clusterqueues", "localqueues", "cohorts", "topologies", "workloadpriorityclasses")),
        ("v1beta2",),
    ),
    # TrainingRuntime (namespaced) is left out: the platform's runtimes are cluster-wide.
    ImportSource(
        "trainer.kubeflow.org",
        ("kubeflow-trainer/trainer.kubeflow.org_trainjobs.yaml",
         "kubeflow-trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml"),
        ("v1alpha1",),
    ),
)


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _selected_crd(path: Path, source: ImportSource) -> dict:
    """The CRD in `path` with only `source.versions` left in it."""
    import yaml  # a runtime dependency, but only this tool needs it here

    documents = [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]
    if len(documents) != 1 or documents[0].get("kind") != "CustomResourceDefinition":
        raise SystemExit(f"{path}: expected one CustomResourceDefinition, found {len(documents)} documents")
    crd = documents[0]
    if crd["spec"]["group"] != source.group:
        raise SystemExit(f"{path}: group {crd['spec']['group']!r}, expected {source.group!r}")
    versions = [v for v in crd["spec"]["versions"] if v["name"] in source.versions]
    missing = set(source.versions) - {v["name"] for v in versions}
    if missing:
        raise SystemExit(f"{path}: has no version {', '.join(sorted(missing))}")
    crd["spec"]["versions"] = versions
    return crd


def generate(crds: Path, cdk8s: Path, out: Path = HERE, sources: tuple[ImportSource, ...] = SOURCES) -> dict:
    """Run cdk8s import for every group of `sources` and replace the generated packages in `out`; returns the record
    written to `out`/sources.json."""
    import yaml

    cli_version = json.loads((cdk8s.resolve().parent.parent / "package.json").read_text())["version"]
    record: dict = {"cdk8s-cli": cli_version, "groups": {}, "crds": {}}
    with tempfile.TemporaryDirectory(prefix="cdk8s-import-") as scratch:
        staging = Path(scratch) / "out"
        for source in sources:
            paths = [crds / name for name in source.files]
            spec = Path(scratch) / f"{source.group}.yaml"
            spec.write_text(yaml.safe_dump_all([_selected_crd(p, source) for p in paths], sort_keys=False))
            print(f"cdk8s import {source.group} ({', '.join(source.files)}; {', '.join(source.versions)})", flush=True)
            subprocess.run([str(cdk8s.resolve()), "import", "--no-check-upgrade", "--language", "python",
                            "--output", str(staging), str(spec)], check=True, cwd=scratch, stdout=subprocess.DEVNULL)
            package = staging.joinpath(*source.module.split("."))
            if not (package / "__init__.py").is_file():
                raise SystemExit(f"cdk8s import wrote no package {source.module} for {source.group}")
            record["groups"][source.group] = {"module": source.module, "files": list(source.files),
                                              "versions": list(source.versions)}
            record["crds"].update({name: sha256(path) for name, path in zip(source.files, paths)})
        for entry in out.iterdir():
            if entry.name not in OWN_FILES:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        for entry in staging.iterdir():
            shutil.move(str(entry), str(out / entry.name))
    (out / SOURCES_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return record


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crds", type=Path, required=True, help="the upstream CRD folder (a mirror's crds/, or the user cache's)")
    parser.add_argument("--cdk8s", type=Path, required=True, help="the cdk8s CLI (node_modules/.bin/cdk8s)")
    args = parser.parse_args(argv)
    if not args.crds.is_dir():
        raise SystemExit(f"--crds {args.crds} is not a folder: point it at the upstream CRDs (see SOURCES.md there)")
    record = generate(args.crds, args.cdk8s)
    print(f"generated {len(record['groups'])} packages from {len(record['crds'])} CRDs with cdk8s-cli "
          f"{record['cdk8s-cli']} into {HERE}")


if __name__ == "__main__":
    main()
