#!/usr/bin/env python3
"""CDK entry point: `cdk synth -c env=dev|staging|prod` or `cdk synth -c config=path/to/env.yaml`."""

import sys

import aws_cdk as cdk

from eks_training.infra.app_builder import build_app, config_from_context
from eks_training.infra.config import ConfigError


def main() -> int:
    app = cdk.App()
    try:
        build_app(app, config_from_context(app))
    except (ConfigError, ValueError) as err:
        # A user's mistake: one line that names the field, the value and what is allowed; no traceback.
        print(f"error: {err}", file=sys.stderr)
        return 2
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
