"""Build the CDK app of one environment: pick the config from context, validate it, add the stack."""

from __future__ import annotations

import aws_cdk as cdk

from eks_training.core.validation import invalid
from eks_training.infra.config import ConfigError, PlatformConfig, load_config_file, load_environment
from eks_training.infra.platform_stack import TrainingPlatformStack

#: The feature flags the platform is built with (cdk.json holds the same, a test keeps them equal): the package
#: carries them, so a synth from an installed wheel (the deploy check's) builds what `cdk synth` builds.
APP_CONTEXT = {
    "@aws-cdk/aws-eks:defaultToAL2023": True,
    "@aws-cdk/aws-iam:minimizePolicies": True,
    "@aws-cdk/aws-ec2:restrictDefaultSecurityGroup": True,
    "@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy": True,
    "@aws-cdk/core:checkSecretUsage": True,
    "@aws-cdk/core:validateSnapshotRemovalPolicy": True,
    "@aws-cdk/aws-iam:standardizedServicePrincipals": True,
}


def config_from_context(app: cdk.App) -> PlatformConfig:
    """``-c config=PATH`` wins over ``-c env=NAME``; the default environment is ``dev``.

    The file's ``name`` must be its file name unless ``-c allow_name_mismatch=true`` (see ``load_config_file``).
    """
    path = app.node.try_get_context("config")
    if path:
        mismatch = app.node.try_get_context("allow_name_mismatch")
        if mismatch not in (None, True, False, "true", "false"):
            raise ConfigError(str(invalid("allow_name_mismatch", mismatch, "true or false")))
        return load_config_file(path, name_matches_file=mismatch not in (True, "true"))
    return load_environment(str(app.node.try_get_context("env") or "dev"))


def build_app(app: cdk.App, config: PlatformConfig) -> TrainingPlatformStack:
    """Add the platform stack of ``config`` to ``app``, checked by cdk-nag unless ``-c nag=false``."""
    stack = TrainingPlatformStack(app, f"EksTraining-{config.name}", config=config)
    if str(app.node.try_get_context("nag")).lower() != "false":
        # Imported here: cdk-nag is a tool of this app, not a dependency of the constructs library.
        from cdk_nag import AwsSolutionsChecks

        from eks_training.infra.nag_pack import EksTrainingChecks

        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app), EksTrainingChecks(app))
    return stack
