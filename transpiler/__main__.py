"""``python -m transpiler``."""

import sys

from transpiler.cli import main

sys.exit(main())
