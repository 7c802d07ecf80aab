"""Fair by construction: on a point-symmetric map the same strategy on both sides stays the mirror image of
itself, tick by tick (its fog of war too), until the first random draw (a hit roll) (docs/rules/economy.md, "Fair by construction")."""
import esper

from components import Building, Position, Stockpile, Team, UnitKind, Worker
from game.state import rng_state
from game.world import World


def side(world, team: int, mirror: bool) -> list:
    """Everything of ``team``, in the frame of the other side when ``mirror`` (rotated by half a turn)."""
    w, h = world.tilemap.width, world.tilemap.height
    out = []
    for _e, (pos, t, kind) in esper.get_components(Position, Team, UnitKind):
        if t.team == team:
            x, y = (w - pos.x, h - pos.y) if mirror else (pos.x, pos.y)
            carrying = esper.try_component(_e, Worker)
            out.append(("unit", kind.kind, round(x, 6), round(y, 6), carrying.carrying if carrying else 0))
    for _e, (b, t) in esper.get_components(Building, Team):
        if t.team == team:
            x, y = (w - b.tx - b.w, h - b.ty - b.h) if mirror else (b.tx, b.ty)
            out.append(("building", b.kind, x, y, b.work))
    for _e, stock in esper.get_component(Stockpile):
        if stock.team == team:
            out.append(("stock", stock.amount, stock.gathered))
    return sorted(out, key=repr)


def test_a_mirror_match_stays_mirrored_until_the_first_random_draw(content):
    world = World(content, "econ_duel", 1)
    try:
        start_rng = rng_state(world.rng)
        ticks = 0
        while ticks < 12000 and rng_state(world.rng) == start_rng:
            world.step()
            ticks += 1
            assert side(world, 0, mirror=True) == side(world, 1, mirror=False), f"mirror broken at tick {world.tick}"
            # and the fog of war: each side sees and has explored the mirror image of what the other does
            for explored in (False, True):
                assert (world.fog.grid(0, explored)[::-1, ::-1] == world.fog.grid(1, explored)).all(), \
                    f"fog not mirrored at tick {world.tick}"
        assert ticks > 6000                      # mirrored through the whole build-up, until the armies meet
        assert sum(world.alive_per_team()) > 60 and sum(world.buildings_per_team()) >= 20   # a real economy by then
    finally:
        world.close()


def test_a_skirmish_mirror_with_deterministic_commanders_stays_mirrored_until_the_first_random_draw(content):
    """The skirmish map is point-symmetric: its region cut is too (systems/commander.map_regions), the NPCs and
    scripted units of both teams think on mirror-image ticks, squads spread round their orders as mirror images,
    and the searches break ties in an order the half turn keeps (ai/tactics Model.rank). The attack-nearest and the
    portfolio commanders draw nothing at random, so both sides stay mirror images until the first hit roll."""
    from systems.commander import map_regions
    for commander in ("scripted", "portfolio"):
        world = World(content, "skirmish", 1, commanders={0: commander, 1: commander})
        try:
            regs = map_regions(world, content.commanders[commander].regions)
            n = len(regs.labels)
            assert regs.half and all(regs.labels[n - 1 - i] == (regs.labels[i] + regs.half) % regs.k
                                     for i in range(n) if regs.labels[i] >= 0)
            start_rng = rng_state(world.rng)
            ticks = 0
            while ticks < 3000 and rng_state(world.rng) == start_rng:
                world.step()
                ticks += 1
                assert side(world, 0, mirror=True) == side(world, 1, mirror=False), \
                    f"{commander}: mirror broken at tick {world.tick}"
            orders = [r.orders for r in world.decisions.all("commander")]
            assert ticks > 200 and len(orders) >= 4 and orders[0]          # the commanders ordered squads about
        finally:
            world.close()
