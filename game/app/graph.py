"""`rts graph BRAIN -o FILE.png|.svg|.dot`: a brain drawn for a modder.

Sections, top to bottom: the utility candidates (each with its gates and preferences) and the emergencies;
the state machine (top-level states in a row, a composite state's children inside it, transitions as arrows
labelled with their guard or event); every behavior tree as a top-down tree; the HTN domain the brain plans
with as method trees (task -> methods -> subtasks); the GOAP domain's actions and goals.

``.dot`` is Graphviz text (clusters per section) for people who have Graphviz; ``.svg`` and ``.png`` are laid
out and drawn here (a tidy-tree layout, no Graphviz needed), the PNG with Pillow's own font.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai import bt
from content.brains import build_node

FONT_SIZE = 12
LINE_H = 16
PAD = 6
GAP_X = 14
GAP_Y = 26
COLORS = {
    "candidate": (235, 242, 255), "state": (236, 248, 236), "composite": (248, 250, 246), "tree": (255, 248, 232),
    "leaf": (255, 236, 214), "task": (244, 236, 252), "method": (252, 246, 236), "goap": (232, 246, 250),
    "title": (255, 255, 255),
}


def _font():
    from PIL import ImageFont
    return ImageFont.load_default(size=FONT_SIZE)


_FONT = None


def text_width(text: str) -> float:
    global _FONT
    if _FONT is None:
        _FONT = _font()
    return _FONT.getlength(text)


@dataclass
class Box:
    lines: list
    kind: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    bold_first: bool = True

    def size(self) -> None:
        self.w = max(text_width(s) for s in self.lines) + 2 * PAD
        self.h = len(self.lines) * LINE_H + 2 * PAD


@dataclass
class Drawing:
    boxes: list = field(default_factory=list)
    arrows: list = field(default_factory=list)      # (x1, y1, x2, y2, label)
    texts: list = field(default_factory=list)       # (x, y, text, size)
    frames: list = field(default_factory=list)      # (x, y, w, h, label)
    width: float = 0.0
    height: float = 0.0


# -- tidy trees ----------------------------------------------------------------------------------------------
@dataclass
class TreeNode:
    box: Box
    children: list = field(default_factory=list)
    span: float = 0.0


def _measure(node: TreeNode) -> float:
    node.box.size()
    if not node.children:
        node.span = node.box.w
    else:
        kids = sum(_measure(c) for c in node.children) + GAP_X * (len(node.children) - 1)
        node.span = max(node.box.w, kids)
    return node.span


def _place(node: TreeNode, left: float, top: float, d: Drawing) -> float:
    """Place ``node`` in [left, left + span); returns the bottom of the subtree."""
    node.box.x = left + (node.span - node.box.w) / 2
    node.box.y = top
    d.boxes.append(node.box)
    bottom = top + node.box.h
    if node.children:
        kids = sum(c.span for c in node.children) + GAP_X * (len(node.children) - 1)
        x = left + (node.span - kids) / 2
        for child in node.children:
            child_bottom = _place(child, x, top + node.box.h + GAP_Y, d)
            d.arrows.append((node.box.x + node.box.w / 2, top + node.box.h, child.box.x + child.box.w / 2,
                             child.box.y, ""))
            bottom = max(bottom, child_bottom)
            x += child.span + GAP_X
    return bottom


# -- building the picture of a brain ---------------------------------------------------------------------------
def _cond(c) -> str:
    if c.op == "==" and c.value is True:
        return c.fact
    if c.op == "==" and c.value is False:
        return f"not {c.fact}"
    return f"{c.fact} {c.op} {c.value}"


def _node_label(node: bt.Node) -> list[str]:
    """Its type and name (just one when they are the same word), then its settings as the node describes them."""
    head = node.type_name if node.name == node.type_name else f"{node.type_name} {node.name}"
    detail = node.describe()
    return [head, detail] if detail else [head]


def _runtime_tree(tree_def) -> bt.Tree:
    """The tree as it runs: the nodes ``rts graph`` draws and labels are the ones the brain ticks."""
    return bt.Tree(build_node(tree_def.root, tree_def.nodes))


def _tree(tree_def) -> TreeNode:
    def draw(node):
        kind = "leaf" if node.shape == bt.LEAF else "tree"
        return TreeNode(Box(_node_label(node), kind), [draw(child) for child in node.children])
    return draw(_runtime_tree(tree_def).root)


def _row(items: list, left: float, top: float, max_width: float, d: Drawing, place) -> float:
    """Lay items (each with .span or .w, placed by ``place(item, x, y) -> bottom``) left to right, wrapping."""
    x, y, row_bottom = left, top, top
    for item in items:
        w = getattr(item, "span", None) or item.w
        if x > left and x + w > left + max_width:
            x, y = left, row_bottom + GAP_Y
        row_bottom = max(row_bottom, place(item, x, y))
        x += w + GAP_X * 2
    return row_bottom


def brain_drawing(bdef, goap=None, htn=None, max_width: float = 1800) -> Drawing:
    d = Drawing()
    left = 20.0
    y = 20.0
    d.texts.append((left, y, f"brain {bdef.id}" + (f" ({bdef.name})" if bdef.name else ""), 18))
    y += 34

    def section(title):
        nonlocal y
        d.texts.append((left, y, title, 15))
        y += 24

    # utility candidates
    section(f"utility candidates (switch needs a gain > {bdef.utility.margin:g} after {bdef.utility.min_hold:g} s)")
    boxes = []
    for cid, cand in bdef.candidates.items():
        lines = [f"{cid}  ->  state {cand.state or cid}"]
        lines += [f"gate  {_cond(g)}" for g in cand.gates] or ["gate  (none)"]
        lines += [f"pref  {p.input} [{p.range[0]:g}, {p.range[1]:g}] {p.curve.type} w={p.weight:g}"
                  for p in cand.preferences] or ["pref  (none: score 1)"]
        box = Box(lines, "candidate")
        box.size()
        boxes.append(box)
    for em in bdef.emergencies:
        box = Box([f"emergency {em.id}  ->  {em.candidate}"] + [f"when  {_cond(c)}" for c in em.when], "candidate")
        box.size()
        boxes.append(box)

    def place_box(box, x, yy):
        box.x, box.y = x, yy
        d.boxes.append(box)
        return yy + box.h
    y = _row(boxes, left, y, max_width, d, place_box) + GAP_Y * 1.5

    # the state machine
    section("state machine")
    states = bdef.states
    children = {sid: [c for c, s in states.items() if s.parent == sid] for sid in states}
    where: dict = {}

    def state_box(sid):
        s = states[sid]
        lines = [sid + (f"  (history {s.history})" if s.history != "none" else "")]
        if s.tree:
            lines.append(f"tree {s.tree}")
        if s.initial:
            lines.append(f"initial {s.initial}")
        for k, v in s.on_enter.items():
            lines.append(f"on enter {k} = {v}")
        box = Box(lines, "composite" if children[sid] else "state")
        box.size()
        return box

    def transition_label(tr) -> str:
        label = " and ".join(_cond(c) for c in tr.when)
        if tr.on:
            label = f"on {tr.on}" + (f" and {label}" if label else "")
        return label

    def sibling_gap(sid) -> float:
        """Room between a composite's children for the labels of the transitions among them."""
        kids = set(children[sid])
        widths = [text_width(transition_label(tr)) for c in kids for tr in states[c].transitions if tr.to in kids]
        return max([GAP_X * 3] + [w + 16 for w in widths])

    top_level = [sid for sid, s in states.items() if not s.parent]
    groups = []
    for sid in top_level:
        outer = state_box(sid)
        kids = [state_box(c) for c in children[sid]]
        if kids:
            inner_w = sum(k.w for k in kids) + sibling_gap(sid) * (len(kids) - 1)
            outer.w = max(outer.w, inner_w + 2 * PAD)
            outer.h = len(outer.lines) * LINE_H + 2 * PAD + GAP_Y + max(k.h for k in kids) + PAD
        groups.append((sid, outer, kids))

    class _G:
        def __init__(self, g):
            self.g = g
            self.w = g[1].w

    def place_group(item, x, yy):
        sid, outer, kids = item.g
        outer.x, outer.y = x, yy
        d.boxes.append(outer)
        where[sid] = outer
        kx = x + PAD
        gap = sibling_gap(sid) if kids else 0
        for c, kid in zip(children[sid], kids):
            kid.x, kid.y = kx, yy + len(outer.lines) * LINE_H + 2 * PAD + GAP_Y / 2
            d.boxes.append(kid)
            where[c] = kid
            kx += kid.w + gap
        return yy + outer.h
    y = _row([_G(g) for g in groups], left, y, max_width, d, place_group) + GAP_Y * 1.5
    for sid, s in states.items():
        for tr in s.transitions:
            a, b = where.get(sid), where.get(tr.to)
            if a is None or b is None:
                continue
            label = transition_label(tr)
            if a.y == b.y:                                  # side by side: rightward above, leftward below
                y1 = a.y + a.h / 2
                x1, x2 = (a.x + a.w, b.x) if a.x < b.x else (a.x, b.x + b.w)
                offset = -6 if a.x < b.x else 6
                d.arrows.append((x1, y1 + offset, x2, y1 + offset, label))
            else:
                d.arrows.append((a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y, label))

    # behavior trees
    if bdef.trees:
        section("behavior trees")
        trees = []
        for tid, tdef in bdef.trees.items():
            root = _tree(tdef)
            _measure(root)
            trees.append((tid, root))

        class _T:
            def __init__(self, t):
                self.t = t
                self.span = max(t[1].span, text_width(f"tree {t[0]}"))

        def place_tree(item, x, yy):
            tid, root = item.t
            d.texts.append((x, yy, f"tree {tid}", 13))
            return _place(root, x, yy + 20, d)
        y = _row([_T(t) for t in trees], left, y, max_width, d, place_tree) + GAP_Y * 1.5

    # HTN method trees
    if htn is not None:
        section(f"HTN domain {htn.id}")
        roots = []
        for name, comp in htn.compounds.items():
            methods = []
            for m in comp.methods:
                pre = [f"if {k} = {v}" for k, v in m.pre.items()]
                subs = []
                for sub in m.subtasks:
                    p = htn.primitives.get(sub)
                    lines = [sub] + ([f"{p.action} {p.target or ''}".strip()] if p is not None else ["(compound)"])
                    subs.append(TreeNode(Box(lines, "leaf")))
                methods.append(TreeNode(Box([f"method {m.name}"] + pre, "method"), subs))
            roots.append(TreeNode(Box([f"task {name}"], "task"), methods))
        for r in roots:
            _measure(r)
        y = _row(roots, left, y, max_width, d, lambda r, x, yy: _place(r, x, yy, d)) + GAP_Y * 1.5

    # GOAP actions and goals
    if goap is not None:
        section(f"GOAP domain {goap.id} (budget {goap.budget} expansions)")
        boxes = []
        for name, a in goap.actions.items():
            lines = [f"{name}  ({a.action}, cost {a.cost:g}{f' + {a.cost_per_tile:g}/tile' if a.cost_per_tile else ''})"]
            lines += [f"needs {k} = {v}" for k, v in a.pre.items()]
            lines += [f"sets  {k} = {v}" for k, v in a.effects.items()]
            if a.target_type:
                lines.append(f"one per {a.target_type}")
            box = Box(lines, "goap")
            box.size()
            boxes.append(box)
        for name, facts in goap.goals.items():
            box = Box([f"goal {name}"] + [f"{k} = {v}" for k, v in facts.items()], "task")
            box.size()
            boxes.append(box)
        y = _row(boxes, left, y, max_width, d, place_box) + GAP_Y
    d.width = max([b.x + b.w for b in d.boxes] + [x + text_width(t) for x, _y, t, _s in d.texts]) + 20
    d.height = y + 10
    return d


