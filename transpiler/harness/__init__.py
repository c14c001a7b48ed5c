"""The equivalence harness behind ``check`` (and ``migrate``'s verdicts).

Hypothesis caches what it learns (its example database, Unicode tables,
constants from source files) under ``.hypothesis/`` in the working directory;
``check`` and ``migrate`` must write nothing the user did not name. Unless the
user chose a place (``HYPOTHESIS_STORAGE_DIRECTORY``), its storage is a path
that cannot exist: every cache is best effort, so nothing is written and
nothing fails. Worker processes inherit the setting.
"""

from __future__ import annotations

import os

os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(os.devnull, "hypothesis"))
