"""Hot reload of content into a running match (`rts play --mod DIR --watch`).

``ContentWatcher`` notices changed, added or removed ``.toml`` files, and in ``maps/`` Tiled maps and tilesets
(``.tmj``, ``.json``, ``.tsx``, ``.tsj``), by modification time and size (polled: no file-system notification
dependency). ``reload`` loads the *whole* content set again — defaults plus mods,
all validated first, as at start-up — and only when everything validated does ``apply`` swap it in, between
ticks:

- every NPC's brain is rebuilt from the new brain definitions: its running behavior tree is halted and its
  ledger actions are cancelled cleanly (the ledger releases their reservations), then it starts afresh;
- commander profiles and perception read the new content from the next decision on;
- **changed unit stats apply to the living units of that type** (``apply_unit_stats``): speed, maximum hit
  points (the hit points keep their fraction of the maximum), sight, radius, the weapon (range, damage,
  cooldown, accuracy; a cooldown under way is cut to the new one), the ammunition (clip size, reload time; a
  clip over the new size is cut to it, the reserve is kept) and a worker's capacity, gathering rate and
  whether it builds (a load over the new capacity is cut to it). The screen says how many units changed;
- what waits for new units: a unit's stance (a player may have changed it) and its cost, build time,
  population and requirements (they apply to the next unit trained);
- nothing else in the world changes: units keep their positions and orders, and the map of a running match
  stays the one it started on (map and scenario changes are reported and wait for a new match).

On any problem the old content stays in force, untouched, and the first problem comes back as one line
(``file:line: key.path: message``) for the screen and the log. The world notes which content hash is in force
from which tick (``world.content_changes``); a replay recorder writes that down.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import esper

from components import Ammo, BrainState, Health, Mover, Selectable, UnitKind, Weapon, Worker
from content.loader import DEFAULT_ROOT, ContentError, load_content
from content.schema import KINDS
from content.tiled import MAP_SUFFIXES, TILESET_SUFFIXES


class ContentWatcher:
    def __init__(self, mods, root: Path | None = None):
        self.roots = [Path(root) if root else DEFAULT_ROOT] + [Path(m) for m in mods]
        self.stamp = self.snapshot()

    def snapshot(self) -> dict:
        out = {}
        for root in self.roots:
            for kind in KINDS:
                folder = root / kind
                if not folder.is_dir():
                    continue
                suffixes = (".toml",) + (MAP_SUFFIXES + TILESET_SUFFIXES if kind == "maps" else ())
                for path in sorted(p for p in folder.glob("*") if p.suffix in suffixes):
                    try:
                        st = path.stat()
                    except OSError:
                        continue
                    out[str(path)] = (st.st_mtime_ns, st.st_size)
        return out

    def changed(self) -> list[str]:
        """Files added, removed or modified since the last call (empty: nothing to do)."""
        now = self.snapshot()
        diff = sorted(p for p in set(now) | set(self.stamp) if now.get(p) != self.stamp.get(p))
        self.stamp = now
        return diff


@dataclass
class ReloadResult:
    ok: bool
    error: str = ""                       # the first problem, one line
    problems: list = field(default_factory=list)
    brains_rebuilt: int = 0
    actions_cancelled: int = 0
    content_hash: str = ""
    notes: list = field(default_factory=list)

    def message(self) -> str:
        if not self.ok:
            extra = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
            return f"reload refused, old content kept: {self.error}{extra}"
        return (f"reloaded content {self.content_hash[:8]}: {self.brains_rebuilt} brains rebuilt, "
                f"{self.actions_cancelled} actions cancelled" + "".join(f"; {n}" for n in self.notes))


def reload(world, mods) -> ReloadResult:
    """Validate the whole content set again and, only if all of it is good, apply it to ``world``."""
    try:
        new = load_content(list(mods))
    except ContentError as exc:
        return ReloadResult(False, str(exc), [str(p) for p in exc.problems])
    return apply(world, new)


def apply(world, new) -> ReloadResult:
    """Swap ``new`` content into a running world between ticks (see the module docstring)."""
    from systems.brains import LedgerActuator
    notes = []
    old = world.content
    if world.scenario_id not in new.scenarios:
        return ReloadResult(False, f"scenario '{world.scenario_id}' is no longer in the content")
    if new.maps.get(world.scenario.map) is None or new.maps[world.scenario.map].rows != world.tilemap.rows:
        notes.append("the map changed: it applies to the next match")
    if new.scenarios[world.scenario_id] != world.scenario:
        notes.append("the scenario changed: it applies to the next match")
    for name in world.commanders:
        if name and name not in new.commanders:
            return ReloadResult(False, f"commander profile '{name}' in use is no longer in the content")
    world.activate()
    rebuilt = cancelled = 0
    now = world.tick * world.dt
    for eid, (brain, kind) in sorted(esper.get_components(BrainState, UnitKind)):
        unit = new.units.get(kind.kind)
        wanted = unit.brain if unit is not None and unit.brain else brain.brain
        if wanted not in new.brains:
            return ReloadResult(False, f"brain '{wanted}' of entity {eid} is no longer in the content")
    for eid, (brain, kind) in sorted(esper.get_components(BrainState, UnitKind)):
        old_def = old.brains.get(brain.brain)
        if old_def is not None:
            cancelled += len(old_def.stop(brain, LedgerActuator(world, eid, brain), now=now))
        unit = new.units.get(kind.kind)
        wanted = unit.brain if unit is not None and unit.brain else brain.brain
        fresh = new.brains[wanted].new_state()
        fresh.wake = True                         # decide on the next tick with the new brain
        fresh.slot = brain.slot                   # on the same ticks as before (its think slot is for life)
        esper.add_component(eid, fresh)
        rebuilt += 1
    changed = apply_unit_stats(world, old, new)
    if changed:
        notes.append(f"unit stats applied to {changed} living units (stance, cost and build time wait for new "
                     f"units)")
    world.content = new
    world.content_changes.append([world.tick, new.content_hash])
    return ReloadResult(True, brains_rebuilt=rebuilt, actions_cancelled=cancelled, content_hash=new.content_hash,
                        notes=notes)


def apply_unit_stats(world, old, new) -> int:
    """Give every living unit whose type's stats changed the new stats (the module docstring lists which and
    how); returns how many units changed. The world must be active."""
    from game.scenario import ticks
    hz = world.hz
    changed = 0
    for eid, kind in sorted(esper.get_component(UnitKind)):
        before, after = old.units.get(kind.kind), new.units.get(kind.kind)
        if before is None or after is None or before == after:
            continue
        changed += 1
        if esper.has_component(eid, Mover):
            esper.component_for_entity(eid, Mover).speed = float(after.speed)
        if esper.has_component(eid, Health):
            health = esper.component_for_entity(eid, Health)
            frac = health.hp / health.max_hp if health.max_hp > 0 else 1.0
            health.max_hp = float(after.hp)
            health.hp = min(health.max_hp, frac * health.max_hp)
        if esper.has_component(eid, Weapon):
            weapon = esper.component_for_entity(eid, Weapon)
            weapon.range, weapon.damage = float(after.weapon.range), float(after.weapon.damage)
            weapon.cooldown, weapon.accuracy = ticks(after.weapon.cooldown, hz), float(after.weapon.accuracy)
            weapon.ready_in = min(weapon.ready_in, weapon.cooldown)
        if esper.has_component(eid, Ammo):
            ammo = esper.component_for_entity(eid, Ammo)
            ammo.clip_size, ammo.reload_ticks = after.ammo.clip, ticks(after.ammo.reload, hz)
            ammo.clip = min(ammo.clip, ammo.clip_size)
        if esper.has_component(eid, Selectable):
            esper.component_for_entity(eid, Selectable).radius = float(after.radius)
        if after.worker is not None and esper.has_component(eid, Worker):
            worker = esper.component_for_entity(eid, Worker)
            worker.capacity = after.worker.capacity
            worker.mine_ticks = ticks(1.0 / after.worker.gather_rate, hz)
            worker.can_build = after.worker.build
            worker.carrying = min(worker.carrying, worker.capacity)
    perception = getattr(world, "perception", None)
    if perception is not None:                   # sight is read from here (fog reads the content itself)
        perception.sight = {uid: float(u.sight) for uid, u in new.units.items()}
    return changed
