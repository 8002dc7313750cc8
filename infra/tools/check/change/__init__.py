"""The change stage of `eks-training check` (``--previous``): what a deploy of the new template does to the stack
deployed now, predicted from the two templates, each change one line with a stable ID.

* :mod:`.schemas`: which property changes replace a resource (CloudFormation's resource schemas);
* :mod:`.template_diff`: create, update, replace (nested and propagated through references), delete, per resource;
* :mod:`.holdings`: what a replaced or deleted resource of each type loses;
* :mod:`.manifests`: the kubectl and Helm handlers: prune, orphan, delete, refused Kubernetes updates;
* :mod:`.helm_crds`: what `helm upgrade` and `helm uninstall` do to a release's CRDs, both chart versions read;
* :mod:`.node_rolls`: node groups that roll and Karpenter pools that drift, with the pods they evict or wait for;
* :mod:`.eks_versions`: EKS's version rules for the control plane, node groups and add-ons;
* :mod:`.deployed_stack`: the template a CloudFormation stack runs now (``--previous-stack``);
* :mod:`.stage`: the findings, the acknowledgements and the verdict.
"""

from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.stage import (ChangeReport, Previous, load_previous, predict_changes,
                                                        read_acknowledgements)

__all__ = ["Change", "ChangeReport", "Previous", "load_previous", "predict_changes", "read_acknowledgements"]
