"""The actions' point in the tick: every started action's executor advances one tick, lowest action id first."""
from __future__ import annotations

from heapq import heappop, heappush
from itertools import chain

import esper

from components import Health, Mover
from game import esper_rows
from game.ledger import STARTED
from systems.actions.base import alive_unit
from systems.base import System


class ActionSystem(System):
    """Advance every started action one tick, lowest action id first; an action whose unit died fails.

    An action whose kind is ``idle_while_walking`` (move, enter_cover) and whose living unit is walking a route
    planned on the current nav grid is passed over: its ``update`` would return at once without reading or
    changing anything (``Walker.arrived``), and in a large battle most started actions are such walks. The test
    reads esper's entity table directly, as ``alive_unit`` and ``component_for_entity`` do, without their calls.

    A walk passed over is *parked*: later passes do not read it (at 10,000 units in contact reading 6,500 parked
    walks and their units was most of the pass) until something its test reads may have changed, and then it is
    tested again at its turn, in id order, in the same pass if its turn is still to come. What can change it:

    - the walk ends or is cancelled: it leaves the ledger's lanes (a started action never goes back to accepted);
    - its unit's Mover stops (``World.stopped_movers``: the movers and ``halt`` note every stop), or a Mover or a
      Health comes, goes or is replaced anywhere (``esper_rows.changed_at``);
    - its unit is deleted (``esper_rows.deleted_since``; a unit that dies has its actions ended first);
    - the nav grid changes (its version moves: every parked walk is tested again);
    - esper_rows cannot say (no hooks, or the world's kept state made again): nothing stays parked.

    Its own route version is written only by its own executor, which does not run while it is parked. So a walk
    is passed over exactly when the test would pass it over (tests/test_action_system.py plays matches both ways).
    The contract this rests on: whatever stops a Mover calls ``halt`` (or notes the unit in ``stopped_movers``, as
    the movers do), and entities are deleted through esper's ``delete_entity`` (which esper_rows hooks).
    """

    #: park walks between passes (tests turn it off to compare)
    park = True

    def __init__(self):
        super().__init__()
        self._parked: dict[int, int] = {}          # action id -> its actor
        self._by_actor: dict[int, list] = {}       # actor -> its parked action ids
        self._marks: tuple | None = None           # what the parked walks were tested against (``_marks_now``)

    @staticmethod
    def _marks_now(world) -> tuple | None:
        """The nav version, the Mover and Health change stamps and the deletion mark; None without the hooks."""
        rows = esper_rows.hooked()
        if rows is None:
            return None
        return world.nav.version, rows.changed_at(Mover), rows.changed_at(Health), rows.deletion_mark()

    def _unpark(self, aids, heap: list | None, after: int) -> None:
        """Test these parked actions again: at their turn in this pass when it is still to come (``heap``), else
        next pass."""
        parked, by_actor = self._parked, self._by_actor
        for aid in aids:
            actor = parked.pop(aid, None)
            if actor is None:
                continue
            mine = by_actor.get(actor)
            if mine is not None:
                mine.remove(aid)
                if not mine:
                    del by_actor[actor]
            if heap is not None and aid > after:
                heappush(heap, aid)

    def _changes(self, world, heap: list | None, after: int) -> None:
        """Unpark what may have changed since the marks: every parked walk when the grid, a Mover or a Health
        changed (or the marks cannot tell), else the walks of units that stopped or were deleted."""
        marks = self._marks_now(world) if self.park else None
        old = self._marks
        self._marks = marks
        stopped = world.stopped_movers
        if marks is None or old is None or marks[:3] != old[:3]:
            stopped.clear()
            self._unpark(list(self._parked), heap, after)
            return
        gone = esper_rows.deleted_since(old[3]) if marks[3] != old[3] else []
        if gone is None:
            self._unpark(list(self._parked), heap, after)
            gone = ()
        by_actor = self._by_actor
        for eid in chain(stopped, gone):
            mine = by_actor.get(eid)
            if mine:
                self._unpark(list(mine), heap, after)
        stopped.clear()

    def run(self, world):
        ledger = world.ledger
        executors = ledger.executors
        actions = ledger.actions
        nav = world.nav                         # its version is read per action: an update can open a door
        entities = getattr(esper, "_entities", None)          # read per tick: esper.switch_world rebinds them
        dead = getattr(esper, "_dead_entities", None)
        skip = entities is not None and dead is not None     # (another esper without them: no passing over)
        self._changes(world, None, 0)
        parked = self._parked
        park = skip and self._marks is not None
        # the active actions' ids (the ledger keeps them, without reading the actions), less the parked walks
        active = ledger.active_ids
        if parked:
            self._unpark(parked.keys() - active, None, 0)    # ended since (keeps the dict to the active)
            heap = sorted(active.difference(parked))
        else:
            heap = sorted(active)
        # what an update may change that the parked walks read, compared after each update (cheap reads)
        rows = esper_rows.hooked() if park else None
        stopped = world.stopped_movers
        version = nav.version
        gen = rows.gen if rows is not None else 0
        gone = rows.gone_count if rows is not None else 0
        while heap:
            aid = heappop(heap)
            action = actions[aid]
            if action.state != STARTED:
                continue
            executor = executors[action.kind]
            if skip and executor.idle_while_walking and action.data.get("nav") == nav.version:
                actor = action.actor
                comps = entities.get(actor)
                if comps is not None and Health in comps and actor not in dead:
                    mover = comps.get(Mover)
                    if mover is not None and mover.moving:
                        if park:
                            parked[aid] = actor
                            self._by_actor.setdefault(actor, []).append(aid)
                        continue
            if executor.actor_is_unit and not alive_unit(action.actor):
                ledger.actor_gone(world, action.actor)
            else:
                result = executor.update(world, action)
                if result is not None and action.state == STARTED:
                    ledger.finish(world, action, *result)
            if rows is not None and (stopped or nav.version != version or rows.gen != gen or rows.gone_count != gone):
                self._changes(world, heap, aid)     # what this update changed may unpark walks still to come
                if self._marks is None:
                    park, rows = False, None
                else:
                    version, gen, gone = nav.version, rows.gen, rows.gone_count
