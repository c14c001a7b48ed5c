"""What the emitter relies on of the scripted-tool profile (THV-0051) that scripts run under.

The runtime states the profile in :mod:`transpiler.starlark_runtime.profile`, which the
emitter may not import (that package reaches the simulator, ``docs/equivalence.md``);
``tests/emit/test_independence.py`` holds the two to the same values.
"""

from __future__ import annotations

from typing import Final

#: How many functions ``parallel()`` runs at once.
PARALLEL_CAP: Final = 10
