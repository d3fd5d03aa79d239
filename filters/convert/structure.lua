--[[
structure.lua: run by stage 1 (tasks/convert/markdown.py) while pandoc reads a .tex
sheet, after the TeX pre-pass (tasks/convert/tex_rewrite.py) and before tidy.lua. It
turns what pandoc's LaTeX reader made of the sheet's structure into the markers of
notes' contract (plain markdown), and adds no word of its own:

- a theorem-style environment (a div whose first paragraph opens with pandoc's bold
  "Problem 1") becomes a paragraph opening with the bold marker **Problem 1.**, its
  optional title kept right after it in parentheses; the italics pandoc gives a plain
  theorem's body are removed (they are the style, not the author's emphasis);
- a proof becomes a `solution` div (its "Proof." label and end mark dropped); every
  other div but `solution`/`answer` is unwrapped (its content kept);
- a list whose first item opens with the pre-pass's `sheet2lambda-start-N` label starts
  at N;
- `\ref`/`\eqref` links become the printed number: equations are numbered as LaTeX
  numbers them (equation, and each row of align/gather/multline/eqnarray without
  \nonumber or \notag), and `(n)` for \eqref; a numbered equation gets `\tag{n}` so the
  platform prints its number; other internal links become their text;
- display environments become the ones KaTeX renders inside `$$` (align/align*/flalign →
  aligned, gather/multline → gathered, eqnarray → array{rcl}, alignat → alignedat), their
  \label/\nonumber/\notag cut; a display with one numbered row gets `\tag{n}`, one with
  several ends each numbered row with `\qquad (n)`;
- superscript and subscript text (pandoc-only ^x^ and ~x~) become maths;
- a paragraph that runs on over hard line breaks into a bold run-in marker
  (`… \\` then `\textbf{Problem 2.} \\`, no blank line between) is cut before the
  marker, which then opens a paragraph as after a blank line;
- a paragraph opening with a part label in bold or italics (`\textbf{(a)}`, a class's
  `\problempart` printing `{\bfseries (\alph{part})}`) opens with the plain label `(a)`,
  the contract's part marker: the emphasis is the label's typography, not the author's
  words.
]]

local START = "sheet2lambda%-start%-(%d+)"
local KEEP = { solution = true, answer = true }

local eqno = {}
local count = 0

local function envs_of(text)
  return text:match("^%s*\\begin{([%a%*]+)}")
end

local NUMBERED_ROWS = { align = true, gather = true, multline = true, eqnarray = true, flalign = true, alignat = true }

