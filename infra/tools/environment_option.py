"""The environment a command works on: ``--env NAME`` (one shipped in ``infra/environments``) or ``--config FILE``
(an environment file of the user's own, anywhere: a team keeps its environments in its own repository).

Every command that reads an environment (render, plan, preflight, status, check, review) takes the same three
options through :func:`add_environment_arguments` and resolves them with :func:`environment_from_args`, so a file
outside the clone works wherever a shipped name does.
"""

from __future__ import annotations

import argparse

from eks_training.core.validation import invalid
from eks_training.infra.config import ConfigError, PlatformConfig, environment_names, load_config_file, load_environment

__all__ = ["add_environment_arguments", "environment_from_args"]


def add_environment_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--env``, ``--config`` and ``--allow-name-mismatch`` to ``parser`` (none required: see
    :func:`environment_from_args`)."""
    parser.add_argument("--env", help=f"one of our environments ({', '.join(environment_names())}: "
                                      "infra/environments/NAME.yaml)")
    parser.add_argument("--config", metavar="FILE", help="instead of --env: an environment file of your own, anywhere "
                                                         "(its `name` must be the file's name)")
    parser.add_argument("--allow-name-mismatch", action="store_true",
                        help="with --config: take a file whose `name` differs from its file name")


def environment_from_args(args: argparse.Namespace, command: str, *, alternatives: str = "") -> PlatformConfig | None:
    """The config ``--env`` or ``--config`` names; None when neither is given and ``alternatives`` (the other ways
    the command takes its target, e.g. ``--app APP``) is set. A one-line :class:`ConfigError` when both are given,
    or neither and no alternative."""
    env, config = getattr(args, "env", None), getattr(args, "config", None)
    if env and config:
        raise ConfigError(f"{command}: " + str(invalid("--config", config, f"alone: give --env NAME or --config FILE, "
                                                                          f"not both (--env {env} given too)")))
    if getattr(args, "allow_name_mismatch", False) and not config:
        raise ConfigError(f"{command}: --allow-name-mismatch goes with --config FILE")
    if config:
        return load_config_file(config, name_matches_file=not args.allow_name_mismatch)
    if env:
        return load_environment(env)
    if alternatives:
        return None
    raise ConfigError(f"{command}: give --env NAME (one of {', '.join(environment_names())}) or --config FILE "
                      "(an environment file of your own)")
