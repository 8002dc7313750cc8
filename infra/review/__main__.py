"""``python -m eks_training.infra.review``: see :mod:`eks_training.infra.review.cli`."""

import sys

from eks_training.infra.review.cli import main

sys.exit(main())
