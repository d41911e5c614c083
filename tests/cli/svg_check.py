#!/usr/bin/env python3
"""Is a `vsc check --svg` picture right and readable?

svg_check.py [--fonts CLASS=PX,...] PICTURE.svg [EXPLAIN.txt]

(--fonts: the font sizes a style sheet gives texts of those classes, for
the picture an --html page's script drew, taken from a browser's DOM; such
a picture has no size of its own and is not checked for lying inside it)

- every text that sits in a box (an event's label, a step's badge) fits
  it, its width reckoned from its font size (monospace: 0.602 em a
  character, DejaVu Sans Mono's advance), and one cut short (an ellipsis)
  has its whole text as a tooltip;
- no two labels or boxes overlap: every box, and every text that is in
  none (lane names, `... N ...` notes, arrow labels, legend, title);
- everything lies inside the picture;
- with the text of `vsc check --explain` of the same execution: the
  picture draws one arrow for every step the text lists (the cycle's and
  the chains that justify them, however deep the text goes), the same
  events in the same order; or, when its title says it draws N of M steps,
  the text lists M and the N drawn are among them.
Prints what is wrong and exits 1; 0 when all holds."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ADVANCE = 0.602


def own_text(e):
    """The text a <text> shows (a <title> in it would not be shown)."""
    return (e.text or "") + "".join((c.tail or "") for c in e)


CLASS_FONTS = {}


def font_size(e, parents):
    if e.get("class") in CLASS_FONTS:
        return CLASS_FONTS[e.get("class")]
    while e is not None:
        if e.get("font-size"):
            return float(e.get("font-size"))
        e = parents.get(e)
    return 11.0


def text_box(e, parents):
    """The box a <text> covers: (x0, y0, x1, y1)."""
    fs = font_size(e, parents)
    w = len(own_text(e)) * ADVANCE * fs
    x, y = float(e.get("x")), float(e.get("y"))
    anchor = e.get("text-anchor", "start")
    x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return (x0, y - 0.8 * fs, x0 + w, y + 0.25 * fs)


def rect_box(e):
    x, y = float(e.get("x", 0)), float(e.get("y", 0))
    return (x, y, x + float(e.get("width")), y + float(e.get("height")))


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check(path, explain):
    errors = []
    root = ET.parse(path).getroot()
    parents = {c: p for p in root.iter() for c in p}
    width, height = float(root.get("width", "inf")), float(root.get("height", "inf"))
    labels = []  # (what, box)

    # boxes: every rect but the background; a text whose anchor lies in a
    # box is its label and must fit it; every other text is a label of its
    # own, which no box and no other label may overlap
    boxes = [(r, rect_box(r)) for r in root.iter(NS + "rect") if "%" not in r.get("width")]
    for t in root.iter(NS + "text"):
        x, y = float(t.get("x")), float(t.get("y"))
        tb = text_box(t, parents)
        inside = [b for r, b in boxes if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
        # its tooltip: in it, in its group, or in its box
        tips = [t, parents.get(t)] + [r for r, b in boxes if b in inside]
        cut = own_text(t).endswith("\u2026") and not own_text(t).startswith("\u2026")
        if cut and not any(e is not None and e.find(NS + "title") is not None for e in tips):
            errors.append("%r is cut without a tooltip" % own_text(t))
        if not inside:
            labels.append(("text %r" % own_text(t), tb))
            continue
        b = inside[0]
        if tb[0] < b[0] + 1 or tb[2] > b[2] - 1:
            errors.append("label %r (%.0f px) does not fit its %.0f px box"
                          % (own_text(t), tb[2] - tb[0], b[2] - b[0]))
    labels += [("box %s" % (tuple(round(v) for v in b),), b) for r, b in boxes]
    for what, box in labels:
        if box[0] < 0 or box[1] < 0 or box[2] > width or box[3] > height:
            errors.append("%s at %s lies outside the %.0fx%.0f picture"
                          % (what, tuple(round(v) for v in box), width, height))
    labels.sort(key=lambda wb: wb[1][0])
    for i, (what, box) in enumerate(labels):  # sweep along x
        for other, obox in labels[i + 1:]:
            if obox[0] >= box[2]:
                break
            if overlap(box, obox):
                errors.append("%s overlaps %s" % (what, other))

    steps = [(p.get("data-before"), p.get("data-after"))
             for p in root.iter(NS + "path") if p.get("marker-end")]
    if explain is not None:
        listed = explained_steps(open(explain).read())
        title = own_text(next(root.iter(NS + "text")))
        part = re.search(r"\((\d+) of the (\d+) steps of its explanation drawn\)", title)
        if part:
            drawn, total = int(part.group(1)), int(part.group(2))
            if total != len(listed) or drawn != len(steps) or not set(steps) <= set(listed):
                errors.append("title says %d of %d steps: the text lists %d, %d are drawn"
                              % (drawn, total, len(listed), len(steps)))
        elif steps != listed:
            errors.append("the text lists %d steps, the picture draws %d arrows%s"
                          % (len(listed), len(steps),
                             "" if len(steps) != len(listed) else " (other events)"))
    for e in errors[:20]:
        print("%s: %s" % (path, e))
    if len(errors) > 20:
        print("%s: and %d more" % (path, len(errors) - 20))
    return not errors


def explained_steps(text):
    """The steps `--explain` lists after `why:`: an event, then `before` one."""
    steps, last = [], None
    why = False
    for line in text.splitlines():
        if line.lstrip().startswith("why:"):
            why = True
            continue
        if not why:
            continue
        m = re.match(r"\s*before (\S+\[\d+\]) ", line)
        if m and last:
            steps.append((last, m.group(1)))
            last = None
            continue
        m = re.match(r"\s*(\S+\[\d+\]) [rwu] ", line)
        last = m.group(1) if m else None
    return steps


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--fonts"] and len(args) > 1:
        CLASS_FONTS.update((k, float(v)) for k, v in (f.split("=") for f in args[1].split(",")))
        args = args[2:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    sys.exit(0 if check(args[0], args[1] if len(args) == 2 else None) else 1)
