"""`rts explain` prints a gate's result apart from the value of the fact it reads (issue 17.7)."""
from ai.brain import Brain
from ai.conditions import Condition
from ai.hfsm import Machine, State
from ai.utility import Candidate, ModeSelector
from game.app.explain import explain, gate_line, lines
from tests.aihelpers import FakeActuator


def test_a_failed_negated_gate_reads_false_beside_the_facts_true_value():
    assert gate_line("not enemy_visible", True, False) == "gate: not enemy_visible -> false (enemy_visible = true)"
    assert gate_line("hp_frac < 0.25", 0.5, False) == "gate: hp_frac < 0.25 -> false (hp_frac = 0.500)"
    assert gate_line("door == 'open'", "shut", False) == "gate: door == 'open' -> false (door = 'shut')"
    assert gate_line("has_ammo", None, False) == "gate: has_ammo -> false (has_ammo is missing)"


def test_explain_lines_of_a_real_decision():
    sel = ModeSelector([Candidate("patrol", gates=(Condition("enemy_visible", "==", False),)),
                        Candidate("engage", gates=(Condition("enemy_visible"), Condition("ammo", ">", 0)))])
    brain = Brain("g", sel, Machine([State("patrol"), State("engage")]))
    rec = brain.think(brain.new_state(), {"enemy_visible": True, "ammo": 4}, 1.0, FakeActuator())
    rec.entity, rec.tick = 5, 30
    data = explain(rec)
    text = "\n".join(lines(data))
    assert "gate: not enemy_visible -> false (enemy_visible = true)" in text
    assert "gate: enemy_visible -> true (enemy_visible = true)" in text
    assert "gate: ammo > 0 -> true (ammo = 4)" in text
    gates = {g["gate"]: g for c in data["candidates"] for g in c["gates"]}
    assert gates["not enemy_visible"] == {"gate": "not enemy_visible", "actual": True, "ok": False,
                                          "fact": "enemy_visible"}
