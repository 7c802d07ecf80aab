"""NPC brains in the tick: perception facts in, ledger submissions out, a decision record per decision.

``BrainSystem`` runs first among the deciders. An NPC decides when its
staggered slot comes round (every ``think_every`` ticks, offset by a slot it
gets when it first thinks and keeps for its life: its rank among its team's NPCs
by entity id at the start, so a thousand NPCs do not all decide on the same
tick, and mirror-image NPCs of two teams decide on the same ticks), and also on
the very next tick after something it waits for happened: one of its ledger
actions ended (not one it cancelled itself, unless a switch waits for its
release), its mode ended, or a switch is waiting for the old mode's actions to
be released. Each decision runs the brain (ai/brain.py) on the NPC's facts and
appends its record (``ai.records.NpcDecision``) to ``world.decisions``.

``BrainInboxSystem`` runs last in the tick: it hands every terminal ledger
event of a brain's action to that brain's inbox and wakes it (except the
brain's own cancels that no switch waits for: the actuator reads those from the
ledger). Doing this at the end of the tick keeps everything a brain needs inside
its component, so a snapshot taken between ticks continues exactly.
"""
from __future__ import annotations

from operator import itemgetter

import esper
import numpy as np

from ai.batch import BatchScorer
from ai.records import Deferred
from ai.status import RUNNING
from components import BrainState, Controller, Health, Memory, Position, Squad, Team, UnitKind
from game import esper_rows
from game.ledger import CANCELLED, OUTCOME, TERMINAL
from systems.base import Decider
from systems.perception import DEFAULT_SIGHT

_first = itemgetter(0)
INBOX_TICKS = 300          # inbox entries nobody read are dropped after this many ticks
CANCELLED_BY_BRAIN = "cancelled by brain"   # the reason of a brain's own cancels


def _own_cancel(state: str, reason: str) -> bool:
    """Whether a ledger end is a brain's own cancel: its inbox is not told of it unless a switch waits for it
    (``BrainInboxSystem``), and the actuator reads it from the ledger (``LedgerActuator.status``)."""
    return state == CANCELLED and reason == CANCELLED_BY_BRAIN


class LedgerActuator:
    """The brain's view of the ledger: submit, read an action's end from the inbox, cancel."""
    __slots__ = ("world", "eid", "brain")

    def __init__(self, world, eid: int, brain):
        self.world = world
        self.eid = eid
        self.brain = brain

    def submit(self, kind: str, target: int, params: dict) -> int:
        return self.world.ledger.submit(self.world.tick, kind, self.eid, target, params, source="brain").id

    def status(self, aid: int) -> tuple[int, str]:
        inbox = self.brain.inbox
        for i, entry in enumerate(inbox):
            if entry[0] == aid:
                del inbox[i]
                return OUTCOME[entry[1]], entry[2]
        # the brain's own cancel, of which the inbox is not told (``BrainInboxSystem``): ended all the same
        action = self.world.ledger.actions.get(aid)
        if action is not None and _own_cancel(action.state, action.reason):
            return OUTCOME[CANCELLED], action.reason
        return RUNNING, ""

    def cancel(self, aid: int) -> None:
        self.world.ledger.cancel(aid, CANCELLED_BY_BRAIN)

    def targets(self, kind: str) -> list[tuple[int, float]]:
        """What a typed GOAP action may target: entities of ``kind`` with their distances."""
        return self.world.perception.targets(self.eid, kind)


