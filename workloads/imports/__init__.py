"""Typed cdk8s classes for the custom resources the platform emits, generated from the upstream CRDs.

`make imports` runs `cdk8s import` (cdk8s-cli, pinned in package.json) on the CRD files listed in
:data:`eks_training.workloads.imports.generate.SOURCES` and commits the output here, one Python package per API
group (named as cdk8s import names them, the group reversed):

- ``sh.volcano.batch`` (Volcano ``Job``) and ``sh.volcano.scheduling`` (``Queue``)
- ``io.ray`` (KubeRay ``RayCluster``, ``RayJob``)
- ``org.kubeflow`` (MPI Operator ``MPIJob`` v2beta1)
- ``net.slurm.slinky`` (Slinky ``Controller``, ``NodeSet``, ``LoginSet``, ``RestApi``, ``Accounting``)
- ``sh.karpenter`` (``NodePool``) and ``aws.k8s.karpenter`` (``EC2NodeClass``)

Each is a jsii package: importing one loads its assembly into jsii's Node runtime, so the charts import them only
when they build (:mod:`eks_training.workloads.typed_objects` turns our plain object dicts into their instances).
``sources.json`` records the cdk8s-cli version and the SHA-256 of every CRD file the classes came from.
"""
