"""The fault catalog's glue: ``catalog`` importable (the detection rates are tests/conftest.py's).

``catalog.py`` is imported as the top-level module ``catalog`` everywhere: this conftest puts its
folder on ``sys.path`` for this run (whatever the import mode), and so for the suite runs
``suite_runner.py`` forks from it, whose ``--embedded-sut catalog:<Class>`` then resolves without
making ``tests/`` a package.
"""

import sys
from pathlib import Path

FAULTS_DIR = Path(__file__).resolve().parent
if str(FAULTS_DIR) not in sys.path:
    sys.path.insert(0, str(FAULTS_DIR))
