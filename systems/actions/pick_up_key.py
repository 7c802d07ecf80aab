"""pick_up_key: the pickup action narrowed to keys (what a plan names when it needs a key)."""
from __future__ import annotations

from systems.actions.pickup import PickupExecutor


class PickUpKeyExecutor(PickupExecutor):
    kind = "pick_up_key"
    params = "target (a key)"
    meaning = "walk onto a key and take it"
    preconditions = "the target is a key lying on a reachable tile, not claimed by another unit"
    only_kind = "key"
