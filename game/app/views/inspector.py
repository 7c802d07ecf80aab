"""The AI inspector panel: what the inspected NPC is thinking, drawn from its latest decision record.

Shows the HFSM state path, the running behavior-tree path, every utility candidate as a bar (its score; grey
and marked when a gate fails), the decision's reason (ordinary, invalidation, emergency, held by hysteresis)
and detail, the plan with its current step and that step's ledger state, and the commander's latest decision
for the NPC's team. The same panel serves the play window (live records) and the replay viewer (recorded
ones): it only draws what ``game.app.explain.explain`` gives it.
"""
from __future__ import annotations

import textwrap

import arcade

from ai.records import CommanderDecision
from game.app.views import palette

WIDTH = 340
LINE = 16


class InspectorPanel:
    def __init__(self, window):
        self.window = window
        self.texts = [arcade.Text("", 0, 0, palette.TEXT, 11, font_name=("DejaVu Sans Mono", "monospace"))
                      for _ in range(40)]

    def _text(self, i: int, text: str, x: float, y: float, color=palette.TEXT) -> None:
        t = self.texts[i]
        t.text = text
        t.x, t.y = x, y
        t.color = color
        t.draw()

    def draw(self, title: str, explanation: dict | None, commander: CommanderDecision | None = None,
             notes: list[str] | None = None) -> None:
        """``explanation``: ``game.app.explain.explain`` of the NPC's record; ``commander``: its team's latest
        commander record; ``notes``: for an entity no brain drives (a worker, a building), what the ledger says it
        is doing, in lines (``game.app.entities.entity_lines``)."""
        w, h = self.window.width, self.window.height
        left = w - WIDTH
        arcade.draw_lrbt_rectangle_filled(left, w, 0, h, palette.PANEL)
        y = h - 22
        i = 0
        self._text(i, title, left + 10, y, palette.INSPECT)
        i += 1
        y -= LINE + 4
        e = explanation
        if e is None:
            if not notes:
                self._text(i, "no decision recorded yet", left + 10, y, palette.DIM)
                return
            for note in notes:
                for part in textwrap.wrap(note.strip(), 42) or [""]:
                    if i >= len(self.texts) - 1:
                        return
                    self._text(i, part, left + 10, y, palette.TEXT if note.startswith("  ") else palette.SELECT)
                    i += 1
                    y -= LINE
            return
        rows = [
            (f"mode  {e['mode'] or 'idle'}   ({e['reason']})", palette.TEXT),
            ("state " + (" > ".join(e["state_path"]) or "-"), palette.TEXT),
            ("tree  " + (" > ".join(e["bt_path"]) or "-"), palette.TEXT),
        ]
        if e.get("detail"):
            wrapped = textwrap.wrap(e["detail"], 40)
            for part in wrapped[:3]:
                rows.append((part if part is wrapped[-1] or len(wrapped) <= 3 else part, palette.DIM))
        if e.get("held") is not None:
            rows.append((f"previous mode held {e['held']:.2f} s", palette.DIM))
        for text, color in rows:
            self._text(i, text, left + 10, y, color)
            i += 1
            y -= LINE
        y -= 6
        self._text(i, "utility", left + 10, y, palette.SELECT)
        i += 1
        y -= LINE
        for c in sorted(e["candidates"], key=lambda c: c["id"]):
            label = ("* " if c["chosen"] else "  ") + c["id"]
            bar_left = left + 120
            bar_w = WIDTH - 165
            arcade.draw_lrbt_rectangle_filled(bar_left, bar_left + bar_w, y - 2, y + 9, (40, 40, 48))
            if c["eligible"]:
                color = palette.SELECT if c["chosen"] else palette.AMMO
                arcade.draw_lrbt_rectangle_filled(bar_left, bar_left + bar_w * (c["score"] or 0.0), y - 2, y + 9, color)
                self._text(i, f"{label:<14}", left + 10, y, palette.TEXT)
                i += 1
                self._text(i, f"{c['score']:.2f}", bar_left + bar_w + 2, y, palette.DIM)
            else:
                failed = next((g["gate"] for g in c["gates"] if not g["ok"]), None) or \
                    (c["diagnostics"][0] if c["diagnostics"] else "ineligible")
                self._text(i, f"{label:<14}", left + 10, y, palette.DIM)
                i += 1
                self._text(i, _clip("x " + failed, 28), bar_left + 4, y, palette.HP_LOW)
            i += 1
            y -= LINE
            if i >= len(self.texts) - 8:
                break
        plan = e["plan"]
        if plan and plan["steps"]:
            y -= 6
            steps = plan["steps"]
            self._text(i, f"plan {plan['mode']} {plan['goal']} ({plan['status']})", left + 10, y, palette.SELECT)
            i += 1
            y -= LINE
            if plan["step"] is not None:
                state = plan["action_state"]
                ledger = f"#{plan['action']} {state[0]}" if state else (f"#{plan['action']}" if plan["action"] else "")
                line = f"step {plan['index'] + 1}/{len(steps)} {plan['step']} {ledger}"
            else:
                line = f"all {len(steps)} steps done"
            self._text(i, _clip(line, 44), left + 10, y)
            i += 1
            y -= LINE
        if commander:
            y -= 6
            self._text(i, f"commander ({commander.algorithm}, value {commander.value:.2f})", left + 10, y,
                       palette.SELECT)
            i += 1
            y -= LINE
            for squad, kind, region in commander.orders[:4]:
                self._text(i, f"squad {squad}: {kind} region {region}", left + 10, y, palette.DIM)
                i += 1
                y -= LINE


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"
