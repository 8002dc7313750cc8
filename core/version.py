"""The library's release, in one place: the wheel's version (pyproject reads it), ``eks-training --version``, and
the schema version of the environment files this release reads."""

from __future__ import annotations

__all__ = ["CONFIG_SCHEMA_VERSION", "__version__"]

#: The release (semantic versioning); CHANGELOG.md says what each one changed.
__version__ = "0.2.0"

#: The environment file's format, raised when a release renames, removes or requires a key (the table of what
#: changed is eks_training.infra.config_changes). A file may state the one it was written for (``schema_version``).
CONFIG_SCHEMA_VERSION = 2
