"""The `rts` command.

Headless commands (match, validate, bench) never import arcade; only `play`
loads the window code, and only when it runs. Every user error (bad content,
bad arguments, unknown names) is one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _load(mods):
    from content.loader import load_content
    return load_content(mods or [])


def _scenario(content, name: str) -> str:
    if name not in content.scenarios:
        known = ", ".join(sorted(content.scenarios)) or "none"
        raise CliError(f"unknown scenario '{name}' (known: {known})")
    return name


def _team_profiles(content, scenario: str, pairs, flag: str, known: dict, what: str) -> dict[int, str]:
    """``TEAM=PROFILE`` arguments (a team's index or name) -> {team index: profile id}."""
    teams = content.scenarios[scenario].teams
    out = {}
    for pair in pairs or ():
        team_text, sep, name = pair.partition("=")
        if not sep or not name:
            raise CliError(f"{flag} {pair!r}: expected TEAM=PROFILE, e.g. {flag} 1=macro")
        names = [t.name for t in teams]
        if team_text.isdigit() and int(team_text) < len(teams):
            team = int(team_text)
        elif team_text in names:
            team = names.index(team_text)
        else:
            raise CliError(f"{flag} {pair!r}: no team '{team_text}' in scenario '{scenario}' "
                           f"(teams: {', '.join(f'{i}={n}' for i, n in enumerate(names))})")
        if name not in known:
            raise CliError(f"{flag} {pair!r}: unknown {what} '{name}' (known: {', '.join(sorted(known)) or 'none'})")
        out[team] = name
    return out


def cmd_match(args) -> int:
    from game.victory import TIME_LIMIT
    from game.world import World
    from saves.container import check_regular
    from saves.replay import ReplayRecorder, step_loaded
    from saves.snapshot import load_snapshot, save_snapshot
    # every argument and path is checked before content is loaded or a tick is run
    save_tick, save_file = None, None
    if args.save_at:
        try:
            save_tick = _parse_int(args.save_at[0], 0, MAX_TICKS)
        except ValueError as exc:
            raise CliError(f"--save-at TICK FILE: {exc}") from None
        save_file = args.save_at[1]
        check_output(save_file, "--save-at")
    if args.record:
        check_output(args.record, "--record", part=True)
        if args.save_at and os.path.abspath(args.record) == os.path.abspath(save_file):
            raise CliError("--record and --save-at name the same file")
    if args.load:
        check_regular(args.load)
    content = _load(args.mod)
    if args.load:
        if args.strategy:
            raise CliError("--strategy cannot change a loaded match (its teams' strategies are in the save)")
        world = load_snapshot(args.load, content, force=args.force)
        step = lambda: step_loaded(world, str(args.load))    # noqa: E731 - a hostile save: one line, not a traceback
    else:
        scenario = _scenario(content, args.scenario)
        strategies = _team_profiles(content, scenario, args.strategy, "--strategy", content.strategies, "strategy")
        world = World(content, scenario, args.seed, strategies=strategies)
        step = world.step
    world.timings = args.timings
    recorder = None
    try:
        if args.ticks is not None:
            # --ticks is the match's tick limit, counted from the match's start; with --load it replaces the
            # saved limit (so it can extend a match saved at its limit), and must not lie before the saved tick
            if args.ticks < world.tick:
                raise CliError(f"--ticks {args.ticks} is before the loaded tick {world.tick}")
            world.max_ticks = args.ticks
        if args.load and world.over and world.end_reason == TIME_LIMIT and world.tick < world.max_ticks:
            # saved as it reached its old tick limit: the new limit lets it run on (nothing else ended it)
            world.over, world.winner, world.winner_side, world.end_reason = False, None, None, ""
            print(f"note: the loaded match ended at its tick limit {world.tick}; running on to --ticks "
                  f"{world.max_ticks}", file=sys.stderr)
        elif args.load and world.over:
            print(f"note: the loaded match is already over ({world.end_reason or 'ended'} at tick {world.tick}); "
                  "nothing to run", file=sys.stderr)
        elif args.load and world.tick >= world.max_ticks:
            print(f"note: the loaded match is at its tick limit {world.max_ticks}; give a larger --ticks to run it "
                  "on", file=sys.stderr)
        if save_tick is not None and save_tick < world.tick:
            raise CliError(f"--save-at {save_tick} is before the starting tick {world.tick}")
        if save_tick is not None and save_tick > world.max_ticks:
            raise CliError(f"--save-at {save_tick} is after the match's last tick {world.max_ticks}")
        if args.record:
            try:
                recorder = ReplayRecorder(args.record, world, keyframe_every=max(1, round(args.keyframe_every * world.hz)),
                                          hash_every=args.hash_every, mods=[str(m) for m in args.mod])
            except OSError as exc:
                raise CliError(f"--record {args.record}: cannot write: {exc.strerror or exc}") from None
        saved = False
        while True:
            if save_tick is not None and world.tick == save_tick and not saved:
                try:
                    save_snapshot(world, save_file)
                except OSError as exc:
                    raise CliError(f"--save-at {save_file}: cannot write: {exc.strerror or exc}") from None
                saved = True
                print(f"saved tick {world.tick} to {save_file}", file=sys.stderr)
            if world.over or world.tick >= world.max_ticks:
                world.over = True
                break
            step()
            if recorder:
                recorder.after_tick(world)
        if save_tick is not None and not saved:
            raise CliError(f"the match ended at tick {world.tick}, before --save-at {save_tick}")
        if recorder:
            recorder.close(world)
            recorder = None
            print(f"recorded {world.tick} ticks to {args.record}", file=sys.stderr)
        summary = world.summary()
    finally:
        if recorder:
            recorder.abort()
        world.close()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        verb = "win" if len(summary["winners"]) > 1 else "wins"
        result = f"{summary['winner']} {verb}" if summary["winner"] else "draw"
        why = f" by {summary['reason']}" if summary["reason"] else ""
        print(f"{summary['scenario']} (seed {summary['seed']}): {result}{why} after {summary['ticks']} ticks "
              f"({summary['ticks'] / 30:.1f} s of game time)")
        print("alive: " + ", ".join(f"{name} {n}" for name, n in summary["alive"].items()))
        if any(summary["buildings"].values()):
            print("buildings: " + ", ".join(f"{name} {n}" for name, n in summary["buildings"].items()))
        print("score: " + ", ".join(f"{name} {s:g}" for name, s in summary["score"].items()))
        print(f"sync hash: {summary['sync_hash']}")
    return 0


def _in_window(run):
    """Run a window; a machine with no display is a one-line error, not pyglet's traceback."""
    try:
        return run()
    except Exception as exc:
        if type(exc).__name__ == "NoSuchDisplayException":
            raise CliError("no display to open a window on (set DISPLAY, or run under xvfb-run)") from None
        raise


def _open_replay(args):
    """Read FILE, warn if it was cut short, load the content it was recorded with (or --mod), check they fit."""
    from saves.replay import check_compatible, read_replay
    replay = read_replay(args.file)
    if replay.warning:
        print(f"warning: {args.file}: {replay.warning}", file=sys.stderr)
    content = _load(args.mod or replay.header.get("mods") or [])
    check_compatible(replay, content, args.force)
    return replay, content


def cmd_replay(args) -> int:
    from saves.replay import seek, state_summary, verify
    replay, content = _open_replay(args)
    if args.view:
        def view():
            from game.app.views.replay_view import run_replay_view   # window code is loaded only here and in `play`
            return run_replay_view(content, replay, force=args.force, frames=args.frames, screenshot=args.screenshot)
        return _in_window(view)
    if args.verify:
        result = verify(replay, content, force=args.force)
        if args.json:
            print(json.dumps({"verified": result.ok, "ticks": result.ticks, "first_divergent_tick": result.first_bad_tick,
                              "details": result.details}, sort_keys=True))
        elif result.ok:
            print(f"verified {result.ticks} ticks")
        else:
            print(f"divergence at tick {result.first_bad_tick}")
            for line in result.details:
                print(line)
        return 0 if result.ok else 1
    from game.app.entities import building_status, economy_state, has_economy
    world = seek(replay, content, args.to, force=args.force)
    try:
        summary = state_summary(world)
        economy = has_economy(world)
        extra = economy_state(world)
    finally:
        world.close()
    loads = extra.pop("loads")
    for u in summary["units"]:
        u["carrying"] = loads[u["entity"]][0] if u["entity"] in loads else None
    summary.update(extra)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(f"tick {summary['ticks']} of {summary['scenario']} (seed {summary['seed']})")
    print("alive: " + ", ".join(f"{name} {n}" for name, n in summary["alive"].items()))
    print(f"sync hash: {summary['sync_hash']}")
    if economy:
        print(f"{'team':>4} {'name':<10} {'stock':>6} {'held':>5} {'gathered':>8} {'pop':>7} {'score':>9} "
              f"{'units':>5}  buildings")
        for t in summary["teams"]:
            pop = f"{'?' if t['population'] is None else t['population']}/{t['population_cap']}"
            building = f" (+{t['under_construction']} under construction)" if t["under_construction"] else ""
            print(f"{t['team']:>4} {t['name']:<10} {_or_q(t['stockpile']):>6} {t['held']:>5} "
                  f"{_or_q(t['gathered']):>8} {pop:>7} {t['score']:>9.1f} {t['units']:>5}  {t['buildings']}{building}")
    load = f" {'load':>5}" if economy else ""
    print(f"{'entity':>6} {'team':>4} {'unit':<10} {'x':>6} {'y':>6} {'hp':>6} {'clip':>4}{load}  action")
    for u in summary["units"]:
        carry = (f" {u['entity'] in loads and '%d/%d' % tuple(loads[u['entity']]) or '-':>5}" if economy else "")
        print(f"{u['entity']:>6} {u['team']:>4} {u['unit']:<10} {u['x']:>6.2f} {u['y']:>6.2f} {u['hp']:>6.1f} "
              f"{u['clip']:>4}{carry}  {u['action'] or '-'}")
    if summary["building_list"]:
        print(f"{'entity':>6} {'team':>4} {'building':<10} {'tiles':<12} {'hp':>9}  status")
        for b in summary["building_list"]:
            tx, ty, w, h = b["tiles"]
            hp = "?" if b["hp"] is None else f"{b['hp']:.0f}/{b['max_hp']:.0f}"
            print(f"{b['entity']:>6} {_or_q(b['team']):>4} {b['kind']:<10} {f'({tx},{ty}) {w}x{h}':<12} {hp:>9}  "
                  f"{building_status(b, queue=False)}")
            for i, entry in enumerate(b["queue"], 1):
                print(f"{'queue:' if i == 1 else '':>46} {i}. {entry['text']}")
    return 0


def _or_q(value) -> str:
    return "?" if value is None else str(value)


def cmd_explain(args) -> int:
    from game.app import explain as ex
    from saves.replay import seek
    replay, content = _open_replay(args)
    index = replay.records
    if args.tick > replay.end_state_tick:
        raise CliError(f"--tick {args.tick} is past the end of the replay (tick {replay.end_state_tick})")
    if args.commander is not None:
        rec = index.at("commander", args.commander, args.tick)
        if rec is None:
            raise CliError(f"team {args.commander} has no commander decision at or before tick {args.tick}")
        if args.json:
            print(json.dumps(rec.to_wire(), sort_keys=True))
        else:
            print("\n".join(ex.commander_lines(rec)))
        return 0
    rec = index.at("npc", args.entity, args.tick)
    if rec is None:
        npcs = index.keys("npc")
        first = index.first_tick("npc", args.entity)
        if first is None:
            return _explain_from_ledger(args, replay, content, npcs)
        raise CliError(f"entity {args.entity} made no decision at or before tick {args.tick} (its first is at tick "
                       f"{first})")
    world = seek(replay, content, args.tick, force=args.force)
    try:
        def action_state(aid):
            action = world.ledger.get(aid)
            return None if action is None else [action.state, action.reason]
        out = ex.explain(rec, action_state)
        unit = None
        if esper_alive(world, args.entity):
            unit = unit_state(world, args.entity)
        out["asked_tick"] = args.tick
        out["unit"] = unit
    finally:
        world.close()
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if rec.tick != args.tick:
        print(f"(the last decision at or before tick {args.tick} was made at tick {rec.tick})")
    for line in ex.lines(out):
        print(line)
    if unit is not None:
        print(f"at tick {args.tick}: hp {unit['hp']:.1f}, clip {unit['clip']}, at ({unit['x']:.1f}, {unit['y']:.1f}), "
              f"doing {unit['action'] or 'nothing'}")
    else:
        print(f"at tick {args.tick} the unit is dead")
    return 0


def _explain_from_ledger(args, replay, content, npcs) -> int:
    """An entity with no decision records (a worker, a building, a strategy's unit): what the ledger says it is
    doing at the tick, and its last finished actions. The re-simulation starts a ledger history's length before
    the tick, so the finished actions the ledger still held then are there."""
    from game.app.entities import entity_lines, explain_entity
    from game.ledger import HISTORY_TICKS
    from saves.replay import play_to, world_at_keyframe
    if args.tick < replay.start_tick:
        raise CliError(f"--tick {args.tick} is before the replay starts (tick {replay.start_tick})")
    world = world_at_keyframe(replay, content, max(replay.start_tick, args.tick - HISTORY_TICKS), args.force)
    try:
        start = world.tick
        play_to(world, replay, args.tick)
        out = explain_entity(world, args.entity, start)
    finally:
        world.close()
    if out is None:
        hint = f"NPC entities in this replay: {npcs[0]}..{npcs[-1]}" if npcs else "this replay has no NPC decisions"
        raise CliError(f"entity {args.entity} never made a decision and is no unit or building at tick {args.tick} "
                       f"({hint}; `rts replay FILE --to {args.tick}` lists the units and buildings)")
    out["asked_tick"] = args.tick
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if out["tick"] != args.tick:
        print(f"(the match ended at tick {out['tick']})")
    print("\n".join(entity_lines(out)))
    return 0


def esper_alive(world, eid: int) -> bool:
    import esper
    from components import Health
    world.activate()
    return esper.entity_exists(eid) and esper.has_component(eid, Health)


def unit_state(world, eid: int) -> dict:
    import esper
    from components import Ammo, Health, Position
    world.activate()
    pos = esper.component_for_entity(eid, Position)
    health = esper.component_for_entity(eid, Health)
    ammo = esper.try_component(eid, Ammo)
    action = world.ledger.current(eid)
    return {"x": pos.x, "y": pos.y, "hp": health.hp, "clip": ammo.clip if ammo else None,
            "action": None if action is None else f"{action.kind}#{action.id} {action.state}"}


def cmd_report(args) -> int:
    from game.app.report import collect, render
    replay, content = _open_replay(args)
    out = str(args.output)
    if not out.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"-o {out}: the report is written as .png, .svg or .pdf")
    check_output(out, "-o")
    data = collect(replay, content, force=args.force)
    try:
        render(data, out)
    except OSError as exc:
        raise CliError(f"-o {out}: cannot write: {exc.strerror or exc}") from None
    lost = {name: sum(1 for _t, team in data["deaths"] if team == t) for t, name in enumerate(data["teams"])}
    print(f"wrote {out}: {len(data['series']['tick'])} samples, losses " +
          ", ".join(f"{k} {v}" for k, v in lost.items()) + f", {len(data['commanders'])} commander decisions")
    if data["economy"]:
        gathered = {name: g[-1] if g else 0 for name, g in zip(data["teams"], data["series"]["gathered"])}
        built = {name: sum(1 for _t, team, _k, what in data["building_events"] if team == t and what == "completed")
                 for t, name in enumerate(data["teams"])}
        print("economy: gathered " + ", ".join(f"{k} {v}" for k, v in gathered.items()) +
              "; buildings completed " + ", ".join(f"{k} {v}" for k, v in built.items()))
    return 0


