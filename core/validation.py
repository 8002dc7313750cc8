"""One error format for every input a user can get wrong, and the test for values CDK fills in at deploy time."""

from __future__ import annotations

import re

# How CDK writes an unresolved value into a string ("${Token[Ref::12]}") and into a number (a reserved double).
_STRING_TOKEN = re.compile(r"\$\{Token\[[^\]]+\]\}")
_NUMBER_TOKEN_MAGNITUDE = 1e289


def invalid(field: str, value: object, allowed: str) -> ValueError:
    """The project's one-line error: the field, the bad value and what is allowed."""
    return ValueError(f"{field}={value!r} is not allowed: {allowed}")


def is_token(value: object) -> bool:
    """Whether ``value`` holds a CDK token (known only at deploy time: checks must let it through)."""
    if isinstance(value, str):
        return bool(_STRING_TOKEN.search(value))
    if isinstance(value, float):
        return abs(value) > _NUMBER_TOKEN_MAGNITUDE
    return False
