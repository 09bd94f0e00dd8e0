"""TRANSITION(#9): the old import path of two 1.6 helpers the suites use; removed after the merge.
Import ``connector_ids`` from ``harness.reference.model`` and ``interval_of`` from
``harness.reference.blocks.provisioning``."""

from harness.reference.blocks.provisioning import interval_of
from harness.reference.model import connector_ids

__all__ = ["connector_ids", "interval_of"]