def cmd_graph(args) -> int:
    content = _load(args.mod)
    if args.brain not in content.brain_defs:
        known = ", ".join(sorted(content.brain_defs)) or "none"
        raise CliError(f"unknown brain '{args.brain}' (known: {known})")
    out = str(args.output)
    if not out.lower().endswith((".png", ".svg", ".dot")):
        raise CliError(f"-o {out}: a diagram is written as .png, .svg or .dot")
    check_output(out, "-o")
    from game.app.graph import write
    try:
        kind = write(content, args.brain, out)
    except OSError as exc:
        raise CliError(f"-o {out}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} ({kind}): brain {args.brain}")
    return 0


def cmd_docs(args) -> int:
    from pathlib import Path
    from content.reference import generate
    text = generate()
    out = Path(args.output)
    if args.check:
        try:
            current = out.read_text(encoding="utf-8")
        except OSError:
            raise CliError(f"{out}: missing; run `rts docs` to write it") from None
        if current != text:
            raise CliError(f"{out}: out of date with the content schema; run `rts docs` to regenerate it")
        print(f"{out} is up to date")
        return 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{out}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} ({len(text.splitlines())} lines)")
    return 0


def cmd_validate(args) -> int:
    from content.loader import ContentError, load_content
    try:
        content = load_content(args.mod or [])
    except ContentError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing was loaded", file=sys.stderr)
        return EXIT_USAGE
    print(f"ok: {len(content.brains)} brains, {len(content.units)} units, {len(content.maps)} maps, "
          f"{len(content.scenarios)} scenarios "
          f"from {len(content.files)} files (content hash {content.content_hash})")
    return 0


