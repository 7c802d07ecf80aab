"""Rendering figures (needs a display: run under xvfb-run), each beside a baseline from the same run.

- frame time with 500 units on screen (the whole map in view, every unit and its health bar drawn), beside the
  same window drawing an empty scene (map, HUD and minimap, no units);
- a frame with 500 units under the player's fog of war (the team's view: a fog texture, unseen enemies left out)
  and a fight's effects (300 tracers with muzzle and hit flashes, 40 fading bodies, order markers, a minimap
  ping), as a ratio to the empty scene (target: within 2x);
- the simulation's tick rate while the window renders in real time (frames paced by the wall clock, the fixed
  step clock turning real time into ticks): it stays at 30 ticks per second of real time, beside the same
  match's headless ticks/s;
- the same for a spectator watching ``army_2000`` once the rooms are fighting (after 300 ticks): ticks per real
  second, frames per second and the median time a frame's scene update (``Scene.sync``) and minimap take, beside
  the same match's headless ticks/s (issue 20: a 2,000-unit army watched in the window).

A frame is timed from on_draw to the GPU having finished it (``ctx.finish()``).
"""
from __future__ import annotations

import math
import os
import time


def _window(units: int, player_team: int | None = None):
    from benchmarks.run import scaled_content
    from content.loader import load_content
    from game.app.views.play import PlayWindow
    content, sid = scaled_content(load_content(), units, ai="brain")
    win = PlayWindow(content, sid, 1, player_team=player_team, difficulty=None, mute=True)
    win.camera.zoom = min(win.width / (win.world.tilemap.width * 16), win.height / (win.world.tilemap.height * 16))
    return win


