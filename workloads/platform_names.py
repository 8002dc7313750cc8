"""Moved to eks_training.core.names (TRANSITIONAL re-export while the move lands; to be deleted)."""
from eks_training.core.names import *  # noqa: F401,F403