class Calm:
    """Which NPCs are calm this tick (the scenario's ``calm_think_every``; docs/rules/utility.md, "Calm NPCs").

    Calm: it sees no enemy (``Perception.sightings``: no enemy its team sees stands within its sight range with a
    clear line, so its facts would say ``enemy_visible`` false); it has decided before and was not hurt since (its
    memory's last hit points); and it has perceived its squad's order (its memory's ``order_seen`` is the order's
    ``since``: a new order keeps it from calm until it has decided once). The NPCs that pass the per-NPC tests (not
    hurt, the order perceived) are asked for their sightings all together (``Perception.sightings``, whose cells of
    each team's seen enemies are made once a tick for each cell size asked: an NPC with no enemy in the cells round
    it costs a lookup), and those that then decide reuse them.
    """

    def __init__(self, world):
        self.world = world

    def __call__(self, eid: int, team: int) -> bool:
        """Whether the NPC ``eid`` of ``team`` is calm."""
        return self.many([eid], [team])[0]

    def many(self, eids: list, teams: list, seen: dict | None = None) -> list[bool]:
        """``calm(eid, team)`` of each NPC of ``eids`` (ascending ids) at once: the per-NPC tests, then the
        sightings of those that pass them, all together. ``seen``, when given, gets those sightings by entity (the
        same this tick as ``facts_batch`` would find: it may take them)."""
        world = self.world
        orders = world.perception.orders()
        sight = world.perception.sight
        out = [False] * len(eids)
        look: list[int] = []                      # those that pass the per-NPC tests (ascending ids, as eids are)
        xl: list[float] = []                      # (lists filled here, made arrays once: not an array write per item)
        yl: list[float] = []
        tl: list[int] = []
        rl: list[float] = []
        table = esper_rows.table()
        for k, (eid, team) in enumerate(zip(eids, teams)):
            comps = table[eid]
            mem = comps[Memory]
            if mem.last_hp < 0 or comps[Health].hp < mem.last_hp:
                continue                          # never perceived yet, or hurt since it last decided
            squad = comps.get(Squad)
            if squad is not None:
                order = orders.get((team, squad.squad))
                if order is not None and order.since > mem.order_seen:
                    continue                      # a squad order it has not perceived yet
            pos = comps[Position]
            look.append(k)
            xl.append(pos.x)
            yl.append(pos.y)
            tl.append(team)
            rl.append(sight.get(comps[UnitKind].kind, DEFAULT_SIGHT))
        if look:
            found = world.perception.sightings(np.array(xl, dtype=np.float64), np.array(yl, dtype=np.float64),
                                               np.array(tl, dtype=np.int64), np.array(rl, dtype=np.float64))
            for k, visible in zip(look, found):
                out[k] = not visible
                if seen is not None:
                    seen[eids[k]] = visible
        return out


def _score_list(selector, facts: dict, bb: dict) -> list:
    return list(selector.score_all(facts, bb).values())


def _must_decide(brain) -> bool:
    """Whether an NPC decides whatever its slot: woken (an action of its ended), a switch waiting for a release,
    or its mode not RUNNING."""
    return brain.wake or brain.pending or brain.status != RUNNING


class _Ranks:
    """The NPCs with a brain, ascending entity id: their rows (entity, BrainState, Team), BrainStates, teams, stagger
    slots (``BrainState.slot``, given here to those without one) and periods (``think_every`` times the team's
    difficulty), as arrays; ``source``, the query's rows they were counted from, and ``by_id``, those rows by
    entity. ``urgent``: which must decide whatever their slot (``_must_decide``), read from every brain when the
    ranks are counted, then kept where it changes: the inbox's wakes (``World.woken_brains``) and each decision."""
    __slots__ = ("key", "source", "by_id", "rows", "ids", "brains", "teams", "slots", "periods", "urgent")

    def __init__(self, key, source: list, rows: list, teams, periods, by_id: dict | None = None,
                 brains: list | None = None, urgent: np.ndarray | None = None, ids: np.ndarray | None = None,
                 slots: np.ndarray | None = None):
        self.key = key
        self.source = source
        self.by_id = dict(zip(map(_first, source), source)) if by_id is None else by_id
        self.rows = rows
        self.ids = np.fromiter(map(_first, rows), np.int64, len(rows)) if ids is None else ids
        self.brains = [r[1] for r in rows] if brains is None else brains
        self.teams = np.asarray(teams, dtype=np.int64)
        self.periods = np.asarray(periods, dtype=np.int64)
        self.urgent = np.fromiter(map(_must_decide, self.brains), bool, len(self.brains)) if urgent is None else urgent
        if slots is not None:               # (survivors of ranks that gave every NPC its slot: none is fresh)
            self.slots = slots
            return
        self.slots = np.fromiter((b.slot for b in self.brains), np.int64, len(self.brains))
        fresh = np.flatnonzero(self.slots < 0).tolist()
        if fresh:
            # a slot for each NPC that has none yet, kept for its life (``BrainState.slot``: saved, so a snapshot
            # continues on the same ticks): per team the one after the highest it holds, in entity id order. At the
            # start of a match that is each NPC's rank among its team's NPCs, so mirror-image NPCs of two teams
            # think on the same ticks (an entity id offset would not: the other team's ids are shifted by the first
            # team's count). Deaths move no one's slot: each NPC thinks every period, never twice in a row because
            # an NPC with a lower id died (a rank counted afresh moved the slots of every NPC above the dead one)
            nxt: dict = {}
            for k in fresh:
                team = int(self.teams[k])
                if team not in nxt:
                    held = self.slots[(self.teams == team) & (self.slots >= 0)]
                    nxt[team] = int(held.max()) + 1 if len(held) else 0
                self.slots[k] = self.brains[k].slot = nxt[team]
                nxt[team] += 1

    def without_dead(self, source: list, dead: list) -> "_Ranks":
        """These ranks for ``source``, the rows of the same query after the entities ``dead`` left (and nothing else
        changed): the survivors in the same order, with their slots. The old ranks give up their table by entity
        and their lists of rows and brains (the dead taken out of them in place, ``esper_rows.keep_in_place``:
        reading each survivor's row again would touch every NPC's objects, about a millisecond a tick at 10,000
        units): they are not used again."""
        by_id = self.by_id
        for eid in dead:
            by_id.pop(eid, None)
        keep = esper_rows.survivors(self.ids, dead)
        esper_rows.keep_in_place(keep, self.rows, self.brains)
        return _Ranks(self.key, source, self.rows, self.teams[keep], self.periods[keep], by_id, self.brains,
                      self.urgent[keep], self.ids[keep], self.slots[keep])

    def wake(self, eids: list) -> None:
        """Mark the NPCs ``eids`` (the inbox woke them) as urgent; an entity not among them is passed over."""
        if not eids:
            return
        at = np.searchsorted(self.ids, eids)
        ok = at < len(self.ids)
        at = at[ok]
        at = at[self.ids[at] == np.asarray(eids, dtype=np.int64)[ok]]
        self.urgent[at] = True


