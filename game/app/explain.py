"""Why did that NPC do that? Decision records turned into explanations (``rts explain`` and the inspector).

An NPC's decision record (``ai.records.NpcDecision``) holds every candidate's gates and preferences, the scores,
the choice and the reason, the HFSM state path, the running behavior-tree path, what the tree did, and the
plan. ``explain`` adds what the ledger says about the actions involved, and ``lines`` prints it;
``commander_lines`` prints a commander's record (``ai.records.CommanderDecision``) and ``strategy_lines`` a
planned strategy's (``ai.records.StrategyDecision``).
"""
from __future__ import annotations

from ai.records import CommanderDecision, NpcDecision, StrategyDecision
from ai.status import name as status_name


def explain(record: NpcDecision, action_state=None) -> dict:
    """A structured explanation of one NPC decision record, as plain data (what ``--json`` prints and the
    inspector draws). ``action_state(action id) -> [state, reason] | None`` asks the ledger about the plan's
    current step."""
    out = {
        "entity": record.entity, "tick": record.tick, "time": record.time,
        "mode_before": record.mode_before, "mode": record.mode, "choice": record.choice,
        "switch": record.switch, "reason": record.reason, "detail": record.detail,
        "emergency": record.emergency, "held": record.held, "phase": record.phase,
        "state_path": list(record.state), "bt_path": list(record.bt), "status": status_name(record.status),
        "status_reason": record.status_reason, "events": list(record.events),
        "candidates": [], "plan": None,
    }
    for cand in record.candidates:
        c = cand.expanded()
        c["chosen"] = cand.id == record.choice
        for g in c["gates"]:
            g["fact"] = gate_fact(g["gate"])           # the fact read; "ok" is the gate's result, "actual" the fact's
        out["candidates"].append(c)
    plan = record.plan
    if plan is not None:
        out["plan"] = {"mode": plan.mode, "goal": plan.goal, "steps": list(plan.steps), "index": plan.index,
                       "step": plan.step, "action": plan.action, "status": status_name(plan.status),
                       "replans": plan.replans, "log": [list(e) for e in plan.log],
                       "action_state": action_state(plan.action) if plan.action and action_state else None}
    return out


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def gate_fact(label: str) -> str:
    """The fact a gate's label reads: ``x`` for ``x`` and ``not x``, the first word of ``x op value``.

    >>> gate_fact("enemy_visible"), gate_fact("not enemy_visible"), gate_fact("hp_frac < 0.25")
    ('enemy_visible', 'enemy_visible', 'hp_frac')
    """
    if label.startswith("not "):
        return label[4:]
    return label.split(" ", 1)[0]


def _value(v) -> str:
    """A fact's value as a designer writes it in TOML: true/false, numbers, quoted strings."""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    return _num(v)


def gate_line(gate: str, actual, ok: bool) -> str:
    """A gate's result apart from the value of the fact it reads, so ``not x`` failing is not read as "x is false".

    >>> gate_line("not enemy_visible", True, False)
    'gate: not enemy_visible -> false (enemy_visible = true)'
    >>> gate_line("ammo > 0", 3, True)
    'gate: ammo > 0 -> true (ammo = 3)'
    >>> gate_line("enemy_visible", None, False)
    'gate: enemy_visible -> false (enemy_visible is missing)'
    """
    fact = gate_fact(gate)
    value = f"{fact} is missing" if actual is None else f"{fact} = {_value(actual)}"
    return f"gate: {gate} -> {'true' if ok else 'false'} ({value})"


