"""``python -m eks_training.infra.tools.review``: see :mod:`eks_training.infra.tools.review.cli`."""

import sys

from eks_training.infra.tools.review.cli import main

sys.exit(main())
