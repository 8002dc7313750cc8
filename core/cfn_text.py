"""CloudFormation string expressions as plain text (no CDK import: review tools and tests use it too)."""

from __future__ import annotations

from typing import Any, Callable


def cfn_text(value: Any, token: Callable[[Any], str]) -> str:
    """``value`` (a string or an ``Fn::Join`` of parts) as text, each other intrinsic written by ``token``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(cfn_text(part, token) for part in parts)
    return token(value)
