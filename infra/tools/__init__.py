"""The tools around the platform: the `eks-training` command and what it runs (render jobs, check a synthesized
stack, plan capacity and cost, review manifests, preflight an account, job status, the architecture diagram and
the config reference). Tools read the composition (`eks_training.infra`); the composition never imports a tool."""
