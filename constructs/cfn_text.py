"""Moved to eks_training.core.cfn_text (TRANSITIONAL re-export while the move lands; to be deleted)."""
from eks_training.core.cfn_text import *  # noqa: F401,F403
