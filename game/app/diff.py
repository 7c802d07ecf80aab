"""`rts diff A B`: where two recorded matches part: the first tick their states differ, the first decision that did.

Made for "the same seed before and after a content change". The state: the
replays' periodic sync hashes are compared at every tick both recorded; from the
last tick where they agreed both matches are re-simulated (saves/replay.py
``seek``) one tick at a time to the exact first tick whose sync hash differs,
and the two states there are compared entity by entity. The decisions: the
decision records (ai/records.py) of both replays, in (tick, kind, key) order,
are compared one by one (a commander's ``ms``, wall-clock time, is ignored);
the first pair that differs is shown side by side, naming what changed: for an
NPC, each candidate whose score, eligibility or gate changed and by how much;
for a commander, the orders and the root options whose mean value changed.

>>> changes_between({"kind": "npc", "choice": "a", "candidates": [{"id": "a", "eligible": True, "score": 0.5,
...     "gates": [], "prefs": [], "diagnostics": []}]}, {"kind": "npc", "choice": "a", "candidates": [{"id": "a",
...     "eligible": True, "score": 0.25, "gates": [], "prefs": [], "diagnostics": []}]})
['candidate a: score 0.5 -> 0.25 (-0.25)']
"""
from __future__ import annotations

IGNORED = {"ms"}          # wall-clock fields: informative, never part of what a decision decided


def _order(rec: dict) -> tuple:
    kind = rec["kind"]
    return rec["tick"], kind, rec.get("team" if kind == "commander" else "entity", 0)


def _comparable(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in IGNORED}


def _num(x) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _gate(row) -> str:
    return "-" if row is None else f"{_num(row[1])} ({'ok' if row[2] else 'failed'})"


def changes_between(a: dict, b: dict) -> list[str]:
    """What differs between two records of the same decider at the same tick, in words."""
    out = []
    if a["kind"] == "npc":
        ca = {c["id"]: c for c in a.get("candidates", [])}
        cb = {c["id"]: c for c in b.get("candidates", [])}
        for cid in sorted(set(ca) | set(cb)):
            x, y = ca.get(cid), cb.get(cid)
            if x is None or y is None:
                out.append(f"candidate {cid}: only in {'B' if x is None else 'A'}")
                continue
            if x["eligible"] != y["eligible"]:
                out.append(f"candidate {cid}: eligible {x['eligible']} -> {y['eligible']}")
            gx = {g[0]: g for g in x["gates"]}
            gy = {g[0]: g for g in y["gates"]}
            for gate in sorted(set(gx) | set(gy)):
                p, q = gx.get(gate), gy.get(gate)
                if p != q:
                    out.append(f"candidate {cid}: gate {gate} {_gate(p)} -> {_gate(q)}")
            if x["score"] != y["score"]:
                delta = (f" ({y['score'] - x['score']:+.4g})" if x["score"] is not None and y["score"] is not None
                         else "")
                out.append(f"candidate {cid}: score {_num(x['score'])} -> {_num(y['score'])}{delta}")
            px = {p[0]: p for p in x["prefs"]}
            py = {p[0]: p for p in y["prefs"]}
            for name in sorted(set(px) | set(py)):
                p, q = px.get(name), py.get(name)
                if p != q and p is not None and q is not None:
                    cols = [f"{f} {_num(u)} -> {_num(v)}" for f, u, v in zip(("raw", "norm", "curved", "weight"),
                                                                             p[1:], q[1:]) if u != v]
                    out.append(f"candidate {cid}: input {name}: {', '.join(cols)}")
    else:
        sa = {s[0]: s for s in a.get("stats", [])}
        sb = {s[0]: s for s in b.get("stats", [])}
        for opt in sorted(set(sa) | set(sb)):
            p, q = sa.get(opt), sb.get(opt)
            if p is None or q is None:
                out.append(f"option {opt}: only in {'B' if p is None else 'A'}")
            elif p != q:
                out.append(f"option {opt}: mean value {_num(p[2])} -> {_num(q[2])} ({q[2] - p[2]:+.4g}), "
                           f"playouts {p[1]} -> {q[1]}")
    for key in sorted(set(a) | set(b)):
        if key in IGNORED or key in ("candidates", "stats"):
            continue
        if a.get(key) != b.get(key):
            out.append(f"{key}: {_short(a.get(key))} -> {_short(b.get(key))}")
    return out


