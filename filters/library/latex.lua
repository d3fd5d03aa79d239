-- superseded-by: general
--[[
latex.lua: a library route B filter for markdown that pandoc wrote from a LaTeX sheet
(sheet2lambda), e.g. `pandoc -f latex -t commonmark_x-smart --wrap=none sheet.tex`.

Questions are read in one of these layouts (they may mix):
  * a top-level numbered list, one item per question (`\begin{enumerate}\item ...`):
    the item's text before its nested list is the main text, the nested list's items
    are the parts, text after the nested list joins the last part; a bullet list ending
    a part, one short paragraph per item, is that part's multiple-choice options;
  * paragraphs, each question one or more paragraphs followed by a numbered list of its
    parts; a paragraph after a list of parts starts the next question;
  * explicit markers: a heading naming a question (`Question 3`, `Problem 2. Title`,
    `1.2 Title`; see sheet.question_heading) or a paragraph opening with a bold
    `**Question 3**` / `**Problem 3.**`; then the question runs to the next marker.
Any other heading (the sheet title `# Problem Sheet 1: Kinematics`, a section heading)
is chrome and ends the question before it. Titles are the heading's words after the
number; questions without a heading have an empty title.

Solutions are read from a trailing section whose heading starts with `Solutions` or
`Answers` (in the questions role they are merged into the questions by position), or, in
the solutions role, from a whole document without such a heading. Inside it either
  * paragraphs opening with a number and a part label: `1(a) ...`, `1 (b) ...`,
    `2. ...`, `(c) ...` (the question of the paragraph before); text up to the next
    label is that part's worked solution; or
  * the question layout above, every part's text (or a question's main text when it
    has no parts) being the worked solution.
Every field is quoted from the markdown (sheet.text).
]]

local function trim(s) return sheet.trim(s) end

local function is_solutions_heading(b)
  if b.t ~= 'Header' then return false end
  local text = pandoc.utils.stringify(b.content):lower()
  return text:match('^%s*solutions?%f[%W]') ~= nil or text:match('^%s*answers?%f[%W]') ~= nil
end

-- `**Question 3**` / `**Problem 3.**` at the start of a paragraph: the title ('' when
-- none) and the paragraph's text after the marker; nil when there is no marker.
local function bold_marker(b)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or not b.content[1] or b.content[1].t ~= 'Strong' then
    return nil
  end
  local word = pandoc.utils.stringify(b.content[1]):lower()
  local w = word:match('^%s*(%a+)%s+%d')
  if w ~= 'question' and w ~= 'problem' and w ~= 'exercise' then return nil end
  local text = sheet.text_of(b)
  local rest = text:match('^%*%*[^*]+%*%*%s*[%.:]?[ \t]*(.*)$')
    or text:match('^__[^_]+__%s*[%.:]?[ \t]*(.*)$') or ''
  return '', trim(rest)
end

local function new_question(list, title)
  local q = { title = title or '', main = {}, parts = {}, closed = false }
  table.insert(list, q)
  return q
end

