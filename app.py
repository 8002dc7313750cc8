#!/usr/bin/env python3
"""CDK entry point: `cdk synth -c env=dev|staging|prod` or `cdk synth -c config=path/to/env.yaml` (the app itself is
eks_training.infra.app, which an installed package runs as `python -m eks_training.infra.app`)."""

import sys

from eks_training.infra.app import main

if __name__ == "__main__":
    sys.exit(main())
