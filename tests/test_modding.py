"""What a modder touches: the example mod, brain diagrams."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOD = ROOT / "examples" / "mods" / "sniper"


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_the_example_mod_validates_plays_and_overrides_one_field(tmp_path):
    from content.loader import load_content
    base = load_content()
    modded = load_content([MOD])
    assert "sniper" in modded.units and "sniper" in modded.brains and "overwatch" in modded.scenarios
    scout, default = modded.units["scout"], base.units["scout"]
    assert scout.speed == 5.5 and default.speed == 4.5
    assert scout.model_dump(exclude={"speed"}) == default.model_dump(exclude={"speed"})   # only that field
    assert rts("validate", "--mod", str(MOD)).returncode == 0
    rec = tmp_path / "ow.rtsreplay"
    proc = rts("match", "--mod", str(MOD), "--scenario", "overwatch", "--seed", "1", "--ticks", "1500",
               "--record", str(rec), "--json")
    assert proc.returncode == 0, proc.stderr
    from ai.records import RecordIndex
    from saves.replay import read_replay
    npc = RecordIndex(read_replay(rec).decisions).all("npc")
    snipers = {d.entity for d in npc if d.candidate("snipe") is not None}
    assert len(snipers) == 5
    assert any(d.mode == "snipe" for d in npc if d.entity in snipers)


def test_graph_draws_a_brain_as_png_svg_and_dot(tmp_path):
    from PIL import Image
    for ext in ("png", "svg", "dot"):
        out = tmp_path / f"guard.{ext}"
        proc = rts("graph", "guard", "-o", str(out))
        assert proc.returncode == 0, proc.stderr
    svg = (tmp_path / "guard.svg").read_text()
    for text in ("engage", "hold_cover", "reactive_sequence fire", "method fetch_key_and_unlock", "goal safe",
                 "gate  enemy_visible", "on done", "not enemy_in_range"):
        assert text in svg, text
    dot = (tmp_path / "guard.dot").read_text()
    assert dot.startswith('digraph "brain guard"') and '"state:approach" -> "state:shoot"' in dot
    img = Image.open(tmp_path / "guard.png").convert("RGB")
    assert img.width > 800 and img.height > 600
    colours = {img.getpixel((x, y)) for x in range(0, img.width, 5) for y in range(0, img.height, 5)}
    assert (235, 242, 255) in colours and (236, 248, 236) in colours          # candidate and state boxes
    modded = tmp_path / "sniper.svg"
    assert rts("graph", "sniper", "--mod", str(MOD), "-o", str(modded)).returncode == 0
    assert "snipe" in modded.read_text()
    bad = rts("graph", "nobody", "-o", str(tmp_path / "x.png"))
    assert bad.returncode == 2 and bad.stderr.strip() == "error: unknown brain 'nobody' (known: guard)"
    bad = rts("graph", "guard", "-o", str(tmp_path / "x.gif"))
    assert bad.returncode == 2 and "as .png, .svg or .dot" in bad.stderr


def test_a_building_type_is_content_alone(tmp_path):
    """docs/modding.md's bunker: a new building type that validates, is built by a worker and shoots."""
    import esper
    from components import Building, Weapon
    from content.loader import load_content
    from game.world import World
    from tests.conftest import write_mod
    guide = (Path(__file__).resolve().parent.parent / "docs" / "modding.md").read_text()
    bunker = guide.split("# mymod/buildings/bunker.toml\n", 1)[1].split("```", 1)[0]
    mod = write_mod(tmp_path / "mymod", {
        "buildings/bunker.toml": bunker,
        "scenarios/fort.toml": """
            id = "fort"
            map = "outpost"
            [[teams]]
            name = "Blue"
            color = [0, 0, 255]
            ai = "idle"
            start = 0
            stock = 500
            buildings = [{ building = "hq" }, { building = "barracks", at = [12, 12] }]
            spawns = [{ unit = "worker", count = 2 }]
            [[teams]]
            name = "Red"
            color = [255, 0, 0]
            ai = "idle"
            start = 1
            buildings = [{ building = "hq" }]
        """})
    assert rts("validate", "--mod", str(mod)).returncode == 0
    world = World(load_content([mod]), "fort", 1)
    try:
        world.activate()
        worker = min(e for e, _w in esper.get_component(__import__("components").Worker))
        act = world.ledger.submit(world.tick, "build", worker, 0, {"building": "bunker", "x": 20, "y": 4})
        for _ in range(900):
            world.step()
            if act.done:
                break
        assert act.state == "confirmed", act.reason
        bunker_eid = next(e for e, b in esper.get_component(Building) if b.kind == "bunker")
        assert esper.component_for_entity(bunker_eid, Weapon).range == 5.0
    finally:
        world.close()
