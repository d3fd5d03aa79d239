"""A Word document as the student sees it: a small pre-pass on its OOXML before pandoc reads
it, where pandoc's docx reader drops or misnumbers what Word shows, and the warning for
equations nobody can see.

:func:`prepare` rewrites ``word/document.xml`` (every other member is copied as it is):

- **Text boxes.** The paragraphs of a text box (``w:txbxContent``, in a DrawingML shape
  ``wps:txbx`` or a VML ``v:textbox``) are moved out of the drawing to follow the paragraph
  that anchors it; pandoc reads a text box only inside ``mc:AlternateContent``, of which
  one branch is kept.
- **SEQ fields.** Word numbers questions with ``SEQ Question`` fields; the number shown is
  the field's cached result, which Word recomputes on printing and which is often stale or
  empty in the file, and pandoc drops a simple field's result altogether. Each SEQ field
  (``w:fldSimple`` or a complex ``w:fldChar`` field) is replaced by the number Word
  computes: one counter per identifier in document order; ``\\r N`` resets it to N, ``\\c``
  repeats it, ``\\s N`` resets it at each heading of level N, ``\\h`` hides it; ``\\*``
  formats ``ARABIC``, ``alphabetic``, ``ALPHABETIC``, ``roman``, ``ROMAN`` (Microsoft's
  field-code reference, "SEQ field").
- **Numbering continued across headings.** Word counts a list by its abstract numbering
  definition: a second ``w:num`` of the same ``w:abstractNum`` with no ``w:startOverride``
  goes on counting where the first stopped (ECMA-376 Part 1, 17.9.15 and 17.9.26). pandoc
  restarts at each new ``w:num``; a paragraph of such a ``w:num`` is given the first
  ``w:num`` of its definition, so pandoc continues the numbers as Word prints them.

:func:`equation_warnings`: an Equation Editor 3.0 or MathType equation is an OLE object
whose picture is a Windows metafile (``.wmf``/``.emf``), which no browser shows; its maths
(MTEF inside the OLE object) is not read here. Each such picture linked in the markdown is
an ``EquationNotRead`` warning naming the link, so that the flag points at the field that
holds it (:func:`tasks.settle.tiers.conversion_loss_flags`). :func:`linked_images`: a
picture the document links to instead of holding is a ``FileRefused`` warning.
"""

from __future__ import annotations

import hashlib
import io
import re
import xml.etree.ElementTree as ET
import zipfile

from schemas.markdown import ConversionWarning

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
O = "urn:schemas-microsoft-com:office:office"
V = "urn:schemas-microsoft-com:vml"
DOCUMENT = "word/document.xml"
METAFILES = (".wmf", ".emf")


def _w(tag: str) -> str:
    return f"{{{W}}}{tag}"


