"""The one error format, asserted the same way everywhere: the field, the bad value and what is allowed."""

from __future__ import annotations

import pytest

from eks_training.core.validation import InvalidValue


def assert_refused(make, field: str, value: object, allowed: str) -> None:
    """``make()`` raises the one format: this field, this value, and an allowed text holding ``allowed``."""
    with pytest.raises(InvalidValue) as caught:
        make()
    error = caught.value
    assert (error.field, error.value) == (field, value)
    assert allowed in error.allowed
    assert str(error) == f"{field}={value!r} is not allowed: {error.allowed}"
    assert "\n" not in str(error)
