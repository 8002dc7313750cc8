"""Moved to eks_training.core.versions (TRANSITIONAL re-export while the move lands; to be deleted)."""
from eks_training.core.versions import *  # noqa: F401,F403