def prepare(data: bytes) -> bytes:
    """``data`` (a .docx) with text boxes, SEQ fields and continued numbering as Word shows
    them (module docstring); the bytes unchanged when there is nothing to do or the
    document cannot be read here (pandoc then reports what is wrong). Never raises."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = {i.filename: zf.read(i) for i in zf.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError):
        return data
    xml = members.get(DOCUMENT)
    if xml is None:
        return data
    try:
        for prefix, uri in _namespaces(xml):
            ET.register_namespace(prefix, uri)
        root = ET.fromstring(xml)
    except ET.ParseError:
        return data
    changed = _text_boxes(root)
    changed |= _seq_fields(root, _heading_levels(members.get("word/styles.xml")))
    changed |= _continued_numbering(root, members.get("word/numbering.xml"))
    if not changed:
        return data
    members[DOCUMENT] = ET.tostring(root, xml_declaration=True, encoding="UTF-8")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, blob in members.items():
            zf.writestr(name, blob)
    return out.getvalue()


def _namespaces(xml: bytes) -> list[tuple[str, str]]:
    return [(p, u) for _, (p, u) in ET.iterparse(io.BytesIO(xml), events=("start-ns",)) if p]


# --- text boxes ---------------------------------------------------------------------


def _text_boxes(root: ET.Element) -> bool:
    changed = False
    parents = {c: p for p in root.iter() for c in p}
    for par in list(root.iter(_w("p"))):
        if par not in parents or any(a.tag == _w("txbxContent") for a in _ancestors(par, parents)):
            continue
        moved: list[ET.Element] = []
        for holder in list(par.iter()):
            if holder.tag == f"{{{MC}}}AlternateContent" or (holder.tag in (_w("drawing"), _w("pict"))
                                                          and not _inside(holder, f"{{{MC}}}AlternateContent", parents)):
                box = next(holder.iter(_w("txbxContent")), None)
                if box is None:
                    continue
                moved += [p for p in box if p.tag in (_w("p"), _w("tbl"))]
                parents[holder].remove(holder)
        if moved:
            host = parents[par]
            at = list(host).index(par) + 1
            for k, p in enumerate(moved):
                host.insert(at + k, p)
            changed = True
    return changed


def _ancestors(el: ET.Element, parents: dict) -> list[ET.Element]:
    out = []
    while el in parents:
        el = parents[el]
        out.append(el)
    return out


def _inside(el: ET.Element, tag: str, parents: dict) -> bool:
    return any(a.tag == tag for a in _ancestors(el, parents))


# --- SEQ fields ---------------------------------------------------------------------

_SEQ = re.compile(r"^\s*SEQ\s+(?P<name>[^\s\\]+)(?P<switches>.*)$", re.I | re.S)


def _heading_levels(styles: bytes | None) -> dict[str, int]:
    """Paragraph style id → heading level (1-based) from ``w:outlineLvl`` or a
    ``Heading N`` style id."""
    levels: dict[str, int] = {}
    if styles:
        try:
            for st in ET.fromstring(styles).iter(_w("style")):
                sid = st.get(_w("styleId"), "")
                lvl = st.find(f"{_w('pPr')}/{_w('outlineLvl')}")
                if lvl is not None and (lvl.get(_w("val")) or "").isdigit():
                    levels[sid] = int(lvl.get(_w("val"))) + 1
        except ET.ParseError:
            pass
    return levels


def _level(par: ET.Element, levels: dict[str, int]) -> int | None:
    st = par.find(f"{_w('pPr')}/{_w('pStyle')}")
    sid = st.get(_w("val"), "") if st is not None else ""
    m = re.fullmatch(r"[Hh]eading(\d)", sid)
    return levels.get(sid) or (int(m.group(1)) if m else None)


class _Counters:
    def __init__(self) -> None:
        self.value: dict[str, int] = {}
        self.reset_at: dict[str, int] = {}

    def heading(self, level: int) -> None:
        for name, at in self.reset_at.items():
            if level <= at:
                self.value[name] = 0

    def field(self, instr: str) -> str | None:
        m = _SEQ.match(instr)
        if not m:
            return None
        name, sw = m.group("name").lower(), m.group("switches")
        if (s := re.search(r"\\s\s*(\d)", sw)):
            self.reset_at[name] = int(s.group(1))
        if (r := re.search(r"\\r\s*(\d+)", sw)):
            self.value[name] = int(r.group(1))
        elif not re.search(r"\\c\b", sw):
            self.value[name] = self.value.get(name, 0) + 1
        if re.search(r"\\h\b", sw):
            return ""
        fmt = re.search(r"\\\*\s*(\w+)", sw)
        return _formatted(self.value.get(name, 0), fmt.group(1) if fmt else "ARABIC")


def _formatted(n: int, fmt: str) -> str:
    if fmt.lower() == "alphabetic" and n > 0:
        letters = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return letters.upper() if fmt[0] == "A" else letters
    if fmt.lower() == "roman" and n > 0:
        out, rest = "", n
        for v, s in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                     (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
            while rest >= v:
                out, rest = out + s, rest - v
        return out.upper() if fmt[0] == "R" else out
    return str(n)


def _run(text: str, like: ET.Element | None) -> ET.Element:
    r = ET.Element(_w("r"))
    rpr = like.find(_w("rPr")) if like is not None else None
    if rpr is not None:
        r.append(rpr)
    t = ET.SubElement(r, _w("t"))
    t.text = text
    t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return r


def _seq_fields(root: ET.Element, levels: dict[str, int]) -> bool:
    counters, changed = _Counters(), False
    for par in root.iter(_w("p")):
        if (lvl := _level(par, levels)) is not None:
            counters.heading(lvl)
        for host in [par, *par.iter(_w("hyperlink"))]:
            changed |= _fields_in(host, counters)
    return changed


def _fields_in(host: ET.Element, counters: _Counters) -> bool:
    """Replace the SEQ fields that are direct children of ``host`` (simple ones, and
    complex ones whose runs all sit in it)."""
    changed, kids, i = False, list(host), 0
    while i < len(kids):
        k = kids[i]
        if k.tag == _w("fldSimple"):
            value = counters.field(k.get(_w("instr"), ""))
            if value is not None:
                at = list(host).index(k)
                host.remove(k)
                host.insert(at, _run(value, next(k.iter(_w("r")), None)))
                changed = True
            i += 1
            continue
        if _char(k) != "begin":
            i += 1
            continue
        depth, instr, j = 0, "", i
        for j in range(i, len(kids)):
            c = _char(kids[j])
            depth += c == "begin"
            depth -= c == "end"
            if depth == 1 and c is None:
                instr += "".join(t.text or "" for t in kids[j].iter(_w("instrText")))
            if depth == 0:
                break
        else:
            return changed  # the field ends in another paragraph: left to pandoc
        value = counters.field(instr)
        if value is not None:
            at = list(host).index(k)
            for dead in kids[i:j + 1]:
                host.remove(dead)
            host.insert(at, _run(value, k))
            changed = True
        i = j + 1
    return changed


def _char(run: ET.Element) -> str | None:
    fc = run.find(_w("fldChar")) if run.tag == _w("r") else None
    return fc.get(_w("fldCharType")) if fc is not None else None


# --- numbering ------------------------------------------------------------------------


def _continued_numbering(root: ET.Element, numbering: bytes | None) -> bool:
    if not numbering:
        return False
    try:
        nroot = ET.fromstring(numbering)
    except ET.ParseError:
        return False
    first: dict[str, str] = {}
    same: dict[str, str] = {}
    for num in nroot.iter(_w("num")):
        nid, ab = num.get(_w("numId")), num.find(_w("abstractNumId"))
        if nid is None or ab is None:
            continue
        key = ab.get(_w("val"), "")
        restarts = num.find(f"{_w('lvlOverride')}/{_w('startOverride')}") is not None
        if key in first and not restarts:
            same[nid] = first[key]
        first.setdefault(key, nid)
    changed = False
    for ref in root.iter(_w("numId")):
        target = same.get(ref.get(_w("val"), ""))
        if target is not None:
            ref.set(_w("val"), target)
            changed = True
    return changed


# --- equations ------------------------------------------------------------------------


def equation_warnings(data: bytes, links: list[str]) -> list[ConversionWarning]:
    """One ``EquationNotRead`` warning per image link of the markdown (``links``) that is
    the metafile picture of an OLE equation object (``ProgID`` ``Equation.3``,
    ``Equation.DSMT4`` …) in ``data`` (a .docx), naming the link and the object. Never raises."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            doc = zf.read(DOCUMENT)
            rels = zf.read("word/_rels/document.xml.rels")
            names = set(zf.namelist())
            root, rel_root = ET.fromstring(doc), ET.fromstring(rels)
            targets = {r.get("Id"): r.get("Target", "") for r in rel_root}
            pictures: dict[str, str] = {}  # a name the link may end with → the object's ProgID
            for obj in root.iter(_w("object")):
                ole = obj.find(f"{{{O}}}OLEObject")
                image = next(obj.iter(f"{{{V}}}imagedata"), None)
                prog = ole.get("ProgID", "") if ole is not None else ""
                if image is None or not (prog.startswith("Equation.") or "mathtype" in prog.lower()):
                    continue
                target = targets.get(image.get(f"{{{R}}}id"), "").lstrip("/").removeprefix("word/")
                if not target.lower().endswith(METAFILES):
                    continue
                pictures[target] = prog
                if "word/" + target in names:  # pandoc names extracted media by the SHA-1 of their bytes
                    digest = hashlib.sha1(zf.read("word/" + target)).hexdigest()[:16]
                    pictures[digest + target[target.rfind("."):]] = prog
    except (zipfile.BadZipFile, KeyError, OSError, ET.ParseError, ValueError, RuntimeError):
        return []
    out = []
    for link in links:
        prog = next((p for t, p in pictures.items() if link.endswith(t)), None)
        if prog is not None:
            out.append(ConversionWarning(
                kind="EquationNotRead", text=link,
                message=f"[sheet2lambda] equation {link} not read: an OLE equation ({prog}) kept only as a "
                        "Windows metafile picture, which no browser shows; type the equation in"))
    return out


