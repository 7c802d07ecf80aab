"""Why did that NPC do that? Decision records turned into explanations (``rts explain`` and the inspector).

A decision record (ai/brain.py + systems/brains.py) holds every candidate's gates and preferences, the scores,
the choice and the reason, the HFSM state path, the running behavior-tree path, what the tree did, and the
plan. ``explain`` adds what the ledger says about the actions involved, and ``lines`` prints it.
"""
from __future__ import annotations

from bisect import bisect_right

from ai.utility import expand


class RecordIndex:
    """Decision records by entity, for "the last decision at or before tick T"."""

    def __init__(self, records):
        self.by_entity: dict[int, list] = {}
        for rec in records:
            self.by_entity.setdefault(rec["entity"], []).append(rec)
        for recs in self.by_entity.values():
            recs.sort(key=lambda r: r["tick"])
        self._ticks = {e: [r["tick"] for r in recs] for e, recs in self.by_entity.items()}

    def at(self, entity: int, tick: int) -> dict | None:
        ticks = self._ticks.get(entity)
        if not ticks:
            return None
        i = bisect_right(ticks, tick)
        return self.by_entity[entity][i - 1] if i else None

    def around(self, entity: int, tick: int, before: int = 3) -> list[dict]:
        ticks = self._ticks.get(entity, [])
        i = bisect_right(ticks, tick)
        return self.by_entity.get(entity, [])[max(0, i - before):i]

    def commander(self, team: int, tick: int) -> dict | None:
        return self.at(-(team + 1), tick)


def explain(record: dict, action_state=None) -> dict:
    """A structured explanation of one NPC decision record. ``action_state(id) -> (state, reason)`` or None."""
    chosen = record.get("choice")
    out = {
        "entity": record.get("entity"), "tick": record.get("tick"), "time": record.get("time"),
        "mode_before": record.get("mode_before"), "mode": record.get("mode"), "choice": chosen,
        "switch": record.get("switch"), "reason": record.get("reason"), "detail": record.get("detail"),
        "emergency": record.get("emergency"), "held": record.get("held"), "phase": record.get("phase"),
        "state_path": record.get("state", []), "bt_path": record.get("bt", []), "status": record.get("status"),
        "status_reason": record.get("status_reason"), "events": record.get("events", []),
        "candidates": [], "plan": None,
    }
    for cand in record.get("candidates", []):
        c = expand(cand)
        c["chosen"] = cand.get("id") == chosen
        out["candidates"].append(c)
    plan = record.get("plan")
    if plan:
        plan = dict(plan)
        aid = plan.get("action") or 0
        if aid and action_state is not None:
            plan["action_state"] = action_state(aid)
        out["plan"] = plan
    return out


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def lines(e: dict) -> list[str]:
    """Human-readable explanation, one line per fact."""
    out = [f"entity {e['entity']} at tick {e['tick']} ({e['time']:.2f} s of game time)" if e.get("time") is not None
           else f"entity {e['entity']} at tick {e['tick']}"]
    before = e["mode_before"] or "idle"
    now = e["mode"] or "idle"
    verdict = f"switched {before} -> {now}" if e["switch"] and before != now else \
        ("restarted " + now if e["switch"] else f"stayed in {now}")
    out.append(f"decision: {verdict} ({e['reason']}{', ' + e['phase'] if e.get('phase') == 'release' else ''})")
    if e.get("detail"):
        out.append(f"  why: {e['detail']}")
    if e.get("emergency"):
        out.append(f"  emergency: {e['emergency']}")
    if e.get("held") is not None:
        out.append(f"  the previous mode had run {e['held']:.2f} s")
    out.append("candidates:")
    for c in sorted(e["candidates"], key=lambda c: (not c["eligible"], -(c["score"] or 0.0), c["id"])):
        mark = "*" if c["chosen"] else " "
        if c["eligible"]:
            out.append(f" {mark} {c['id']:<12} score {c['score']:.3f}")
        else:
            out.append(f" {mark} {c['id']:<12} ineligible")
        for g in c["gates"]:
            out.append(f"      gate {g['gate']:<28} actual {_num(g['actual']):<10} {'ok' if g['ok'] else 'FAILS'}")
        for p in c["prefs"]:
            out.append(f"      pref {p['input']:<16} raw {_num(p['raw']):<9} normalised {_num(p['norm']):<7} "
                       f"curved {_num(p['curved']):<7} weight {_num(p['weight'])}")
        for d in c.get("diagnostics", []):
            out.append(f"      diagnostic: {d}")
    out.append(f"state: {' > '.join(e['state_path']) or '-'}")
    out.append(f"behavior tree: {' > '.join(e['bt_path']) or '-'}")
    if e.get("status") and e["status"] != "running":
        out.append(f"mode {e['status']}: {e.get('status_reason') or ''}")
    for ev in e["events"]:
        out.append(f"  {ev}")
    plan = e.get("plan")
    if plan:
        steps = plan.get("steps") or []
        idx = plan.get("index", 0)
        step = steps[idx] if idx < len(steps) else None
        out.append(f"plan: {plan.get('mode')} {plan.get('goal')} {steps} ({plan.get('status')}, "
                   f"{plan.get('replans', 0)} replans)")
        if step is not None:
            state = plan.get("action_state")
            ledger = f", ledger: {state[0]}{' (' + state[1] + ')' if state and state[1] else ''}" if state else ""
            out.append(f"  step {idx + 1}/{len(steps)}: {step} as action #{plan.get('action')}{ledger}")
        for t, line in plan.get("log", []):
            out.append(f"  [{t:.2f} s] {line}")
    return out


def commander_lines(rec: dict) -> list[str]:
    out = [f"commander of team {rec['team']} ({rec['profile']}, {rec['algorithm']}) at tick {rec['tick']}: "
           f"{rec['playouts']} playouts, {rec['iterations']} iterations, value {rec['value']:.3f}"]
    for name, region, hp in rec.get("groups", []):
        out.append(f"  group {name}: region {region}, {hp:.0f} hp")
    for squad, kind, region in rec.get("orders", []):
        out.append(f"  order: squad {squad} {kind} region {region}")
    for label, visits, mean in rec.get("stats", [])[:8]:
        out.append(f"  option {label}: {visits} playouts, mean {mean:.3f}")
    return out