def cmd_play(args) -> int:
    if not args.no_record:
        check_output(args.record, "--record", part=True)
    content = _load(args.mod)
    scenario = None
    team = args.team if args.team is not None else 0
    if args.scenario is not None or args.team is not None or args.spectate:   # else: the start menu asks
        scenario = _scenario(content, args.scenario or "skirmish")
        teams = len(content.scenarios[scenario].teams)
        if not 0 <= team < teams:
            raise CliError(f"--team must be between 0 and {teams - 1} for scenario '{scenario}'")
    for profile in ("uct_small", "uct", "uct_hard"):
        if profile not in content.commanders:
            raise CliError(f"the difficulty levels need commander profile '{profile}', which the content lacks")
    if args.opponent is not None and args.opponent not in content.strategies:
        raise CliError(f"--opponent: unknown strategy '{args.opponent}' "
                       f"(known: {', '.join(sorted(content.strategies)) or 'none'})")
    def play():
        from game.app.views.play import run_play  # window code is loaded only here and in `replay --view`
        return run_play(content, scenario, args.seed, player_team=None if args.spectate else team,
                        difficulty=args.difficulty, frames=args.frames, screenshot=args.screenshot,
                        record=None if args.no_record else args.record, watch=args.watch,
                        mods=[str(m) for m in args.mod], strategy=args.opponent)
    return _in_window(play)