def lines(e: dict) -> list[str]:
    """Human-readable explanation, one line per fact."""
    out = [f"entity {e['entity']} at tick {e['tick']} ({e['time']:.2f} s of game time)"]
    before = e["mode_before"] or "idle"
    now = e["mode"] or "idle"
    verdict = f"switched {before} -> {now}" if e["switch"] and before != now else \
        ("restarted " + now if e["switch"] else f"stayed in {now}")
    out.append(f"decision: {verdict} ({e['reason']}{', ' + e['phase'] if e['phase'] == 'release' else ''})")
    if e["detail"]:
        out.append(f"  why: {e['detail']}")
    if e["emergency"]:
        out.append(f"  emergency: {e['emergency']}")
    if e["held"] is not None:
        out.append(f"  the previous mode had run {e['held']:.2f} s")
    out.append("candidates:")
    for c in sorted(e["candidates"], key=lambda c: (not c["eligible"], -(c["score"] or 0.0), c["id"])):
        mark = "*" if c["chosen"] else " "
        if c["eligible"]:
            out.append(f" {mark} {c['id']:<12} score {c['score']:.3f}")
        else:
            out.append(f" {mark} {c['id']:<12} ineligible")
        for g in c["gates"]:
            out.append("      " + gate_line(g["gate"], g["actual"], g["ok"]))
        for p in c["prefs"]:
            out.append(f"      pref {p['input']:<16} raw {_num(p['raw']):<9} normalised {_num(p['norm']):<7} "
                       f"curved {_num(p['curved']):<7} weight {_num(p['weight'])}")
        for d in c["diagnostics"]:
            out.append(f"      diagnostic: {d}")
    out.append(f"state: {' > '.join(e['state_path']) or '-'}")
    out.append(f"behavior tree: {' > '.join(e['bt_path']) or '-'}")
    if e["status"] not in ("running", "idle"):
        out.append(f"mode {e['status']}: {e['status_reason']}")
    for ev in e["events"]:
        out.append(f"  {ev}")
    plan = e["plan"]
    if plan:
        steps = plan["steps"]
        if plan["mode"]:
            out.append(f"plan: {plan['mode']} {plan['goal']} {steps} ({plan['status']}, {plan['replans']} replans)")
        else:
            out.append(f"plan: none stands ({plan['status']}, {plan['replans']} replans)")
        if plan["step"] is not None:
            state = plan["action_state"]
            ledger = f", ledger: {state[0]}{' (' + state[1] + ')' if state[1] else ''}" if state else ""
            out.append(f"  step {plan['index'] + 1}/{len(steps)}: {plan['step']} as action #{plan['action']}{ledger}")
        elif steps:
            out.append(f"  all {len(steps)} steps done")
        for t, line in plan["log"]:
            out.append(f"  [{t:.2f} s] {line}")
    return out


VIEWS = {
    "fog": "what its team sees and remembers (fog of war); enemy squads never seen are estimated at their "
           "starting forces and places",
    "sees_all": "everything: its profile ignores fog of war (sees_all, a difficulty option)",
    "all": "everything: the match has no fog of war",
}


def commander_lines(rec: CommanderDecision) -> list[str]:
    out = [f"commander of team {rec.team} ({rec.profile}, {rec.algorithm}) at tick {rec.tick}: "
           f"{rec.playouts} playouts, {rec.iterations} iterations, value {rec.value:.3f}",
           "  it knew: " + VIEWS.get(rec.view, rec.view)]
    for name, region, hp in rec.groups:
        out.append(f"  group {name}: region {region}, {hp:.0f} hp")
    for squad, kind, region in rec.orders:
        out.append(f"  order: squad {squad} {kind} region {region}")
    for label, visits, mean in rec.stats[:8]:
        if rec.algorithm == "portfolio":      # Portfolio Greedy Search: each group's script (ours, then expected)
            out.append(f"  script {label}: {visits} other scripts tried, value {mean:.3f}")
        else:
            out.append(f"  option {label}: {visits} playouts, mean {mean:.3f}")
    return out


def strategy_lines(rec: StrategyDecision) -> list[str]:
    """A planned strategy's decision: the facts, the postures' candidates and scores, the HTN plan with each
    step's ledger state, and its log."""
    before, now = rec.posture_before or "none", rec.posture or "none"
    verdict = f"switched {before} -> {now}" if rec.switch and before != now else f"stayed in {now}"
    out = [f"strategy of team {rec.team} ({rec.profile}) at tick {rec.tick}: {verdict} ({rec.reason})"]
    if rec.detail:
        out.append(f"  why: {rec.detail}")
    if rec.emergency:
        out.append(f"  emergency: {rec.emergency}")
    out.append(f"  army order: {rec.order}")
    out.append("facts: " + ", ".join(f"{k} = {_value(v)}" for k, v in rec.facts))
    out.append("postures:")
    for c in sorted(rec.candidates, key=lambda c: (not c.eligible, -(c.score or 0.0), c.id)):
        mark = "*" if c.id == rec.posture else " "
        out.append(f" {mark} {c.id:<10} " + (f"score {c.score:.3f}" if c.eligible else "ineligible"))
        for gate, actual, ok in c.gates:
            out.append("      " + gate_line(gate, actual, ok))
        for name, raw, norm, curved, weight in c.prefs:
            out.append(f"      pref {name:<16} raw {_num(raw):<9} normalised {_num(norm):<7} curved {_num(curved):<7} "
                       f"weight {_num(weight)}")
    plan = rec.plan
    if plan is not None:
        out.append(f"plan: htn {plan.goal} ({status_name(plan.status)}, {plan.replans} replans)")
        for i, (task, action, state) in enumerate(rec.steps):
            mark = ">" if i == plan.index else " "
            out.append(f" {mark} {i + 1}. {task:<15} " + (f"action #{action}: " if action else "") + state)
        for t, line in plan.log:
            out.append(f"  [{t:.2f} s] {line}")
    return out
