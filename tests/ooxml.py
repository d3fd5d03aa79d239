"""Small Word documents written from OOXML in the tests' own words (no library): a body's
paragraphs, and when given a numbering part and the relationships they need."""

from __future__ import annotations

import io
import zipfile

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NAMESPACES = (
    f'xmlns:w="{W}" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'mc:Ignorable="wps"'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def para(text: str = "", style: str | None = None, num: tuple[int, int] | None = None, runs: str = "") -> str:
    """One ``w:p``: ``style`` its paragraph style (``Heading1``), ``num`` its list
    ``(numId, level)``, ``runs`` raw run XML after the text."""
    ppr = ""
    if style or num:
        ppr = "<w:pPr>" + (f'<w:pStyle w:val="{style}"/>' if style else "")
        if num:
            ppr += f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>'
        ppr += "</w:pPr>"
    body = f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>' if text else ""
    return f"<w:p>{ppr}{body}{runs}</w:p>"


def run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="{W}">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style>
</w:styles>"""


def numbering(formats: dict[int, str]) -> str:
    """A numbering part: abstract list 0 with level 0 in each ``numId``'s format
    (``decimal``, ``lowerLetter``) and text ``%1.`` / ``(%1)``; numId n uses abstract n."""
    out = [f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="{W}">']
    for n, fmt in formats.items():
        text = "(%1)" if fmt.startswith("lower") else "%1."
        out.append(f'<w:abstractNum w:abstractNumId="{n}"><w:lvl w:ilvl="0"><w:start w:val="1"/>'
                   f'<w:numFmt w:val="{fmt}"/><w:lvlText w:val="{text}"/></w:lvl></w:abstractNum>')
    for n in formats:
        out.append(f'<w:num w:numId="{n}"><w:abstractNumId w:val="{n}"/></w:num>')
    out.append("</w:numbering>")
    return "".join(out)


def docx(body: str, numbering_xml: str | None = None, extra: dict[str, bytes] | None = None,
         rels: str = "") -> bytes:
    """A .docx holding ``body`` (the ``w:body``'s children), the styles above, a numbering
    part when given, ``extra`` members (``word/embeddings/x.bin``) and ``rels`` (more
    ``Relationship`` elements of the document part)."""
    overrides = '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    overrides += '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
    doc_rels = f'<Relationship Id="rIdStyles" Type="{_REL}/styles" Target="styles.xml"/>' + rels
    if numbering_xml:
        overrides += '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>'
        doc_rels += f'<Relationship Id="rIdNumbering" Type="{_REL}/numbering" Target="numbering.xml"/>'
    members = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="bin" ContentType="application/vnd.openxmlformats-officedocument.oleObject"/>'
        '<Default Extension="wmf" ContentType="image/x-wmf"/>' + overrides + "</Types>",
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/></Relationships>',
        "word/_rels/document.xml.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' + doc_rels
        + "</Relationships>",
        "word/document.xml": f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NAMESPACES}>'
        f"<w:body>{body}</w:body></w:document>",
        "word/styles.xml": STYLES,
    }
    if numbering_xml:
        members["word/numbering.xml"] = numbering_xml
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()