def cmd_tournament(args) -> int:
    content = _load(args.mod)
    scenario = _scenario(content, args.scenario)
    for flag, name in (("--a", args.a), ("--b", args.b)):
        if name not in content.commanders:
            known = ", ".join(sorted(content.commanders)) or "none"
            raise CliError(f"{flag}: unknown commander profile '{name}' (known: {known})")
    if len(content.scenarios[scenario].teams) != 2:
        raise CliError(f"scenario '{scenario}' has {len(content.scenarios[scenario].teams)} teams; a tournament needs 2")
    from game.app.tournament import run
    summary = run(args.a, args.b, args.games, scenario, args.seed, args.workers, [str(m) for m in args.mod],
                  progress=not args.no_progress).as_dict()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    lo, hi = summary["win_rate_ci95"]
    print(f"{summary['a']} vs {summary['b']} on {scenario}, {summary['games']} games (sides alternate):")
    print(f"  {summary['a']}: {summary['wins']} wins, {summary['draws']} draws, {summary['losses']} losses")
    print(f"  win rate {summary['win_rate']:.1%} (95% interval {lo:.1%} - {hi:.1%}); "
          f"score rate {summary['score_rate']:.1%} (a draw counts half)")
    print(f"  mean length {summary['mean_ticks']:.0f} ticks")
    return 0


