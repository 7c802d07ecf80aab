"""What brains may name: the perception facts, the GOAP target types and the host's action kinds.

Content validation checks every fact a gate, preference, condition or ``$ref`` names against ``FACTS``, every
action kind against ``ACTIONS`` and every GOAP target type against ``TARGET_TYPES``, and the content reference
is generated from them. None of them is written here: each is declared beside the host code that provides it,
so the catalog cannot drift from what the host does —

- ``FACTS`` and ``TARGET_TYPES`` in systems/perception.py, which computes them;
- ``ACTIONS`` from the executors in systems/actions/, one module per action kind, each declaring its row
  (parameters, meaning, preconditions, default time-out).

A fact that does not apply right now (say ``enemy_x`` with no enemy in sight) is absent from the snapshot: a
condition on it is false, a preference reading it gets a diagnostic, and an action parameter naming it fails
the action leaf.
"""
from __future__ import annotations

from systems.actions import executor_classes
from systems.perception import FACTS, TARGET_TYPES

#: action kind -> its catalog row: {"params", "meaning", "preconditions", "timeout_seconds"}, by kind name
ACTIONS: dict[str, dict] = {kind: cls.catalog_row() for kind, cls in executor_classes().items()}


def suggest(name: str, known) -> str:
    """' (did you mean 'x'?)' for a close known name, else ''."""
    import difflib
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


__all__ = ["FACTS", "TARGET_TYPES", "ACTIONS", "suggest"]
