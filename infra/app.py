"""The platform's CDK app, runnable from the installed package in any folder, so a team's own repository holds only
its environment files: ``cdk synth --app "python -m eks_training.infra.app" -c config=environments/acme.yaml``
(``-c env=NAME`` for a shipped one). The clone's ``app.py`` runs this too.
"""

from __future__ import annotations

import sys

import aws_cdk as cdk

from eks_training.infra.app_builder import APP_CONTEXT, build_app, config_from_context
from eks_training.infra.config import ConfigError


def main() -> int:
    """Synthesize the environment the context names; a user's mistake is one line on stderr and exit status 2."""
    # The platform's feature flags as defaults: a cdk.json beside the call (or -c) still overrides them.
    app = cdk.App(context=APP_CONTEXT)
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