def cmd_bench(args) -> int:
    from benchmarks.run import main as bench_main
    return bench_main(args)


#: the most ticks any argument may name (the content schema's maximum max_ticks; saves/schema.py)
MAX_TICKS = 10_000_000
UINT64_MAX = (1 << 64) - 1


def _parse_int(text: str, low: int, high: int) -> int:
    """A whole number within [low, high], or ValueError saying what was expected."""
    text = text.strip()
    if not (text.isdigit() or (text[:1] in "+-" and text[1:].isdigit())) or len(text) > 40:
        raise ValueError(f"expected a whole number, got '{text[:40]}'")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, got {text}")
    return value


def _int_in(low: int, high: int):
    def parse(text: str) -> int:
        try:
            return _parse_int(text, low, high)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _int_at_least(low: int, high: int = UINT64_MAX):
    return _int_in(low, high)


def _seconds(text: str) -> float:
    """A finite number of seconds, above 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text[:40]}'") from None
    if not (value == value and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds above 0 and at most 3600, got {text}")
    return value


_nonneg_int = _int_at_least(0)
_pos_int = _int_at_least(1)
_seed = _int_in(0, UINT64_MAX)
_tick = _int_in(0, MAX_TICKS)
_pos_tick = _int_in(1, MAX_TICKS)


def check_output(path, flag: str, *, part: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written: a folder, a missing or non-folder parent,
    a place without write permission, something that is not a regular file. ``part``: the writer also creates
    ``path + '.part'`` beside it (the replay recorder)."""
    import os
    import stat
    text = str(path)
    if not text or text.endswith(os.sep):
        raise CliError(f"{flag} {text!r}: expected a file name")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        what = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise CliError(f"{flag} {text}: cannot write there: {parent} {what}")
    for target in (text, text + ".part") if part else (text,):
        try:
            st = os.stat(target)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise CliError(f"{flag} {text}: cannot write there: {exc.strerror or exc}") from None
        if stat.S_ISDIR(st.st_mode):
            raise CliError(f"{flag} {target}: is a folder; give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise CliError(f"{flag} {target}: is not a regular file (a pipe, socket or device); refused")
        if not os.access(target, os.W_OK):
            raise CliError(f"{flag} {target}: cannot write there: permission denied")
    import tempfile
    try:                                         # a real probe: permissions alone do not tell (root, read-only mounts)
        fd, probe = tempfile.mkstemp(prefix=".rts-probe-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise CliError(f"{flag} {text}: cannot write there: {exc.strerror or exc}") from None


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit status 2), like every other user error of `rts`."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rts", description="A deterministic RTS runtime for game-AI work.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_mod(p):
        p.add_argument("--mod", action="append", metavar="DIR", default=[],
                       help="a mod directory layered over the default content (repeatable, applied in order)")

    p = sub.add_parser("match", help="run a headless AI-vs-AI match and print its summary")
    p.add_argument("--scenario", default="skirmish", help="scenario id (default: skirmish)")
    p.add_argument("--seed", type=_seed, default=1, help="world RNG seed, 0 to 2^64-1 (default: 1)")
    p.add_argument("--ticks", type=_pos_tick, default=None,
                   help="the match's tick limit, counted from its start (default: the scenario's max_ticks); with "
                        "--load it replaces the saved limit, so a saved match can be run on past it")
    p.add_argument("--timings", action="store_true",
                   help="keep wall-clock timings in decision records (then two runs of a seed no longer record "
                        "identical bytes)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--record", metavar="FILE", help="record a replay to FILE (written as FILE.part until finished)")
    p.add_argument("--keyframe-every", type=_seconds, default=5.0, metavar="SECONDS",
                   help="seconds of game time between replay keyframes (default: 5)")
    p.add_argument("--hash-every", type=_pos_tick, default=5, metavar="TICKS",
                   help="ticks between sync hashes in the replay (default: 5)")
    p.add_argument("--save-at", nargs=2, metavar=("TICK", "FILE"), help="save a snapshot when the match reaches TICK")
    p.add_argument("--load", metavar="FILE", help="continue a match from a snapshot file")
    p.add_argument("--strategy", action="append", metavar="TEAM=PROFILE", default=[],
                   help="run a team (index or name) with this strategy profile, e.g. --strategy 1=scout_rush "
                        "(repeatable)")
    p.add_argument("--force", action="store_true", help="load a snapshot made with other content or format")
    add_mod(p)
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("replay", help="verify a replay, or seek to a tick and show the state there")
    p.add_argument("file", metavar="FILE")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--verify", action="store_true", help="re-simulate and compare every recorded sync hash")
    mode.add_argument("--to", type=_tick, metavar="TICK", help="seek to TICK and print the state summary")
    mode.add_argument("--view", action="store_true", help="watch it in the window: play, pause, scrub, inspect")
    p.add_argument("--frames", type=_pos_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true")
    p.add_argument("--force", action="store_true", help="play even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("explain", help="why an NPC did what it did at a tick of a replay")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--tick", type=_tick, required=True, metavar="T", help="the tick to explain")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--entity", type=_int_in(1, 1 << 40), metavar="E", help="the NPC's entity id (see `rts replay FILE --to T`)")
    who.add_argument("--commander", type=_int_in(0, 63), metavar="TEAM", help="explain a team's commander instead")
    p.add_argument("--json", action="store_true")
    p.add_argument("--force", action="store_true", help="read even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("report", help="draw a recorded match: army strength over time, losses, commander decisions "
                                      "and, with an economy, stockpiles, income, army value and buildings")
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", required=True, metavar="PNG", help="picture to write (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="read even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("graph", help="draw a brain: candidates, state machine, trees, HTN method trees, GOAP actions")
    p.add_argument("brain", metavar="BRAIN", help="brain id")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.dot")
    add_mod(p)
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("docs", help="write the content reference (every file kind and key) from the schema")
    p.add_argument("-o", "--output", default="docs/content.md", help="where to write it (default: docs/content.md)")
    p.add_argument("--check", action="store_true", help="only check that the file is current (exit 2 if not)")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("validate", help="check all content (default plus mods); name every problem")
    add_mod(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("play", help="open the game window")
    p.add_argument("--scenario", default=None, help="scenario id (default: choose in the start menu)")
    p.add_argument("--difficulty", choices=["easy", "normal", "hard"], default="normal",
                   help="the enemy commander's search budget (default: normal)")
    p.add_argument("--seed", type=_seed, default=1)
    p.add_argument("--team", type=_int_in(0, 63), default=None, help="the team you command (default: 0)")
    p.add_argument("--spectate", action="store_true", help="watch the AIs play each other")
    p.add_argument("--opponent", default=None, metavar="STRATEGY",
                   help="the strategy profile every other team plays in an economy scenario (macro, worker_rush, "
                        "scout_rush, heavy_rush; default: the scenario's)")
    p.add_argument("--record", default="last.rtsreplay", metavar="FILE",
                   help="record the match there, to replay and explain it afterwards (default: last.rtsreplay)")
    p.add_argument("--no-record", action="store_true", help="do not record the match")
    p.add_argument("--watch", action="store_true",
                   help="reload changed content files while the game runs (with --mod: your mod's files too)")
    p.add_argument("--frames", type=_pos_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    add_mod(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("tournament", help="commander profile A against B over many headless matches")
    p.add_argument("--a", required=True, metavar="PROFILE", help="commander profile for side A")
    p.add_argument("--b", required=True, metavar="PROFILE", help="commander profile for side B")
    p.add_argument("--games", type=_int_in(1, 100_000), default=20, help="matches to play (default 20); sides alternate")
    p.add_argument("--scenario", default="skirmish", help="two-team scenario (default: skirmish)")
    p.add_argument("--seed", type=_int_in(0, UINT64_MAX - 100_000), default=1,
                   help="seed of the first game (game i uses seed + i)")
    p.add_argument("--workers", type=_pos_int, default=None, help="worker processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object (games, wins, draws, losses, ...)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_mod(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("bench", help="measure headless ticks per second against a bare-esper baseline")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--units", type=_pos_int, nargs="+", default=[50, 200, 1000], help="unit counts to measure")
    p.add_argument("--ticks", type=_pos_int, default=600, help="ticks per measurement")
    from benchmarks import SUITES
    p.add_argument("--suite", choices=SUITES, default="all",
                   help="sim: ticks/s; saves: replay verify, seek and snapshot figures; brains: behavior tree vs "
                        "py_trees, utility selection, 1000 NPCs with brains; planning: GOAP plan and budget, HTN vs "
                        "GTPyhop; commander: abstract playouts/s and decision time; economy: a 10-minute macro mirror's "
                        "speed against real time and a building's grid update; render: frame time with 500 units "
                        "(needs a display)")
    p.set_defaults(func=cmd_bench)
    return parser



def main(argv: list[str] | None = None) -> int:
    from content.loader import ContentError
    from game.app.process import tune_gc
    tune_gc()
    from ai.records import RecordError
    from saves.container import SaveError
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ContentError, SaveError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RecordError as exc:                   # a replay's decision record that does not fit its kind
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:       # e.g. `rts replay ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
