"""``python -m autograder``: the same as the ``course`` command."""

import sys

from autograder.cli import main

sys.exit(main())
