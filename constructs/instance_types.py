"""Moved to eks_training.core.catalog (TRANSITIONAL re-export while the move lands; to be deleted)."""
from eks_training.core.catalog import *  # noqa: F401,F403
