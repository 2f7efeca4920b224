"""``python -m bridge.cli``: the same as the ``mobridge`` command."""

import sys

from bridge.cli.main import main

sys.exit(main())