# --- pictures linked, not held ----------------------------------------------------------

_RELATIONSHIP = re.compile(r"<Relationship\b[^>]*>", re.S)
_ATTRIBUTE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')


def linked_images(data: bytes) -> list[ConversionWarning]:
    """One ``FileRefused`` warning per picture a Word document links instead of holding
    (Insert Picture, "Link to File": a relationship with ``TargetMode="External"``, e.g.
    ``file:///C:/figs/beam.png``), or holds under a name missing from it. pandoc reads only
    what the document holds (``--sandbox``) and drops such a picture without a word; the set
    would lack it silently. Never raises (an unreadable document is pandoc's to report)."""
    from tasks.convert.bounds import read_member
    from tasks.errors import InputError, quoted

    out: list[ConversionWarning] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
            for rels in sorted(n for n in names if n.startswith("word/_rels/") and n.endswith(".rels")):
                xml = read_member(zf, rels, "docx").decode("utf-8", "replace")
                for m in _RELATIONSHIP.finditer(xml):
                    attrs = dict(_ATTRIBUTE.findall(m.group(0)))
                    if not attrs.get("Type", "").endswith("/image"):
                        continue
                    target = attrs.get("Target", "")
                    if attrs.get("TargetMode") == "External":
                        why = "a picture the document links to, outside it (not read: insert the picture itself)"
                    elif f"word/{target}" not in names and target.lstrip("/") not in names:
                        why = "a picture the document names but does not hold"
                    else:
                        continue
                    out.append(ConversionWarning(kind="FileRefused", text=target,
                                                 message=f"[sheet2lambda] docx picture {quoted(target)} not read: {why}"))
    except (zipfile.BadZipFile, InputError, OSError, KeyError):
        return out
    return out