# -- writers -----------------------------------------------------------------------------------------------------
def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _label_at(x1, y1, x2, y2, label) -> tuple[float, float]:
    """Top-left of an arrow's label: centred on a horizontal arrow (above a rightward one, below a leftward
    one), beside the middle of any other."""
    if y1 == y2:
        return (x1 + x2) / 2 - text_width(label) / 2, (y1 - 15 if x2 > x1 else y1 + 2)
    return (x1 + x2) / 2 + 4, (y1 + y2) / 2 - 7


def to_svg(d: Drawing) -> str:
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{d.width:.0f}" height="{d.height:.0f}" '
           f'font-family="sans-serif" font-size="{FONT_SIZE}">',
           '<defs><marker id="arrow" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto">'
           '<path d="M0,0 L10,4 L0,8 z" fill="#555"/></marker></defs>',
           '<rect width="100%" height="100%" fill="white"/>']
    for b in d.boxes:
        r, g, bl = COLORS[b.kind]
        out.append(f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" rx="4" '
                   f'fill="rgb({r},{g},{bl})" stroke="#888"/>')
        for i, line in enumerate(b.lines):
            weight = ' font-weight="bold"' if i == 0 and b.bold_first else ""
            out.append(f'<text x="{b.x + PAD:.1f}" y="{b.y + PAD + (i + 1) * LINE_H - 4:.1f}"{weight}>{_esc(line)}</text>')
    for x1, y1, x2, y2, label in d.arrows:
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555" '
                   f'marker-end="url(#arrow)"/>')
        if label:
            lx, ly = _label_at(x1, y1, x2, y2, label)
            out.append(f'<text x="{lx:.1f}" y="{ly + 11:.1f}" fill="#a33" font-size="11">{_esc(label)}</text>')
    for x, y, text, size in d.texts:
        out.append(f'<text x="{x:.1f}" y="{y + size:.1f}" font-size="{size}" font-weight="bold">{_esc(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_png(d: Drawing, path: str) -> None:
    import math

    from PIL import Image, ImageDraw, ImageFont
    img = Image.new("RGB", (int(math.ceil(d.width)), int(math.ceil(d.height))), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=FONT_SIZE)
    fonts = {}
    for b in d.boxes:
        draw.rounded_rectangle([b.x, b.y, b.x + b.w, b.y + b.h], 4, fill=COLORS[b.kind], outline=(136, 136, 136))
        for i, line in enumerate(b.lines):
            draw.text((b.x + PAD, b.y + PAD + i * LINE_H), line, fill=(0, 0, 0) if i or not b.bold_first else
                      (20, 20, 90), font=font)
    for x1, y1, x2, y2, label in d.arrows:
        draw.line([x1, y1, x2, y2], fill=(85, 85, 85), width=1)
        ang = math.atan2(y2 - y1, x2 - x1)
        head = [(x2, y2), (x2 - 9 * math.cos(ang - 0.4), y2 - 9 * math.sin(ang - 0.4)),
                (x2 - 9 * math.cos(ang + 0.4), y2 - 9 * math.sin(ang + 0.4))]
        draw.polygon(head, fill=(85, 85, 85))
        if label:
            draw.text(_label_at(x1, y1, x2, y2, label), label, fill=(170, 50, 50), font=font)
    for x, y, text, size in d.texts:
        f = fonts.get(size) or fonts.setdefault(size, ImageFont.load_default(size=size))
        draw.text((x, y), text, fill=(0, 0, 0), font=f)
    img.save(path)


def to_dot(bdef, goap=None, htn=None) -> str:
    def q(s):
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'

    def ql(lines):
        """A multi-line DOT label."""
        return '"' + "\\n".join(str(x).replace("\\", "\\\\").replace('"', '\\"') for x in lines) + '"'
    out = [f"digraph {q('brain ' + bdef.id)} {{", "  rankdir=TB; compound=true; node [shape=box, fontsize=10];"]
    out.append('  subgraph cluster_utility { label="utility candidates";')
    for cid, cand in bdef.candidates.items():
        lines = [cid] + [f"gate {_cond(g)}" for g in cand.gates] + \
                [f"pref {p.input} {p.curve.type} w={p.weight:g}" for p in cand.preferences]
        out.append(f"    {q('cand:' + cid)} [label={ql(lines)}];")
    out.append("  }")
    states = bdef.states
    children = {sid: [c for c, s in states.items() if s.parent == sid] for sid in states}

    def emit_state(sid, indent):
        if children[sid]:
            out.append(f"{indent}subgraph {q('cluster_state_' + sid)} {{ label={q(sid)};")
            out.append(f"{indent}  {q('state:' + sid)} [label={q(sid)}, shape=point];")
            for c in children[sid]:
                emit_state(c, indent + "  ")
            out.append(f"{indent}}}")
        else:
            lines = [sid] + ([f"tree {states[sid].tree}"] if states[sid].tree else [])
            out.append(f"{indent}{q('state:' + sid)} [label={ql(lines)}, style=rounded];")
    out.append('  subgraph cluster_hfsm { label="state machine";')
    for sid, s in states.items():
        if not s.parent:
            emit_state(sid, "    ")
    out.append("  }")
    for cid, cand in bdef.candidates.items():
        out.append(f"  {q('cand:' + cid)} -> {q('state:' + (cand.state or cid))} [style=dashed];")
    for sid, s in states.items():
        for tr in s.transitions:
            label = " and ".join(_cond(c) for c in tr.when)
            if tr.on:
                label = f"on {tr.on}" + (f" and {label}" if label else "")
            out.append(f"  {q('state:' + sid)} -> {q('state:' + tr.to)} [label={q(label)}];")
    for tid, tdef in bdef.trees.items():
        out.append(f"  subgraph {q('cluster_tree_' + tid)} {{ label={q('tree ' + tid)};")
        nodes = _runtime_tree(tdef).nodes
        for node in nodes:
            out.append(f"    {q(tid + ':' + node.name)} [label={q(' / '.join(_node_label(node)))}];")
        for node in nodes:
            for child in node.children:
                out.append(f"    {q(tid + ':' + node.name)} -> {q(tid + ':' + child.name)};")
        out.append("  }")
    if htn is not None:
        out.append(f"  subgraph cluster_htn {{ label={q('HTN domain ' + htn.id)};")
        for name, comp in htn.compounds.items():
            out.append(f"    {q('task:' + name)} [label={q('task ' + name)}];")
            for m in comp.methods:
                mid = f"method:{name}:{m.name}"
                out.append(f"    {q(mid)} [label={q('method ' + m.name)}, shape=ellipse];")
                out.append(f"    {q('task:' + name)} -> {q(mid)};")
                for i, sub in enumerate(m.subtasks):
                    out.append(f"    {q(f'{mid}:{i}:{sub}')} [label={q(sub)}];")
                    out.append(f"    {q(mid)} -> {q(f'{mid}:{i}:{sub}')};")
        out.append("  }")
    if goap is not None:
        out.append(f"  subgraph cluster_goap {{ label={q('GOAP domain ' + goap.id)};")
        for name, a in goap.actions.items():
            lines = [name] + [f"needs {k}={v}" for k, v in a.pre.items()] + [f"sets {k}={v}" for k, v in a.effects.items()]
            out.append(f"    {q('goap:' + name)} [label={q(' / '.join(lines))}];")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def write(content, brain: str, path: str) -> str:
    """Draw brain ``brain`` of ``content`` to ``path`` (.png, .svg or .dot). Returns the format written."""
    bdef = content.brain_defs[brain]
    goap = content.goap.get(bdef.goap) if bdef.goap else None
    htn = content.htn.get(bdef.htn) if bdef.htn else None
    low = path.lower()
    if low.endswith(".dot"):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(to_dot(bdef, goap, htn))
        return "dot"
    drawing = brain_drawing(bdef, goap, htn)
    if low.endswith(".svg"):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(to_svg(drawing))
        return "svg"
    to_png(drawing, path)
    return "png"
