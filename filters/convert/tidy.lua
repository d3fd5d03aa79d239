--[[
tidy.lua: the filter stage 1 (tasks/convert/markdown.py) runs while pandoc reads a .tex or
.docx document, before the markdown is written. It removes only markup the platform
cannot render and never adds or rewrites a word of the sheet:

- underline (LaTeX \underline / \uline, docx underline) and small caps (\textsc)
  become their plain content, and so does every span: `[text]{.underline}`, `{.mark}`
  (\hl), `{style="color: red"}` and the empty `[]{#label}` anchors \label leaves;
- images lose their size attributes ({width=… height=…}); the placeholder alt text
  "image" the LaTeX reader invents for \includegraphics is cleared;
- a figure becomes a paragraph holding its image(s), followed by its caption when the
  caption says something the alt text does not (commonmark_x has no figure syntax, so
  pandoc would otherwise write an HTML <figure> block);
- layout-only environments (center, flushleft, flushright, minipage) lose their
  `::: {.center}` fences and keep their content;
- headings lose their identifiers and classes ({#id .unnumbered}); links lose
  their attributes ({reference-type="ref" …}); code blocks keep only their language
  (```` ``` html ````, not ```` ``` {.html language="HTML"} ````);
- `\ensuremath` inside maths is cut (its argument stays, as LaTeX prints it there);
- a display environment inside `$$` (`\begin{align*}`, `gather*`, `multline*`, `flalign*`,
  `equation*`, and the numbered ones, which MathJax shows unnumbered by default), as
  markdown-family sheets write it, becomes what KaTeX renders there (aligned, gathered, or
  its body), as structure.lua does for a .tex sheet; so does
  `eqnarray` (starred or not: array{rcl}), which KaTeX does not render in any form;
- maths spanning several lines: a continuation line that could start a markdown block
  (list item, heading, quote, fence, setext underline, HTML, table, div) is indented by
  four spaces so that it stays inside the paragraph, and blank lines inside maths are
  removed (they would end the paragraph). TeX ignores this whitespace;
- a paragraph loses the blanks it opens with (a `\label` or empty span alone on the
  line before the text leaves a line break there): in a list item, a paragraph written
  after its marker with two spaces moves the item's content column, so that the item's
  nested list would read back as a code block;
- a footnote stays where the student reads it: its mark becomes the superscript number
  LaTeX prints (as maths, `$^{1}$`: the platform shows markdown's `^1^` as text), and its text follows the block that holds the mark, with that number
  in front (inside the same list item). Written as a markdown footnote, its text would
  sit at the end of the document, and a reader taking the part's source span from the
  mark would run to the end of the document;
- the end-of-proof mark pandoc's LaTeX reader gives `\qed` written in text ("\a0◻": a
  bell and a zero where the no-break space of a proof environment's own mark, "\u{a0}◻",
  belongs; pandoc 3.9) is that mark: a control character is no sheet's text, and the
  conversion refused every sheet that wrote `\qed`;
- docx images in pandoc's media bag are renamed to the first 16 hex digits of the
  sha1 of their bytes, so that images from two documents extracted into one folder
  can never overwrite each other.

Metadata key `sheet2lambda-reader` (set with -M by the caller) names the reader
("latex", "docx"); it is removed from the document.
]]

local reader = ""

local function Unwrap(el)
  return el.content
end

local QED_BELL = "\a0\u{25FB}"

local function Str(el)
  if el.text:find(QED_BELL, 1, true) then
    el.text = el.text:gsub("\a0\u{25FB}", "\u{A0}\u{25FB}")
    return el
  end
end

local function Span(el)
  return el.content
end

local function Image(el)
  el.attributes.width = nil
  el.attributes.height = nil
  if reader == "latex" and pandoc.utils.stringify(el.caption) == "image" then
    el.caption = {}
  end
  return el
end

-- Layout-only environments (\begin{center}, flushleft, flushright, minipage) become
-- fenced divs (`::: {.center}`), which the platform shows as text: keep their content.
local LAYOUT = { center = true, centering = true, flushleft = true, flushright = true, minipage = true }

local function Div(el)
  for _, class in ipairs(el.classes) do
    if LAYOUT[class] then return el.content end
  end
  return nil
end

local function Header(el)
  el.attr = pandoc.Attr()
  return el
end

-- A code block keeps only its language (its first class): `{.html language="HTML"}`
-- after a fence is pandoc's attribute syntax, which the platform shows as text;
-- ```` ``` html ```` is plain markdown.
local function CodeBlock(el)
  local lang = el.classes[1]
  el.attr = pandoc.Attr("", lang and { lang } or {})
  return el
end

local function Link(el)
  el.attr = pandoc.Attr()
  return el
end

-- A line that, at the start of a paragraph continuation line, could open a block in
-- commonmark_x: bullet or ordered list item, ATX heading, block quote, code fence,
-- setext underline or thematic break, HTML block, pipe table, fenced div.
local function risky(line)
  local s = line:gsub("^%s+", "")
  if s == "" then return false end
  if s:match("^[-+*]%s") or s:match("^[-+*]$") then return true end
  if s:match("^%d+[.)]%s") or s:match("^%d+[.)]$") then return true end
  if s:match("^#") or s:match("^>") or s:match("^<") or s:match("^|") then return true end
  if s:match("^```") or s:match("^~~~") or s:match("^:::") then return true end
  if s:match("^=+%s*$") or s:match("^[-*_][-*_%s]*$") then return true end
  return false
end

-- The environment KaTeX renders inside `$$` in place of a display environment written inside
-- `$$` in a markdown-family sheet (`$$\begin{align*}…\end{align*}$$`, which MathJax accepts):
-- the mapping structure.lua applies to a .tex sheet's displays. A numbered one (`align`,
-- `gather`, `equation`) shows no number there either: MathJax numbers nothing unless the page
-- asks (its `tags` option is 'none' by default, as Jupyter, pandoc's HTML and Quarto leave it),
-- so the student reads it as the starred one. One holding `\tag` is left (KaTeX takes a tag
-- only at the top of a display). A .tex sheet's reach here already rewritten by structure.lua.
-- eqnarray, starred or not, is one KaTeX has no form of at all (red source on the platform):
-- it becomes array{rcl}, its look, as structure.lua makes a .tex sheet's (its rows' numbers,
-- which MathJax shows only when the page asks for them, are cut with its labels).
local UNNUMBERED = { ["align*"] = "aligned", ["flalign*"] = "aligned", ["gather*"] = "gathered",
  ["multline*"] = "gathered", ["equation*"] = "", ["eqnarray*"] = "array", eqnarray = "array",
  align = "aligned", flalign = "aligned", gather = "gathered", multline = "gathered", equation = "" }

local function katex_display(el)
  if el.mathtype ~= "DisplayMath" then return false end
  local env, body = el.text:match("^%s*\\begin{(%a+%*?)}(.*)$")
  local inner = env and UNNUMBERED[env]
  if not inner then return false end
  local close = "\\end{" .. env:gsub("%*", "%%*") .. "}%s*$"
  if not body:find(close) then return false end
  body = body:gsub(close, ""):gsub("\\label%s*{[^}]*}", ""):gsub("\\nonumber", ""):gsub("\\notag", "")
  if body:find("\\begin{" .. env:gsub("%*", "%%*") .. "}") then return false end
  if body:find("\\tag%f[^%a]") then return false end
  local cols = inner == "array" and "{rcl}" or ""
  el.text = inner == "" and body or ("\\begin{" .. inner .. "}" .. cols .. body .. "\\end{" .. inner .. "}")
  return true
end

local function Math(el)
  -- `\ensuremath{X}` inside maths is `{X}`: LaTeX typesets the argument as it is in maths
  -- mode (a sheet's `\newcommand{\RR}{\ensuremath{\mathbb R}}`, which pandoc expands into
  -- the maths), and KaTeX does not know the command
  local text, n = el.text:gsub("\\ensuremath%f[^%a]%s*", "")
  if n > 0 then el.text = text end
  if katex_display(el) then n = n + 1 end
  if not el.text:find("\n", 1, true) then return n > 0 and el or nil end
  local lines = {}
  local first = true
  for line in (el.text .. "\n"):gmatch("(.-)\n") do
    if first then
      table.insert(lines, line)
      first = false
    elseif not line:match("^%s*$") then
      if risky(line) then line = "    " .. line:gsub("^%s+", "") end
      table.insert(lines, line)
    end
  end
  el.text = table.concat(lines, "\n")
  return el
end

local function Figure(el)
  local images = {}
  local alts = {}
  el.content:walk({
    Image = function(img)
      table.insert(images, img)
      table.insert(alts, pandoc.utils.stringify(img.caption))
    end,
  })
  local blocks = pandoc.Blocks({})
  if #images > 0 then
    local inlines = pandoc.Inlines({})
    for i, img in ipairs(images) do
      if i > 1 then inlines:insert(pandoc.Space()) end
      inlines:insert(img)
    end
    blocks:insert(pandoc.Para(inlines))
    -- Anything else the figure holds besides its images (text, tables) is kept too.
    local rest = el.content:walk({ Image = function() return {} end })
    if pandoc.utils.stringify(rest):match("%S") then
      blocks:extend(rest)
    end
  else
    blocks:extend(el.content)
  end
  local caption = pandoc.utils.stringify(el.caption.long or {})
  local same = false
  for _, alt in ipairs(alts) do
    if alt == caption then same = true end
  end
  if caption:match("%S") and not same then
    blocks:extend(el.caption.long)
  end
  return blocks
end

-- A paragraph's leading blanks (Space, SoftBreak, LineBreak), left where an empty span
-- was unwrapped, are not the sheet's text.
local function LeadingBlanks(el)
  local n = 0
  while el.content[n + 1] and (el.content[n + 1].t == "Space" or el.content[n + 1].t == "SoftBreak"
      or el.content[n + 1].t == "LineBreak") do
    n = n + 1
  end
  if n == 0 then return nil end
  for _ = 1, n do el.content:remove(1) end
  return el
end

local function rename_media()
  local map = {}
  for _, item in ipairs(pandoc.mediabag.list()) do
    local mime, contents = pandoc.mediabag.lookup(item.path)
    if contents then
      local ext = item.path:match("(%.[%w]+)$") or ""
      local name = pandoc.utils.sha1(contents):sub(1, 16) .. ext:lower()
      map[item.path] = name
    end
  end
  for old, new in pairs(map) do
    local mime, contents = pandoc.mediabag.lookup(old)
    pandoc.mediabag.delete(old)
    pandoc.mediabag.insert(new, mime, contents)
  end
  return map
end

-- Footnotes: numbered in document order, then each note's blocks moved after the
-- block that holds its mark.
local NOTE = "sheet2lambda-note"

-- The mark as maths (`$^{1}$`): the platform renders it as the raised number LaTeX prints,
-- where markdown's `^1^` would show as text.
local function Mark(n)
  return pandoc.Math("InlineMath", "^{" .. n .. "}")
end

local function NumberNotes(doc)
  local count = 0
  return doc:walk({
    Note = function(el)
      count = count + 1
      return pandoc.Span({ el }, pandoc.Attr("", { NOTE }, { n = tostring(count) }))
    end,
  })
end

local function Footnotes(blocks)
  local out, changed = pandoc.List(), false
  for _, b in ipairs(blocks) do
    if b.t == "Para" or b.t == "Plain" or b.t == "Header" then
      local notes = pandoc.List()
      b = b:walk({
        Span = function(el)
          if el.classes[1] ~= NOTE then return nil end
          local mark = el.attributes.n
          notes:insert({ mark = mark, blocks = el.content[1].content })
          return Mark(mark)
        end,
      })
      out:insert(b)
      for _, note in ipairs(notes) do
        changed = true
        local first = note.blocks[1]
        if first and (first.t == "Para" or first.t == "Plain") then
          first.content:insert(1, pandoc.Space())
          first.content:insert(1, Mark(note.mark))
        else
          out:insert(pandoc.Para({ Mark(note.mark) }))
        end
        out:extend(note.blocks)
      end
    else
      out:insert(b)
    end
  end
  if changed then return out end
  return nil
end

function Pandoc(doc)
  local key = doc.meta["sheet2lambda-reader"]
  if key then
    reader = pandoc.utils.stringify(key)
    doc.meta["sheet2lambda-reader"] = nil
  end
  local map = rename_media()
  doc = doc:walk({
    Underline = Unwrap,
    SmallCaps = Unwrap,
    Span = Span,
    Div = Div,
    Math = Math,
    Header = Header,
    Link = Link,
    CodeBlock = CodeBlock,
    Str = Str,
  })
  doc = doc:walk({
    Image = function(el)
      if map[el.src] then el.src = map[el.src] end
      return Image(el)
    end,
  })
  doc = doc:walk({ Figure = Figure })
  doc = doc:walk({ Para = LeadingBlanks, Plain = LeadingBlanks })
  doc = NumberNotes(doc)
  doc = doc:walk({ Blocks = Footnotes })
  return doc
end