local function add_text(q, text)
  if trim(text) == '' then return end
  if #q.parts > 0 then
    local p = q.parts[#q.parts]
    p.texts[#p.texts + 1] = text
  else
    q.main[#q.main + 1] = text
  end
end

-- A bullet list that ends a part, each item one short paragraph, is a multiple-choice
-- part's options (LaTeX: an itemize after the part's question).
local function trailing_options(item)
  local last = item[#item]
  if #item < 2 or not last or last.t ~= 'BulletList' then return nil end
  local options = {}
  for _, choice in ipairs(last.content) do
    if #choice ~= 1 or (choice[1].t ~= 'Plain' and choice[1].t ~= 'Para') then return nil end
    options[#options + 1] = trim(sheet.text_of(choice[1]))
  end
  return options
end

local function parts_from(q, list)
  for _, item in ipairs(list.content) do
    local options = trailing_options(item)
    if options then
      local body = {}
      for k = 1, #item - 1 do body[k] = item[k] end
      table.insert(q.parts, { texts = { sheet.text(body) }, options = options })
    else
      table.insert(q.parts, { texts = { sheet.text(item) } })
    end
  end
end

-- A list item as a whole question: text before the first nested list is the main text.
local function question_from_item(qs, item)
  local q = new_question(qs, '')
  local seen_list = false
  local before = {}
  for _, b in ipairs(item) do
    if b.t == 'OrderedList' and not seen_list then
      if #before > 0 then q.main[#q.main + 1] = sheet.text(before) end
      before = nil
      parts_from(q, b)
      seen_list = true
    elseif seen_list then
      add_text(q, sheet.text_of(b))
    else
      before[#before + 1] = b
    end
  end
  if before and #before > 0 then q.main[#q.main + 1] = sheet.text(before) end
  q.closed = true
  return q
end

local function uses_markers(blocks)
  for _, b in ipairs(blocks) do
    if (b.t == 'Header' and sheet.question_heading(b)) or bold_marker(b) then return true end
  end
  return false
end

local function parse_questions(blocks)
  local qs, cur = {}, nil
  local explicit = uses_markers(blocks)
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      local title = sheet.question_heading(b)
      cur = title and new_question(qs, title) or nil
    elseif b.t == 'HorizontalRule' then
      -- a separator
    elseif (b.t == 'Para' or b.t == 'Plain') and bold_marker(b) then
      local title, rest = bold_marker(b)
      cur = new_question(qs, title)
      if rest ~= '' then cur.main[1] = rest end
    elseif b.t == 'OrderedList' then
      if cur and (#cur.parts == 0 or explicit) and not (cur.closed and not explicit) then
        parts_from(cur, b)
        cur.closed = true
      else
        for _, item in ipairs(b.content) do cur = question_from_item(qs, item) end
      end
    else
      if not cur or (not explicit and cur.closed) then
        if explicit and not cur then
          -- text outside any marked question is chrome
        else
          cur = new_question(qs, '')
          add_text(cur, sheet.text_of(b))
        end
      else
        add_text(cur, sheet.text_of(b))
      end
    end
  end
  return qs
end

local ROMAN = { i = 1, ii = 2, iii = 3, iv = 4, v = 5, vi = 6, vii = 7, viii = 8, ix = 9, x = 10 }

local function part_index(label)
  if #label == 1 then return label:byte() - 96 end
  return ROMAN[label] or 1
end

-- `1(a) text`, `1 (a) text`, `1a) text`, `2. text`, `(c) text`: number, label, rest.
local function numbered(text)
  local n, l, rest = text:match('^(%d+)%s*%((%l+)%)%s*(.*)$')
  if n then return tonumber(n), l, rest end
  n, l, rest = text:match('^(%d+)(%l)%)%s*(.*)$')
  if n then return tonumber(n), l, rest end
  n, rest = text:match('^(%d+)[%.%)]?%s+(.*)$')
  if n then return tonumber(n), nil, rest end
  l, rest = text:match('^%((%l+)%)%s*(.*)$')
  if l then return nil, l, rest end
  return nil
end

local function parse_numbered_solutions(blocks)
  local qs, target, last_n = {}, nil, nil
  for _, b in ipairs(blocks) do
    local text = sheet.text_of(b)
    local n, l, rest = nil, nil, nil
    if b.t == 'Para' or b.t == 'Plain' then n, l, rest = numbered(text) end
    if (n or l) and (n or last_n) then
      n = n or last_n
      last_n = n
      for i = #qs + 1, n do qs[i] = { title = '', main = {}, parts = {} } end
      local q = qs[n]
      local j = l and part_index(l) or 1
      for i = #q.parts + 1, j do q.parts[i] = { texts = {} } end
      target = q.parts[j]
      if trim(rest) ~= '' then target.texts[#target.texts + 1] = trim(rest) end
    elseif target and b.t ~= 'Header' and b.t ~= 'HorizontalRule' and trim(text) ~= '' then
      target.texts[#target.texts + 1] = text
    end
  end
  return qs
end

local function has_numbered(blocks)
  for _, b in ipairs(blocks) do
    if (b.t == 'Para' or b.t == 'Plain') then
      local n = numbered(sheet.text_of(b))
      if n then return true end
    end
  end
  return false
end

-- Solutions as {title, main, parts = {{texts}}}, every text a worked solution.
local function parse_solutions(blocks)
  if has_numbered(blocks) then return parse_numbered_solutions(blocks) end
  local qs = parse_questions(blocks)
  for _, q in ipairs(qs) do
    if #q.parts == 0 and #q.main > 0 then
      q.parts = { { texts = q.main } }
    end
    q.main = {}
  end
  return qs
end

local function joined(texts)
  local out = {}
  for _, t in ipairs(texts or {}) do
    if trim(t) ~= '' then out[#out + 1] = t end
  end
  return table.concat(out, '\n\n')
end

local function split_at_solutions(blocks)
  local before, after, found = {}, {}, false
  for _, b in ipairs(blocks) do
    if not found and is_solutions_heading(b) then
      found = true
    elseif found then
      after[#after + 1] = b
    else
      before[#before + 1] = b
    end
  end
  return before, (found and after or nil)
end

function Pandoc(doc)
  local role = sheet.role(doc)
  local before, after = split_at_solutions(doc.blocks)
  local out = {}
  if role == 'solutions' then
    for _, q in ipairs(parse_solutions(after or before)) do
      local parts = {}
      for _, p in ipairs(q.parts) do parts[#parts + 1] = { worked_solution = joined(p.texts) } end
      out[#out + 1] = { title = q.title, main_text = '', parts = parts }
    end
    return sheet.emit(out)
  end
  local sols = after and parse_solutions(after) or {}
  for i, q in ipairs(parse_questions(before)) do
    local parts = {}
    for j, p in ipairs(q.parts) do parts[j] = { content = joined(p.texts), options = p.options } end
    local s = sols[i]
    if s then
      for j, sp in ipairs(s.parts) do
        local ws = joined(sp.texts)
        if ws ~= '' then
          for k = #parts + 1, j do parts[k] = { content = '' } end
          parts[j].worked_solution = ws
        end
      end
    end
    out[#out + 1] = { title = q.title, main_text = joined(q.main), parts = parts }
  end
  return sheet.emit(out)
end
