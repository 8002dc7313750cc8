"""The platform's shared vocabulary: instance catalog and node capacity, names and labels, mount paths, versions.

Everything else may import this package; it imports nothing of ours and nothing of CDK or cdk8s, so the CLI,
the config layer, charts, constructs and checks read one set of facts.
"""