def _short(value, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def _by_tick(records):
    """Records (in tick order, as a replay holds them) one tick at a time, each tick's sorted by (kind, key)."""
    group, tick = [], None
    for rec in records:
        if rec["tick"] != tick and group:
            yield sorted(group, key=_order)
            group = []
        tick = rec["tick"]
        group.append(rec)
    if group:
        yield sorted(group, key=_order)


def first_decision_difference(da, db) -> dict | None:
    """The first differing pair of decision records: {tick, kind, key, a, b, changes}; None when all agree.
    ``da``, ``db``: records in tick order (lists, or a replay's streamed ``decisions``); read one tick at a time,
    so memory does not grow with the replays' length."""
    ga, gb = _by_tick(da), _by_tick(db)
    while True:
        sa, sb = next(ga, []), next(gb, [])
        if not sa and not sb:
            return None
        found = _first_difference(sa, sb)
        if found is not None:
            return found


def _first_difference(sa: list, sb: list) -> dict | None:
    i = j = 0
    while i < len(sa) or j < len(sb):
        a = sa[i] if i < len(sa) else None
        b = sb[j] if j < len(sb) else None
        if a is not None and b is not None and _order(a) == _order(b):
            if _comparable(a) != _comparable(b):
                return {"tick": a["tick"], "kind": a["kind"], "key": _order(a)[2], "a": a, "b": b,
                        "changes": changes_between(a, b)}
            i += 1
            j += 1
            continue
        # a decision only one match made (the other decider did not think then)
        first = a if b is None or (a is not None and _order(a) < _order(b)) else b
        only = "A" if first is a else "B"
        return {"tick": first["tick"], "kind": first["kind"], "key": _order(first)[2],
                "a": first if only == "A" else None, "b": first if only == "B" else None,
                "changes": [f"only {only} made this decision"]}
    return None


def first_state_difference(ra, ca, rb, cb, force: bool = False) -> dict | None:
    """The first tick after which the two matches' sync hashes differ, with the state differences there."""
    from saves.replay import diff_states, seek
    from saves.snapshot import snapshot_state
    from game.synchash import sync_hash
    start = max(ra.start_tick, rb.start_tick)
    good = start
    bad = None
    for t in ra.hashes:                   # in tick order, one chunk at a time; the ticks both recorded a hash
        other = rb.hashes.get(t)
        if other is None:
            continue
        if ra.hashes.get(t) == other:
            good = t
        else:
            bad = t
            break
    end = min(ra.end_state_tick, rb.end_state_tick)
    if bad is None:
        if ra.end_state_tick == rb.end_state_tick:
            return None
        bad = end                         # one match goes on; check the ticks after the last common hash
    wa = seek(ra, ca, good, force)
    wb = seek(rb, cb, good, force)
    try:
        from saves.replay import apply_requests
        tick = good
        if sync_hash(wa) == sync_hash(wb):
            while wa.tick < bad and not (wa.over or wb.over):
                apply_requests(wa, ra.requests.get(wa.tick, []), ra.path)
                wa.step()
                apply_requests(wb, rb.requests.get(wb.tick, []), rb.path)
                wb.step()
                tick = wa.tick
                if sync_hash(wa) != sync_hash(wb):
                    break
            else:
                if ra.end_state_tick == rb.end_state_tick:
                    return None
                return {"tick": end, "details": [f"A ends at tick {ra.end_state_tick}, B at tick {rb.end_state_tick}"]}
        details = diff_states(snapshot_state(wa), snapshot_state(wb), labels=("A", "B"))
        return {"tick": tick, "last_equal_tick": tick - 1 if tick > good else None,
                "hash_a": sync_hash(wa), "hash_b": sync_hash(wb), "details": details}
    finally:
        wa.close()
        wb.close()


def diff(ra, ca, rb, cb, force: bool = False) -> dict:
    return {"a": ra.path, "b": rb.path,
            "same_setup": all(ra.header.get(k) == rb.header.get(k) for k in ("scenario", "seed")),
            "state": first_state_difference(ra, ca, rb, cb, force),
            "decision": first_decision_difference(ra.decisions, rb.decisions)}


def side_by_side(a: dict | None, b: dict | None, width: int = 38) -> list[str]:
    """Two wire records as 'field | A | B' lines (candidates one line each)."""
    def rows(rec):
        if rec is None:
            return {}
        out = {}
        for k, v in rec.items():
            if k == "candidates":
                for c in v:
                    gates = ",".join(f"{g[0]}{'' if g[2] else '!'}" for g in c["gates"])
                    out[f"cand {c['id']}"] = (f"{_num(c['score']) if c['eligible'] else 'ineligible'}"
                                              f"{' [' + gates + ']' if gates else ''}")
            elif k == "stats":
                for s in v:
                    out[f"option {s[0]}"] = f"{_num(s[2])} ({s[1]} playouts)"
            elif k not in IGNORED:
                out[k] = _short(v, width)
        return out
    ra, rb = rows(a), rows(b)
    keys = list(ra) + [k for k in rb if k not in ra]
    name_w = max([len(k) for k in keys] + [5])
    lines = [f"  {'field':<{name_w}} | {'A':<{width}} | B"]
    for k in keys:
        x, y = ra.get(k, "-"), rb.get(k, "-")
        mark = " " if x == y else "*"
        lines.append(f"{mark} {k:<{name_w}} | {x:<{width}} | {y}")
    return lines