-- The environment KaTeX renders inside `$$` in place of each display environment
-- (align* is no KaTeX-safe field content: the platform's fields hold `$$…$$` maths with
-- aligned/gathered/array inside, see docs on KaTeX's supported environments).
local INNER = {
  align = "aligned", flalign = "aligned", gather = "gathered", multline = "gathered",
  eqnarray = "array", alignat = "alignedat",
}

local function inner_env(env)
  local base = env:gsub("%*$", "")
  local inner = INNER[base]
  if not inner then return nil end
  if inner == "array" then return "array", "{rcl}" end
  return inner, ""
end

local function number_math(el)
  local env = envs_of(el.text)
  if not env then return nil end
  local body = el.text:match("^%s*\\begin{" .. env:gsub("%*", "%%*") .. "}(.*)\\end{" .. env:gsub("%*", "%%*") .. "}%s*$")
  if not body then return nil end
  if env == "equation" and body:match("\\tag%*?%s*{") then
    -- its own \tag is its number (KaTeX takes one): no count taken
    local label, own = body:match("\\label%s*{([^}]*)}"), body:match("\\tag%*?%s*(%b{})")
    if label and own then eqno[label] = own:sub(2, -2) end
    el.text = body:gsub("\\label%s*{[^}]*}", ""):gsub("^%s+", ""):gsub("%s+$", "")
    return el
  elseif env == "equation" then
    count = count + 1
    local n = count
    local label = body:match("\\label%s*{([^}]*)}")
    if label then eqno[label] = n end
    body = body:gsub("\\label%s*{[^}]*}", "")
    el.text = body:gsub("^%s+", ""):gsub("%s+$", "") .. " \\tag{" .. n .. "}"
    return el
  elseif env == "equation*" then
    el.text = body:gsub("^%s+", ""):gsub("%s+$", "")
    return el
  end
  local inner, cols = inner_env(env)
  if not inner then return nil end
  local numbered = NUMBERED_ROWS[env] == true
  -- alignat{n}'s column count stays with alignedat
  if inner == "alignedat" then
    local n, rest = body:match("^%s*(%b{})(.*)$")
    if n then cols, body = n, rest end
  end
  local rows, numbers = {}, {}
  for row in (body .. "\\\\"):gmatch("(.-)\\\\") do table.insert(rows, row) end
  if rows[#rows] and not rows[#rows]:match("%S") then table.remove(rows) end
  for i, row in ipairs(rows) do
    -- a row's own \tag{…} (\tag*{…}: no brackets) is its printed number; KaTeX takes a \tag only
    -- once, outside the rows, so it is written as a number is (no count taken)
    local star, own = row:match("\\tag(%*?)%s*(%b{})")
    if own then
      numbers[i] = star == "*" and own:sub(2, -2) or "(" .. own:sub(2, -2) .. ")"
      local label = row:match("\\label%s*{([^}]*)}")
      if label then eqno[label] = own:sub(2, -2) end
      row = row:gsub("\\tag%*?%s*%b{}", "")
    elseif numbered and row:match("%S") and not row:match("\\nonumber") and not row:match("\\notag") then
      count = count + 1
      local label = row:match("\\label%s*{([^}]*)}")
      if label then eqno[label] = count end
      numbers[i] = "(" .. count .. ")"
    end
    rows[i] = row:gsub("\\label%s*{[^}]*}", ""):gsub("\\nonumber", ""):gsub("\\notag", "")
  end
  -- the printed numbers: one numbered row is the display's \tag; several are each
  -- row's number at its end, as LaTeX prints them
  local tagged = {}
  for i in pairs(numbers) do tagged[#tagged + 1] = i end
  local tag = ""
  if #tagged == 1 then
    local n = numbers[tagged[1]]
    tag = n:match("^%(.*%)$") and " \\tag{" .. n:sub(2, -2) .. "}" or " \\tag*{" .. n .. "}"
  else
    for i, n in pairs(numbers) do
      rows[i] = rows[i]:gsub("%s+$", "") .. " \\qquad " .. n
    end
  end
  local text = table.concat(rows, "\\\\")
  el.text = "\\begin{" .. inner .. "}" .. cols .. text .. "\\end{" .. inner .. "}" .. tag
  return el
end

local function drop_leading_space(inlines)
  while #inlines > 0 and (inlines[1].t == "Space" or inlines[1].t == "SoftBreak") do inlines:remove(1) end
  return inlines
end

-- A paragraph whose whole content is italic loses the italics.
local function unitalic(inlines)
  local rest = pandoc.Inlines({})
  local only = nil
  for _, x in ipairs(inlines) do
    if x.t == "Emph" and only == nil then only = x
    elseif x.t ~= "Space" and x.t ~= "SoftBreak" then return inlines end
  end
  if only then return only.content end
  return inlines
end

local function theorem_label(div)
  local first = div.content[1]
  if not first or (first.t ~= "Para" and first.t ~= "Plain") then return nil end
  local s = first.content[1]
  if not s or s.t ~= "Strong" then return nil end
  local text = pandoc.utils.stringify(s)
  if text:match("^%S.-%s%d+[%.%d]*$") then return first end
  return nil
end

local function theorem(div)
  local first = theorem_label(div)
  if not first then return nil end
  local inl = first.content
  local strong = inl:remove(1)
  local label = pandoc.utils.stringify(strong)
  local out = pandoc.Inlines({ pandoc.Strong({ pandoc.Str(label .. ".") }) })
  drop_leading_space(inl)
  if #inl > 0 and inl[1].t == "Str" and inl[1].text == "." then
    inl:remove(1)
  elseif #inl > 0 and inl[1].t == "Str" and inl[1].text:sub(1, 1) == "(" then
    -- the optional title: inlines up to the one ending in ")."
    local title = pandoc.Inlines({})
    while #inl > 0 do
      local x = inl:remove(1)
      if x.t == "Str" and x.text:match("%)%.$") then
        title:insert(pandoc.Str(x.text:sub(1, -2)))
        break
      end
      title:insert(x)
    end
    -- blanks just inside the parentheses are the source's line breaks, not the title's
    local flat = pandoc.Inlines({})  -- a braced [{title}] is a span: its content is the title
    for _, x in ipairs(title) do
      if x.t == "Span" then flat:extend(x.content) else flat:insert(x) end
    end
    title = flat
    local function blank(x) return x.t == "Space" or x.t == "SoftBreak" end
    if #title > 1 and title[1].t == "Str" and title[1].text == "(" and blank(title[2]) then title:remove(2) end
    local n = #title
    if n > 1 and title[n].t == "Str" and title[n].text == ")" and blank(title[n - 1]) then title:remove(n - 1) end
    out:insert(pandoc.Space())
    out:extend(title)
  end
  drop_leading_space(inl)
  local body = unitalic(inl)
  if #body > 0 then
    out:insert(pandoc.Space())
    out:extend(body)
  end
  local blocks = pandoc.Blocks({ pandoc.Para(out) })
  for i = 2, #div.content do blocks:insert(div.content[i]) end
  return blocks:walk({
    Para = function(p) p.content = unitalic(p.content); return p end,
    Plain = function(p) p.content = unitalic(p.content); return p end,
  })
end

local function proof(div)
  local blocks = div.content
  local first = blocks[1]
  -- (a Plain in a tight list item: a proof under an `\item`)
  if first and (first.t == "Para" or first.t == "Plain") and first.content[1] and first.content[1].t == "Emph"
      and pandoc.utils.stringify(first.content[1]):match("^Proof%.?$") then
    first.content:remove(1)
    drop_leading_space(first.content)
  end
  local last = blocks[#blocks]
  if last and (last.t == "Para" or last.t == "Plain") then
    local n = #last.content
    local mark = n > 0 and last.content[n].t == "Str" and last.content[n].text:gsub("\u{a0}", "")
    if mark == "◻" then
      last.content:remove(n)
      while #last.content > 0 and last.content[#last.content].t == "Space" do last.content:remove(#last.content) end
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "solution" }))
end

-- Classes of the divs unwrapped, so stage 1 knows their environment's content survived.
local unwrapped = {}

local function Div(div)
  for _, c in ipairs(div.classes) do
    if KEEP[c] then return nil end
    if c == "proof" then return proof(div) end
  end
  for _, c in ipairs(div.classes) do table.insert(unwrapped, c) end
  return theorem(div) or div.content
end

local function OrderedList(el)
  local item = el.content[1]
  local block = item and item[1]
  if block and (block.t == "Para" or block.t == "Plain") and block.content[1] and block.content[1].t == "Span" then
    local n = block.content[1].identifier:match("^" .. START .. "$")
    if n then
      el.start = tonumber(n)
      block.content:remove(1)
      drop_leading_space(block.content)
    end
  end
  return el
end

-- Labels inside list items print as the item's label: (a), ii, 3.
local itemno = {}
local function format_item(n, style, delim)
  local s = tostring(n)
  if style == "LowerAlpha" or style == "UpperAlpha" then
    s = string.char(96 + ((n - 1) % 26) + 1)
  elseif style == "LowerRoman" or style == "UpperRoman" then
    local romans = { "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii" }
    s = romans[n] or tostring(n)
  end
  if style == "UpperAlpha" or style == "UpperRoman" then s = s:upper() end
  if delim == "TwoParens" then s = "(" .. s .. ")" end
  return s
end

local function number_items(el)
  for i, item in ipairs(el.content) do
    local first = item[1]
    if first then
      pandoc.walk_block(pandoc.Div({ first }), {
        Span = function(sp)
          if sp.identifier ~= "" and not sp.identifier:match("^" .. START .. "$") then
            itemno[sp.identifier] = format_item(el.start + i - 1, el.style, el.delimiter)
          end
        end,
      })
    end
  end
end

local function Link(el)
  local kind = el.attributes["reference-type"]
  local target = el.attributes["reference"] or el.target:match("^#(.*)$")
  if kind and target then
    local n = eqno[target] or itemno[target]
    local text = n and tostring(n) or pandoc.utils.stringify(el.content):gsub("^%[(.*)%]$", "%1")
    if kind == "eqref" then text = "(" .. text .. ")" end
    return pandoc.Str(text)
  end
  if el.target:sub(1, 1) == "#" then return el.content end
  return nil
end

local function script(sign)
  return function(el)
    return pandoc.Math("InlineMath", sign .. "{\\text{" .. pandoc.utils.stringify(el.content) .. "}}")
  end
end

-- "(a)", "(iv)", "b)", "(3)": a part label as the contract reads it at a paragraph's start.
local function part_label(text)
  return text:match("^%(%l%)$") or text:match("^%([ivx]+%)$") or text:match("^%l%)$") or text:match("^%(%d+%)$")
end

local function plain_label(block)
  local first = block.content[1]
  if first and (first.t == "Strong" or first.t == "Emph") then
    local text = pandoc.utils.stringify(first):gsub("%s+$", "")
    if part_label(text) then
      block.content[1] = pandoc.Str(text)
      return block
    end
  end
  return nil
end

-- A bold run-in marker alone in its bold (`\textbf{Problem 2.}`, `Exercise 3:`): a word
-- and a number, nothing else.
local function run_in_marker(inline)
  if not inline or inline.t ~= "Strong" then return false end
  local text = pandoc.utils.stringify(inline):gsub("%s+$", "")
  return text:match("^%u[%a]+%s+%d+[%.%d]*[%.:]?$") ~= nil
end

-- A paragraph that runs on over hard line breaks (`… What is it? \\` then
-- `\noindent \textbf{Problem 2.} \\` with no blank line between, as pandoc joins them)
-- is cut before each line that opens with a bold run-in marker: the marker opens a
-- paragraph of its own, as it does after a blank line. The break itself is dropped.
local function split_at_markers(block)
  local parts, cur = {}, pandoc.List({})
  local inl = block.content
  local k = 1
  while k <= #inl do
    local x = inl[k]
    if x.t == "LineBreak" then
      local j = k + 1
      while inl[j] and (inl[j].t == "Space" or inl[j].t == "SoftBreak") do j = j + 1 end
      if run_in_marker(inl[j]) and #cur > 0 then
        parts[#parts + 1] = cur
        cur = pandoc.List({})
        k = j
        x = inl[k]
      end
    end
    cur:insert(x)
    k = k + 1
  end
  if #parts == 0 then return nil end
  parts[#parts + 1] = cur
  local out = {}
  for _, c in ipairs(parts) do out[#out + 1] = pandoc.Para(c) end
  return out
end

function Pandoc(doc)
  doc = doc:walk({ Para = split_at_markers })
  doc = doc:walk({ Math = function(el) if el.mathtype == "DisplayMath" then return number_math(el) end end })
  doc = doc:walk({ Div = Div })
  if #unwrapped > 0 then doc.meta["sheet2lambda-unwrapped"] = pandoc.MetaList(unwrapped) end
  doc = doc:walk({ OrderedList = OrderedList })
  doc:walk({ OrderedList = function(el) number_items(el) end })
  doc = doc:walk({ Link = Link, Superscript = script("^"), Subscript = script("_") })
  doc = doc:walk({ Para = plain_label, Plain = plain_label })
  return doc
end