class BrainSystem(Decider):
    def __init__(self):
        super().__init__()
        self._scorers: dict = {}          # brain id -> the BatchScorer of its selector
        self._calm: Calm | None = None
        self._kept_ranks: _Ranks | None = None

    def _ranks(self, world) -> _Ranks:
        """The NPCs that run a brain, with their slots, counted again only when who they are changed: a unit came or
        went or got a new BrainState, Controller or Team (esper_rows hands out a new row then; nothing changes
        those components in place), or the brain definitions or the teams' difficulty changed."""
        rows = esper.get_components(BrainState, Controller, Team)
        brains = world.content.brains
        key = (id(brains), tuple((b, id(d), d.think_every) for b, d in brains.items()), tuple(world.think_every))
        kept = self._kept_ranks
        if kept is not None and kept.key == key:
            dead = esper_rows.dead_since(rows, kept.source, kept.by_id)
            if dead == []:
                return kept
            if dead is not None:
                self._kept_ranks = kept.without_dead(rows, dead)
                return self._kept_ranks
        out, teams, periods = [], [], []
        for eid, (brain, ctl, team) in sorted(rows, key=_first):
            if ctl.ai != "brain":
                continue
            bdef = brains.get(brain.brain)
            if bdef is None:
                continue
            out.append((eid, brain, team))
            teams.append(team.team)
            periods.append(bdef.think_every * world.think_every[team.team])
        self._kept_ranks = _Ranks(key, rows, out, teams, periods)
        return self._kept_ranks

    def run(self, world):
        tick = world.tick
        now = tick * world.dt
        brains = world.content.brains
        perception = world.perception
        log = world.decisions
        slow = world.think_every
        calm_every = world.scenario.calm_think_every
        calm = None
        if calm_every:
            if self._calm is None or self._calm.world is not world:
                self._calm = Calm(world)
            calm = self._calm
        thinkers = []
        ranks = self._ranks(world)
        ranks.wake(world.woken_brains)
        world.woken_brains.clear()
        # every think_every ticks (a difficulty may make a team's brains slower), or at once when woken (an action
        # ended, a switch waits, the mode is not RUNNING); the slot test is one array operation over every NPC
        due = (ranks.slots + tick) % ranks.periods == 0
        urgent = ranks.urgent               # (read here, updated below for those that decide)
        picked = np.flatnonzero(due | urgent)
        decided: list = []                  # the ranks of those that decide (their urgency is read again after)
        seen: dict = {}                     # the sightings the calm test found (facts_batch takes them)
        if calm is not None:
            # a calm NPC (the scenario's level of detail) lets its slot pass unless its calm slot comes round
            windows = calm_every * np.asarray(slow, dtype=np.int64)[ranks.teams[picked]]
            ask = np.flatnonzero(~urgent[picked] & ((ranks.slots[picked] + tick) % windows != 0))
            asks = picked[ask]
            found = calm.many(ranks.ids[asks].tolist(), ranks.teams[asks].tolist(), seen)
            if ask.size:                    # the calm ones are passed over here, not in the loop below
                keep = np.ones(len(picked), dtype=bool)
                keep[ask[np.fromiter(found, bool, len(found))]] = False
                picked = picked[keep]
        rows = ranks.rows
        for k in picked.tolist():
            eid, brain, team = rows[k]
            bdef = brains.get(brain.brain)
            if bdef is None:
                continue
            brain.wake = False
            decided.append(k)
            inbox = brain.inbox
            # entries come in tick order (appended each tick; a save's are checked), so the first is the oldest
            if inbox and tick - inbox[0][3] > INBOX_TICKS:                  # (a new list only when one expires)
                brain.inbox = [e for e in inbox if tick - e[3] <= INBOX_TICKS]
            if not world.batch_brains:          # the per-NPC reference path: perceive, score and decide one by one
                facts = perception.facts(eid, now)
                rec = bdef.think(brain, facts, now, LedgerActuator(world, eid, brain))
                rec.tick = tick
                rec.entity = eid
                log.add(rec)
                continue
            thinkers.append((eid, brain, bdef))
        if thinkers:
            self._decide(world, thinkers, now, seen)
        brains_of = ranks.brains
        for k in decided:                   # (not woken any more; a switch may wait, a mode may have ended)
            urgent[k] = _must_decide(brains_of[k])

    def _decide(self, world, thinkers: list, now: float, seen: dict) -> None:
        """The batched decisions of ``thinkers`` (entity, BrainState, brain definition), ascending ids."""
        perception = world.perception
        log = world.decisions
        tick = world.tick
        # one pass of perception over every NPC that thinks this tick (entity order: facts depend on nothing
        # another NPC's decision changes before the ledger runs), then each brain definition's candidates scored
        # for all its NPCs at once, then each NPC decides on its row (hysteresis, emergencies, release per NPC)
        all_facts = perception.facts_batch([t[0] for t in thinkers], now, seen)
        groups: dict = {}
        for i, (_eid, _brain, bdef) in enumerate(thinkers):
            groups.setdefault(bdef.id, []).append(i)
        rows: dict[int, tuple] = {}
        for members in groups.values():
            bdef = thinkers[members[0]][2]
            scorer = self._scorers.get(bdef.id)
            if scorer is None or scorer.selector is not bdef.selector:      # new, or the brain was reloaded
                scorer = self._scorers[bdef.id] = BatchScorer(bdef.selector)
            ok, sc = scorer.score([all_facts[i] for i in members], [thinkers[i][1].bb for i in members])
            for i, ok_row, score_row in zip(members, ok.tolist(), sc.tolist()):
                rows[i] = (scorer, ok_row, score_row)
        for i, (eid, brain, bdef) in enumerate(thinkers):
            facts = all_facts[i]
            scorer, ok_row, score_row = rows[i]
            scores = scorer.scores_for(ok_row, score_row, facts, brain.bb, brain.mode or None)
            rec = bdef.think(brain, facts, now, LedgerActuator(world, eid, brain), scores=scores,
                             record_scores=Deferred(_score_list, bdef.selector, facts, dict(brain.bb)))
            rec.tick = tick
            rec.entity = eid
            log.add(rec)


class BrainInboxSystem(Decider):
    """End of the tick: the ends of brains' ledger actions go to their inboxes (and wake them), except a brain's own
    cancels that no switch waits for."""

    def run(self, world):
        ledger = world.ledger
        tick = world.tick
        for aid, state, reason in ledger.events:
            if state not in TERMINAL:
                continue
            action = ledger.actions.get(aid)
            if action is None or action.source != "brain" or not esper.entity_exists(action.actor):
                continue
            brain = esper.try_component(action.actor, BrainState)
            if brain is None:
                continue
            if _own_cancel(state, reason) and aid not in brain.releasing:
                # its own cancel (a node halted, a state left): nothing of it waits for that end, which would only
                # wake it for a decision that changes nothing and lie in its inbox unread. A switch waits for the
                # cancelled actions' release: those ends are told.
                continue
            brain.inbox.append([aid, state, reason, tick])
            brain.wake = True
            world.woken_brains.append(action.actor)
