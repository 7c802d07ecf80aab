"""What brains may name: the perception facts and the host's action kinds.

Content validation checks every fact a gate, preference, condition or ``$ref``
names against ``FACTS`` and every action kind against ``ACTIONS``; the
perception system produces exactly these facts (a test holds them equal), and
the content reference is generated from this table.

A fact that does not apply right now (say ``enemy_x`` with no enemy in sight) is
absent from the snapshot: a condition on it is false, a preference reading it
gets a diagnostic, and an action parameter naming it fails the action leaf.
"""
from __future__ import annotations

#: fact name -> (type, meaning)
FACTS: dict[str, tuple[str, str]] = {
    # the NPC itself
    "x": ("float", "own position, tiles from the left edge"),
    "y": ("float", "own position, tiles from the top edge"),
    "hp": ("float", "hit points left"),
    "hp_frac": ("float", "hit points left as a fraction of the maximum, 0..1"),
    "under_fire": ("bool", "lost hit points in the last 2 seconds"),
    "clip": ("int", "rounds in the clip"),
    "clip_size": ("int", "rounds a full clip holds"),
    "clip_empty": ("bool", "the clip is empty"),
    "reserve": ("int", "rounds carried besides the clip"),
    "has_reserve": ("bool", "carries rounds besides the clip"),
    "ammo_total": ("int", "clip plus reserve"),
    "has_ammo": ("bool", "the clip holds at least one round"),
    "weapon_range": ("float", "firing range in tiles"),
    "in_cover": ("bool", "standing on a cover tile"),
    "has_key": ("bool", "carries at least one key"),
    # enemies
    "enemy_visible": ("bool", "an enemy is within sight range with a clear line"),
    "enemies_visible": ("int", "how many enemies are visible"),
    "nearest_enemy": ("entity", "the nearest visible enemy (absent when none)"),
    "enemy_x": ("float", "the nearest visible enemy's x (absent when none)"),
    "enemy_y": ("float", "the nearest visible enemy's y (absent when none)"),
    "enemy_distance": ("float", "distance to the nearest visible enemy in tiles (inf when none)"),
    "enemy_in_range": ("bool", "the nearest visible enemy is within weapon range with a clear line of fire"),
    "enemy_hp_frac": ("float", "the nearest visible enemy's hit points as a fraction (absent when none)"),
    "allies_near": ("int", "living allies within 6 tiles"),
    "force_ratio": ("float", "(allies near + 1) / (allies near + 1 + enemies visible), 0..1"),
    # memory and search
    "seen_ago": ("float", "seconds since this NPC last saw an enemy (inf if never)"),
    "search_known": ("bool", "there is a place worth searching: a recent sighting (own or the team's) or unscouted enemy ground"),
    "search_x": ("float", "where to search (absent when nothing is known)"),
    "search_y": ("float", "where to search (absent when nothing is known)"),
    "search_distance": ("float", "distance to the search point (inf when none)"),
    # places and supplies
    "cover_known": ("bool", "a free cover tile within 20 tiles is reachable, now or through one door it can open"),
    "cover_x": ("int", "x of the best free cover tile (absent when none)"),
    "cover_y": ("int", "y of the best free cover tile (absent when none)"),
    "cover_distance": ("float", "distance to that cover tile (inf when none)"),
    "crate_known": ("bool", "an ammunition crate the NPC can walk to is lying on the map, not claimed"),
    "crate": ("entity", "the nearest such crate (absent when none)"),
    "crate_distance": ("float", "distance to that crate (inf when none)"),
    "key_known": ("bool", "a key the NPC can walk to is lying on the map, not claimed"),
    "key": ("entity", "the nearest such key (absent when none)"),
    "cover_behind_door": ("bool", "the best cover can only be reached by opening a closed or locked door"),
    "cover_door": ("entity", "that door (absent when the cover is not behind one)"),
    "cover_door_locked": ("bool", "that door is locked (false when there is no such door)"),
    # the commander's order for the NPC's squad
    "intent_known": ("bool", "the squad has an order from its commander"),
    "intent_kind": ("str", "the order: 'hold', 'move' or 'attack' (absent when none)"),
    "intent_x": ("float", "where the order sends this NPC (the region's centre, spread per NPC; absent when none)"),
    "intent_y": ("float", "where the order sends this NPC (absent when none)"),
    "intent_distance": ("float", "distance to that point (inf when there is no order)"),
}

#: target types a GOAP action may name: the host offers every such entity (with its distance) to the planner
TARGET_TYPES: dict[str, str] = {
    "crate": "ammunition crates lying on the map and not claimed by another unit",
    "key": "keys lying on the map and not claimed by another unit",
}

#: action kind -> (parameters, meaning)
ACTIONS: dict[str, tuple[str, str]] = {
    "move": ("x, y (tiles)", "walk to a point; confirmed on arrival, fails when no path"),
    "attack": ("target; hold (1 = never chase)", "fire at the target, chasing it unless held; confirmed when it dies"),
    "reload": ("", "move rounds from the reserve into the clip"),
    "pickup": ("target (a pickup)", "walk onto an ammunition crate or key and take it"),
    "pick_up_key": ("target (a key)", "walk onto a key and take it"),
    "open_door": ("target (a door)", "walk next to a door and open it; a locked door uses up a key"),
    "enter_cover": ("x, y (a cover tile)", "walk onto a cover tile and hold it (exclusively)"),
    "wait": ("ticks", "stand still for a number of ticks"),
    "attack_move": ("x, y (tiles)", "walk to a point, stopping to fire at enemies that come within range"),
    "hold": ("", "stand still and fire at enemies in range, never chasing; lasts until replaced or cancelled"),
    "order": ("kind, region, x, y (actor: a squad)", "a commander's standing order to a squad"),
}


def suggest(name: str, known) -> str:
    """' (did you mean 'x'?)' for a close known name, else ''."""
    import difflib
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