def _frame_ms(win, frames: int) -> float:
    times = []
    for _ in range(frames):
        win.dispatch_events()
        start = time.perf_counter()
        win.on_draw()
        win.ctx.finish()
        times.append(time.perf_counter() - start)
        win.flip()
    times.sort()
    return 1000 * times[len(times) // 2]                      # the median frame


def bench_frames(units: int = 500, frames: int = 60) -> dict:
    win = _window(units)
    try:
        win.clock.paused = True
        for _ in range(3):                                      # let the sprites exist and every bar show
            win.world.step()
        win.on_update(0)
        drawn = len(win.scene.units)
        full = _frame_ms(win, frames)
        win.scene.draw_units = False
        empty = _frame_ms(win, frames)
        win.scene.draw_units = True
        return {"units": drawn, "frame_ms": round(full, 2), "empty_frame_ms": round(empty, 2),
                "extra_ms": round(full - empty, 2)}
    finally:
        win.close()


def _effects(win, shots: int = 300, deaths: int = 40) -> None:
    """A big fight's worth of effects, made up so every frame draws the same amount (none of them expire)."""
    import esper
    from components import Position, Team, UnitKind
    world = win.world
    world.activate()
    units = sorted((e, p.x, p.y, t.team) for e, (p, t, _k) in esper.get_components(Position, Team, UnitKind))
    rows = []
    for i in range(shots):                       # shots within a weapon's range (6 tiles), in every direction
        _e, x, y, _t = units[i % len(units)]
        a = 2 * math.pi * i / shots
        rows.append(("shot", 0, 0, x, y, x + 6 * math.cos(a), y + 6 * math.sin(a), i % 2 == 0, 1.0))
    for i in range(deaths):
        _e, x, y, team = units[(i * 11) % len(units)]
        rows.append(("death", 0, team, "rifle", x, y, 0, 0))
    effects = win.scene.effects
    saved = win.scene.view_team
    win.scene.view_team = None                   # every made-up effect is drawn, whoever would see it
    effects.add(rows)
    win.scene.view_team = saved
    for x, y, _t in [(u[1], u[2], u[3]) for u in units[:8]]:
        effects.mark(x, y, attack=_t == 1)
    effects.ping(10, 10)
    effects.TRACER_S = effects.HIT_S = effects.FLASH_S = effects.DEATH_S = effects.MARK_S = 1e9


def bench_fog_effects(units: int = 500, frames: int = 60) -> dict:
    """The player's view of a big fight (fog of war and effects) against the empty scene of the same window."""
    win = _window(units, player_team=0)
    try:
        win.clock.paused = True
        win.show_help = False
        for _ in range(6):                                      # the fog's first update
            win.world.step()
        win.on_update(0)
        _effects(win)
        full = _frame_ms(win, frames)
        scene = win.scene
        effects, scene.effects = scene.effects, type(scene.effects)(scene)
        scene.draw_units = False
        view, scene.view_team = scene.view_team, None           # no fog drawn
        win.selected = []
        empty = _frame_ms(win, frames)
        scene.effects, scene.draw_units, scene.view_team = effects, True, view
        return {"units": len(scene.units), "tracers": len(effects.shots), "frame_ms": round(full, 2),
                "empty_frame_ms": round(empty, 2), "ratio": round(full / empty, 2), "target_ratio": 2.0,
                "meets_target": full / empty <= 2.0}
    finally:
        win.close()


def _paced(win, seconds: float) -> dict:
    """Run the window for ``seconds`` with frames paced by the wall clock (the fixed-step clock turning real time
    into ticks), then 60 ticks of the same match headless: ticks per real second windowed, frames per second, and
    the headless ticks/s."""
    last = begin = time.perf_counter()
    start_tick = win.world.tick
    frames = 0
    while time.perf_counter() - begin < seconds:
        now = time.perf_counter()
        win.dispatch_events()
        win.on_update(now - last)
        last = now
        win.on_draw()
        win.flip()
        frames += 1
    elapsed = time.perf_counter() - begin
    windowed = (win.world.tick - start_tick) / elapsed
    t0 = time.perf_counter()
    win.world.run(60)
    headless = 60 / (time.perf_counter() - t0)
    return {"ticks_per_s_windowed": round(windowed, 1), "fps": round(frames / elapsed, 1),
            "headless_ticks_per_s": round(headless, 1)}


def bench_realtime(units: int = 500, seconds: float = 4.0) -> dict:
    """Frames paced by the wall clock: how many ticks per real second the windowed game runs."""
    win = _window(units)
    try:
        return {"units": units, **_paced(win, seconds)}
    finally:
        win.close()


def bench_army_window(units: int = 2000, warm: int = 300, seconds: float = 6.0) -> dict:
    """A spectator watching ``army_N`` in real time once the fight is on (``warm`` ticks run headless first)."""
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.app.views.play import PlayWindow
    content, sid = army_content(load_content(), units)
    win = PlayWindow(content, sid, 1, player_team=None, difficulty=None, mute=True)
    spent: dict = {"sync": [], "minimap": []}
    scene = win.scene
    real_sync, real_minimap = scene.sync, scene.draw_minimap

    def timed(name, f):
        def call(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[name].append(time.perf_counter() - t)
        return call
    try:
        win.world.run(warm)
        scene.sync, scene.draw_minimap = timed("sync", real_sync), timed("minimap", real_minimap)
        paced = _paced(win, seconds)
        med = {k: sorted(v)[len(v) // 2] * 1000 if v else 0.0 for k, v in spent.items()}
        return {"units": units, "after_ticks": warm, **paced, "sync_ms": round(med["sync"], 2),
                "minimap_ms": round(med["minimap"], 2)}
    finally:
        scene.sync, scene.draw_minimap = real_sync, real_minimap
        win.close()


def run() -> dict:
    if not os.environ.get("DISPLAY"):
        return {"skipped": "no display: run `xvfb-run -a rts bench --suite render`"}
    return {"frames": bench_frames(), "fog_effects": bench_fog_effects(), "realtime": bench_realtime(),
            "army_window": bench_army_window()}


def print_report(r: dict) -> None:
    if "skipped" in r:
        print(f"rendering: skipped ({r['skipped']})")
        return
    f, rt = r["frames"], r["realtime"]
    print(f"frame with {f['units']} units on screen: {f['frame_ms']:.2f} ms; empty scene {f['empty_frame_ms']:.2f} ms "
          f"(+{f['extra_ms']:.2f} ms for the units)")
    fe = r.get("fog_effects")
    if fe:
        print(f"the player's view of a fight ({fe['units']} units, fog of war, {fe['tracers']} tracers, flashes, "
              f"bodies, markers): {fe['frame_ms']:.2f} ms, {fe['ratio']:.2f}x the empty scene's "
              f"{fe['empty_frame_ms']:.2f} ms (target {fe['target_ratio']:g}x: "
              f"{'met' if fe['meets_target'] else 'MISSED'})")
    print(f"{rt['units']} units in the window in real time: {rt['ticks_per_s_windowed']:.1f} ticks per second at "
          f"{rt['fps']:.0f} fps (the game runs at 30); headless the same match runs {rt['headless_ticks_per_s']:.0f} "
          f"ticks/s")
    aw = r.get("army_window")
    if aw:
        print(f"a spectator watching army_{aw['units']} fight (after {aw['after_ticks']} ticks): "
              f"{aw['ticks_per_s_windowed']:.1f} ticks per real second at {aw['fps']:.1f} fps (a frame's scene update "
              f"{aw['sync_ms']:.1f} ms, minimap {aw['minimap_ms']:.1f} ms); headless the same match runs "
              f"{aw['headless_ticks_per_s']:.0f} ticks/s")
