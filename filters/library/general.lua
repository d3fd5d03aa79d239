--[[
general.lua: the general route B reader of the library (sheet2lambda), driven by the
markers it finds in the markdown (docs: the contract between conversion and the reader).

Questions open at
  * a heading naming a question: `Question 3`, `Problem 2.`, `Exercise 4 (5 pts), Title`,
    `Q1`, `Aufgabe 2`, `3) Title`, `1.1 Title` (title: the words after the number and
    any points); in the solutions role also `Solution N` / `Answer N`;
  * a paragraph opening with a bold marker: `**Question 3**`, `**Q1.**`,
    `**Problem 2.** (Title)`;
  * with neither in the document, a top-level ordered list item (one question each;
    a heading that is no marker before such a list is the group title of its
    questions), or — when every numbered list restarts at 1 after a paragraph — a
    paragraph followed by a numbered list of its parts;
  * in a solutions text, a paragraph opening `1(a)`, `2b)`: question 1 part a;
  * with no marker at all but headings that ask (text ending in `?`, one level, a
    LaTeX `\paragraph*{What is ...?}`) under two or more headings of a higher level: each
    section heading opens a question, each asking heading a part whose content starts
    with its question; a section that asks nothing is chrome.
A heading that is no marker ends the question before it (a title, a group heading, a
closing tip) unless it is deeper than the question's own heading; text outside every
question (title block, due date, instructions, points tables) is chrome.

Parts, inside a question: nested or following ordered lists (any numbering), paragraphs
and hard-break lines opening with `(a)`, `a)`, `a.`, `(iv)` (also set in bold, `**(a)**`),
and bullets like
`* 1a (2pt) text`. The first kind found is the part kind; lists and labels of another
kind (`(i)`, `(ii)` under `(c)`) are sub-parts and stay inside the part before them.
Text between two parts is the lead-in of the next part (text that carries on the part
before it — starting in lower case, code, display maths — stays with that part); text
after the last part ends that part. Task lists (`- [ ] option`, `- [x] option`) are
the options of the part they end, the `[x]` ones its correct options.

Solutions (never left in a student-visible field): a fenced Div of class `solution` or
`answer`, an HTML `<div class="answer">` … `</div>` (HTML tags and `<br>` cut from its
lines, each line then a paragraph), a paragraph opening `Answer:` / `Final answer:`
(the final answer) or `Solution:` go to the part they follow (or the question's only
part); a section headed `Solutions` / `Answers` at the end of the questions document is
read as a solutions document and matched by number. In the solutions role every part's
text is its worked solution (`Answer:` lines its final answer); a block quote at the top
of a solution, or everything before a `Solution` sub-heading, restates the question and
is dropped, and later block quotes (restated parts) open the parts.

With the global SHEET2LAMBDA_NUMBERING set to true (route B prepends it), the filter
emits the numbering instead of the fields: each question's title is its number as
printed ("" when none) and each part's content its label ("a", "2", "iv"; "" when none).

Every field is quoted from the markdown (sheet.text), cut only at line boundaries.
]]

local NUMBERING = SHEET2LAMBDA_NUMBERING == true
local ROLE = 'questions'

local trim = sheet.trim

local QUESTION_WORDS = {
  question = true, problem = true, exercise = true, task = true, aufgabe = true,
  exercice = true, q = true, ex = true, prob = true,
}
local SOLUTION_WORDS = { solution = true, answer = true, sol = true, ans = true }

local function is_question_word(w)
  w = w:lower()
  return QUESTION_WORDS[w] or (ROLE == 'solutions' and SOLUTION_WORDS[w]) or false
end

-- points / marks after a marker: `(6 pts)`, `(10 pt)`, `[4 marks]`, `(10 points)`
local function strip_points(s)
  s = trim(s)
  local changed = true
  while changed do
    changed = false
    for _, pat in ipairs({
      '^%(%s*%d+%s*[%a%.]*%s*%)%s*', '^%[%s*%d+%s*[%a%.]*%s*%]%s*',
    }) do
      local a, b = s:find(pat)
      if a then
        local inner = s:sub(a, b):lower()
        if inner:match('pt') or inner:match('point') or inner:match('mark') or inner:match('^[%(%[]%s*%d+%s*[%)%]]') then
          s = trim(s:sub(b + 1)); changed = true
        end
      end
    end
  end
  return s
end

local function clean_title(rest)
  rest = trim(rest):gsub('^[%.:%)]%s*', '')
  rest = strip_points(rest)
  rest = trim(rest:gsub('^[,:;%-]%s*', ''):gsub('^\u{2014}%s*', ''):gsub('^\u{2013}%s*', ''))
  rest = rest:gsub('[%.:]$', '')
  return trim(rest)
end

-- A marker text (a heading's text, a bold run): number, title; nil when none.
local function marker_of(text)
  text = trim(text)
  local word, num, rest = text:match('^(%a+)%.?%s*(%d+[%.%d]*%a?)(.*)$')
  if word and is_question_word(word) and (rest == '' or rest:match('^[%s%.:%),;]')) then
    return (num:gsub('%.$', '')), clean_title(rest)
  end
  num, rest = text:match('^(%d+[%.%d]*)[%.%):]?%s+(.*)$')
  if num and not rest:match('^%d') then return (num:gsub('%.$', '')), clean_title(rest) end
  num = text:match('^(%d+[%.%d]*)[%.%):]?$')
  if num then return (num:gsub('%.$', '')), '' end
  return nil
end

local function heading_text(h)
  local text = sheet.lines(sheet.text_of(h))[1] or ''
  text = text:gsub('^%s*#+%s*', ''):gsub('%s*#+%s*$', ''):gsub('%s*{[^}]*}%s*$', '')
  return trim(text)
end

local function heading_marker(h)
  return marker_of(heading_text(h))
end

local function is_solutions_heading(h)
  local t = heading_text(h):lower()
  return (t:match('^solutions?%f[%W]') or t:match('^answers?%f[%W]') or t:match('^worked solutions?%f[%W]')) ~= nil
end

-- `**Question 3** rest`: number, title, rest of the paragraph's text; nil when none.
local function bold_marker(b)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or not b.content[1] or b.content[1].t ~= 'Strong' then
    return nil
  end
  local num, title = marker_of(pandoc.utils.stringify(b.content[1]))
  if not num then return nil end
  local text = sheet.text_of(b)
  local rest = text:match('^%*%*.-%*%*(.*)$') or text:match('^__.-__(.*)$') or ''
  rest = rest:gsub('^[ \t]*[%.:]?[ \t]*', '')
  if title == '' then
    local paren, after = rest:match('^%(([^%)]*)%)[ \t]*(.*)$')
    if paren and not strip_points('(' .. paren .. ')'):match('^$') then
      title, rest = trim(paren), after
    end
  end
  rest = strip_points(rest)
  return num, title, rest
end

-- `1(a) text`, `1 (b) text`, `2b) text`: a solution paragraph's number, label, rest.
local function numbered_label(text)
  local n, l, rest = text:match('^(%d+)%s*%((%l+)%)%s*(.*)$')
  if n then return n, l, rest end
  n, l, rest = text:match('^(%d+)(%l)%)%s*(.*)$')
  if n then return n, l, rest end
  return nil
end

-- A part label at the start of a line: label, rest, form ('alpha', 'roman', 'digit').
local ROMAN_SET = { i = 1, ii = 2, iii = 3, iv = 4, v = 5, vi = 6, vii = 7, viii = 8, ix = 9, x = 10 }

local function line_label(line)
  local s = line:gsub('^%s+', '')
  -- `**(a)**`, `__b)__`: a label set in bold (a class's `\part` macro, a house style),
  -- followed by a space or a no-break space
  local inner, after = s:match('^%*%*([^%*]+)%*%*(.*)$')
  if not inner then inner, after = s:match('^__([^_]+)__(.*)$') end
  if inner and (inner:match('^%(%w+%)$') or inner:match('^%l+[%.%)]$')) then
    after = after:gsub('^\u{A0}', ''):gsub('^%s+', '')
    s = inner .. ' ' .. after
  end
  -- `\(a\)`: the escaped parentheses pandoc writes for a typed `(a)` (Word)
  local el, erest = s:match('^\\%((%w+)\\%)%s*(.*)$')
  if el then s = '(' .. el .. ') ' .. erest end
  local l, rest = s:match('^%((%l+)%)%s*(.*)$')
  if not l then l, rest = s:match('^(%l+)%)%s*(.*)$') end
  if not l then
    l, rest = s:match('^(%l)%.%s+(.*)$')
    if not l then l, rest = s:match('^([ivx]+)%.%s+(.*)$') end
  end
  if not l then
    local n
    n, rest = s:match('^%((%d+)%)%s*(.*)$')
    if n then return n, rest, 'digit' end
    return nil
  end
  if #l == 1 and not ROMAN_SET[l] then return l, rest, 'alpha' end
  if ROMAN_SET[l] then
    if #l == 1 then return l, rest, 'alpha_or_roman' end
    return l, rest, 'roman'
  end
  return nil
end

-- `1a (2pt) text` at the start of a bullet item: number, letter, rest.
local function bullet_label(text)
  local n, l, rest = text:match('^(%d+)(%l)[%.%):]?%s+(.*)$')
  if n then return n, l, strip_points(rest) end
  n, l = text:match('^(%d+)(%l)[%.%):]?$')
  if n then return n, l, '' end
  return nil
end

local ALPHA = 'abcdefghijklmnopqrstuvwxyz'
local ROMANS = { 'i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix', 'x', 'xi', 'xii' }

local function list_label(style, n)
  if style == 'LowerAlpha' or style == 'UpperAlpha' then
    local l = ALPHA:sub(n, n)
    if ROMAN_SET[l] then return l, 'alpha_or_roman' end
    return l, 'alpha'
  elseif style == 'LowerRoman' or style == 'UpperRoman' then
    return ROMANS[n] or tostring(n), 'roman'
  end
  return tostring(n), 'digit'
end

-- ---------------------------------------------------------------------------
-- Text helpers

local function starts_continuation(text)
  local t = trim(text)
  return t:match('^%l') ~= nil or t:match('^%$%$') ~= nil or t:match('^```') ~= nil
    or t:match('^~~~') ~= nil or t:match('^[%.,;:]') ~= nil
end

-- The answer of an `Answer:` paragraph (nil when the text does not open so).
local function answer_line(text)
  local t = trim(text)
  local rest = t:match('^%**[Ff]inal [Aa]nswers?%**%s*:%**%s*(.*)$')
    or t:match('^%**[Aa]nswers?%**%s*:%**%s*(.*)$') or t:match('^%**[Aa]ns%.?%**%s*:%**%s*(.*)$')
  return rest
end

local function solution_line(text)
  local t = trim(text)
  return t:match('^%**[Ss]olution%**%s*[:%.]%**%s*(.*)$') or t:match('^%**[Ww]orked [Ss]olutions?%**%s*:%**%s*(.*)$')
end

-- Lines of HTML-wrapped text: tags at the ends of each line cut, empty lines dropped,
-- each line a paragraph (a `<br>` line break becomes a paragraph break).
local function html_lines(text)
  local out = {}
  local in_math = false
  for _, line in ipairs(sheet.lines(text)) do
    local l = line
    if not in_math then
      local prev
      repeat
        prev = l
        l = l:gsub('^%s*<[^>]*>', ''):gsub('<[^>]*>%s*$', '')
      until l == prev
    end
    local _, n = line:gsub('%$%$', '')
    if trim(l) ~= '' then
      if in_math and #out > 0 then out[#out] = out[#out] .. '\n' .. l else out[#out + 1] = trim(l) end
    end
    if n % 2 == 1 then in_math = not in_math end
  end
  return table.concat(out, '\n\n')
end

-- ---------------------------------------------------------------------------
-- Units: what a question's blocks say, in order.
--   {k='open', label=, form=, text=, whole=}     a part opens (whole: text with its label)
--   {k='text', text=}                             text
--   {k='options', options=, correct=}             a task list
--   {k='sol', answer=, ws=}                       a solution
--   {k='quote', text=, label=}                    a block quote (solutions: a restatement)
--   {k='solstart'}                                a `Solution` sub-heading (solutions role)

-- A task-list item's box: ' ' or 'x' (pandoc's task_lists gives ☐ / ☒; commonmark_x
-- as read here leaves `[ ]` / `[x]` as text).
local function task_box(item)
  local first = item[1]
  if not first or (first.t ~= 'Plain' and first.t ~= 'Para') or not first.content[1] then return nil end
  local s = first.content[1]
  if s.t == 'Str' and s.text == '\u{2610}' then return ' ' end
  if s.t == 'Str' and s.text == '\u{2612}' then return 'x' end
  local box = pandoc.utils.stringify(first):match('^%[([ xX]?)%]%s')
  if box then return box == '' and ' ' or box:lower() end
  return nil
end

local function is_task_list(b)
  if b.t ~= 'BulletList' or #b.content == 0 then return false end
  for _, item in ipairs(b.content) do
    if not task_box(item) then return false end
  end
  return true
end

-- A bullet list ending a part, each item one short paragraph: the part's choices (an
-- itemize after a LaTeX part's question); no option is marked correct.
local function plain_choices(b)
  if b.t ~= 'BulletList' or #b.content < 2 then return false end
  for _, item in ipairs(b.content) do
    if #item ~= 1 or (item[1].t ~= 'Plain' and item[1].t ~= 'Para') then return false end
  end
  return true
end

local function options_unit(b)
  local options, correct = {}, {}
  for i, item in ipairs(b.content) do
    local text = trim(sheet.text(item))
    text = text:gsub('^%[[ xX]?%]%s*', ''):gsub('^[\u{2610}\u{2612}]%s*', '')
    options[#options + 1] = text
    if task_box(item) == 'x' then correct[#correct + 1] = i - 1 end
  end
  return { k = 'options', options = options, correct = correct }
end

-- Units from a text with part labels at line starts (outside $$ maths).
local function label_units(text, units)
  local cur, before, in_math = nil, {}, false
  local pieces = {}
  for _, line in ipairs(sheet.lines(text)) do
    local label, rest, form = nil, nil, nil
    if not in_math then label, rest, form = line_label(line) end
    if label then
      cur = { label = label, form = form, lines = { rest }, whole = { trim(line) } }
      pieces[#pieces + 1] = cur
    elseif cur then
      cur.lines[#cur.lines + 1] = line
      cur.whole[#cur.whole + 1] = line
    else
      before[#before + 1] = line
    end
    local _, n = line:gsub('%$%$', '')
    if n % 2 == 1 then in_math = not in_math end
  end
  -- a line's trailing `\` is markdown's hard break, cut; inside `$$` maths a row's
  -- `\\` (and anything else) is the sheet's maths, kept as written
  local function clean(lines)
    local math_open = false
    for i, l in ipairs(lines) do
      l = l:gsub('%s+$', '')
      local _, n = l:gsub('%$%$', '')
      if n % 2 == 1 then math_open = not math_open end
      if not math_open and not l:match('\\\\$') then l = l:gsub('\\$', '') end
      lines[i] = l
    end
    return trim(table.concat(lines, '\n'))
  end
  -- labels after a line ending in a colon enumerate inside the text (conditions,
  -- cases), they open no parts
  local lead = trim(((before[#before] or ''):gsub('<br%s*/?>', '')))
  if #pieces > 0 and lead:match(':$') then
    units[#units + 1] = { k = 'text', text = trim(text) }
    return
  end
  local b = clean(before)
  if b ~= '' then units[#units + 1] = { k = 'text', text = b } end
  for _, p in ipairs(pieces) do
    units[#units + 1] = { k = 'open', label = p.label, form = p.form, text = clean(p.lines), whole = clean(p.whole) }
  end
end

local function text_unit(text, units)
  if trim(text) == '' then return end
  local a = answer_line(text)
  if a then units[#units + 1] = { k = 'sol', answer = trim(a), ws = '' }; return end
  local s = solution_line(text)
  if s then units[#units + 1] = { k = 'sol', answer = '', ws = trim(s) }; return end
  units[#units + 1] = { k = 'text', text = text }
end

local function is_answer_class(classes)
  for _, c in ipairs(classes) do
    if c == 'solution' or c == 'answer' or c == 'solutions' or c == 'answers' or c == 'proof' then return true end
  end
  return false
end

-- A solution's text split into final answer (`Answer:` lines) and worked solution.
local function split_solution(text)
  local answer, ws = {}, {}
  local paras = {}
  local buf = {}
  for _, line in ipairs(sheet.lines(text)) do
    if trim(line) == '' then
      if #buf > 0 then paras[#paras + 1] = table.concat(buf, '\n'); buf = {} end
    else
      buf[#buf + 1] = line
    end
  end
  if #buf > 0 then paras[#paras + 1] = table.concat(buf, '\n') end
  for _, p in ipairs(paras) do
    local a = answer_line(p)
    if a then
      if trim(a) ~= '' then answer[#answer + 1] = trim(a) end
    else
      ws[#ws + 1] = p
    end
  end
  return table.concat(answer, '\n\n'), table.concat(ws, '\n\n')
end

local function sol_unit(text)
  local a, w = split_solution(text)
  return { k = 'sol', answer = a, ws = w }
end

local html_capture = nil  -- an open <div class="answer">: list of texts

local function html_div_open(text)
  local tag = text:match('^%s*(<div[^>]*>)')
  if not tag then return nil end
  local class = tag:match('class%s*=%s*"([^"]*)"') or tag:match("class%s*=%s*'([^']*)'") or ''
  for c in class:gmatch('%S+') do
    if c == 'answer' or c == 'solution' then return 'answer' end
  end
  return 'other'
end

-- Units of one block (and its children where they carry structure).
local function block_units(b, units)
  if html_capture then
    local text = sheet.text_of(b)
    if b.t == 'RawBlock' and text:find('</div>') then
      local before = text:match('^(.-)</div>') or ''
      if trim(before) ~= '' then html_capture[#html_capture + 1] = html_lines(before) end
      local parts = {}
      for _, t in ipairs(html_capture) do if trim(t) ~= '' then parts[#parts + 1] = t end end
      units[#units + 1] = sol_unit(table.concat(parts, '\n\n'))
      html_capture = nil
    else
      -- markdown inside the div (after a blank line) keeps its `<br>` and other tags
      -- at line ends as raw inlines: cut them as in the raw lines
      html_capture[#html_capture + 1] = html_lines(text)
    end
    return
  end
  if b.t == 'Header' then
    local t = heading_text(b):lower()
    if ROLE == 'solutions' and (t:match('^solutions?%f[%W]') or t:match('^answers?%f[%W]') or t:match('^proof%f[%W]')) then
      units[#units + 1] = { k = 'solstart' }
    else
      units[#units + 1] = { k = 'text', text = sheet.text_of(b) }
    end
  elseif b.t == 'Para' or b.t == 'Plain' then
    label_units(sheet.text_of(b), units)
    -- a paragraph without labels: check for an answer line
    local last = units[#units]
    if last and last.k == 'text' then
      units[#units] = nil
      text_unit(last.text, units)
    end
  elseif b.t == 'OrderedList' then
    local start = b.listAttributes.start or 1
    local list = { whole = sheet.text_of(b) }
    local whole_lines, at = sheet.lines(list.whole), 1
    local records = {}
    for i, item in ipairs(b.content) do
      local rec = { start = nil }
      records[i] = rec
      local label, form = list_label(b.listAttributes.style, start + i - 1)
      -- the marker as written: a list can run on with labels of another kind, as
      -- `(i)` after `(c)`
      local first_line = item[1] and trim(sheet.lines(sheet.text_of(item[1]))[1] or '') or ''
      if first_line ~= '' then
        for k = at, #whole_lines do
          local line = whole_lines[k]
          local a = line:find(first_line, 1, true)
          if a then
            local marker = trim(line:sub(1, a - 1))
            local inner = marker:match('^%(?(%l+)[%.%)]$')
            if inner and ROMAN_SET[inner] and inner ~= label then
              label, form = inner, (#inner == 1 and 'alpha_or_roman' or 'roman')
            elseif inner and #inner == 1 and inner ~= label then
              label, form = inner, 'alpha'
            end
            rec.start = k
            at = k + 1
            break
          end
        end
      end
      local sub = {}
      -- hard-break lines with labels inside the item's first paragraph
      local first = item[1]
      local rest_from = 1
      if first and (first.t == 'Para' or first.t == 'Plain') then
        label_units(sheet.text_of(first), sub)
        rest_from = 2
      end
      local body = {}
      for k = rest_from, #item do body[#body + 1] = item[k] end
      local head = sub[1]
      local opener = { k = 'open', label = label, form = form, text = head and head.k == 'text' and head.text or '' }
      local first_unit = #units + 1
      units[#units + 1] = opener
      local from = (head and head.k == 'text') and 2 or 1
      for k = from, #sub do units[#units + 1] = sub[k] end
      -- the rest of the item: nested lists, further paragraphs (inside the part)
      local tail = {}
      local trailing_options = nil
      for k, blk in ipairs(body) do
        if k == #body and (is_task_list(blk) or plain_choices(blk)) then trailing_options = options_unit(blk)
        elseif blk.t == 'Div' and is_answer_class(blk.classes) then
          if #tail > 0 then units[#units + 1] = { k = 'inner', text = sheet.text(tail) }; tail = {} end
          units[#units + 1] = sol_unit(sheet.text(blk.content))
        else tail[#tail + 1] = blk end
      end
      if #tail > 0 then units[#units + 1] = { k = 'inner', text = sheet.text(tail) } end
      if trailing_options then units[#units + 1] = trailing_options end
      for k = first_unit, #units do units[k].item = rec end
    end
    -- each item's source lines, marker included
    for i, rec in ipairs(records) do
      local from = rec.start or 1
      local to = #whole_lines
      for j = i + 1, #records do
        if records[j].start then to = records[j].start - 1; break end
      end
      if rec.start then
        rec.whole = trim(table.concat(whole_lines, '\n', from, math.max(from, to)))
      else
        rec.whole = list.whole
      end
    end
  elseif b.t == 'BulletList' then
    if is_task_list(b) then
      units[#units + 1] = options_unit(b)
      return
    end
    local labelled = true
    for _, item in ipairs(b.content) do
      if not (item[1] and bullet_label(trim(sheet.text_of(item[1])))) then labelled = false; break end
    end
    if labelled then
      for _, item in ipairs(b.content) do
        local n, l, rest = bullet_label(trim(sheet.text_of(item[1])))
        local texts = { rest }
        for k = 2, #item do texts[#texts + 1] = sheet.text_of(item[k]) end
        local joined = {}
        for _, t in ipairs(texts) do if trim(t) ~= '' then joined[#joined + 1] = t end end
        units[#units + 1] = { k = 'open', label = l, form = 'bullet', text = table.concat(joined, '\n\n'), whole = sheet.text(item) }
      end
    else
      units[#units + 1] = { k = 'text', text = sheet.text_of(b) }
    end
  elseif b.t == 'Div' then
    if is_answer_class(b.classes) then
      units[#units + 1] = sol_unit(sheet.text(b.content))
    else
      for _, c in ipairs(b.content) do block_units(c, units) end
    end
  elseif b.t == 'RawBlock' then
    local text = sheet.text_of(b)
    local kind = html_div_open(text)
    if kind == 'answer' then
      local after = text:gsub('^%s*<div[^>]*>', '', 1)
      local inside, closed = after, false
      local a, _ = after:find('</div>')
      if a then inside, closed = after:sub(1, a - 1), true end
      html_capture = { html_lines(inside) }
      if closed then
        units[#units + 1] = sol_unit(html_capture[1])
        html_capture = nil
      end
    end
    -- any other raw block (page breaks, scripts, blank answer space) is chrome
  elseif b.t == 'BlockQuote' then
    local text = sheet.text(b.content)
    local label = text:match('^`(%w+)`[%.%)]') or text:match('^(%d+)[%.%)]%s') or text:match('^%((%l+)%)')
    units[#units + 1] = { k = 'quote', text = text, label = label }
  elseif b.t == 'HorizontalRule' then
    -- a separator
  else
    units[#units + 1] = { k = 'text', text = sheet.text_of(b) }
  end
end

-- ---------------------------------------------------------------------------
-- A question's units → main text and parts.

local FORM_RANK = { bullet = 1, alpha = 2, alpha_or_roman = 2, digit = 3, roman = 4, quote = 5 }

local function part_form(units)
  local best = nil
  for _, u in ipairs(units) do
    if u.k == 'open' then
      local f = u.form == 'alpha_or_roman' and 'alpha' or u.form
      if not best or FORM_RANK[f] < FORM_RANK[best] then best = f end
    end
  end
  return best
end

local function new_part(label)
  return { label = label or '', texts = {}, options = {}, correct = {}, answer = {}, ws = {} }
end

local function assemble(q)
  local units = q.units
  -- solutions: drop the restated question
  if ROLE == 'solutions' then
    local cut = nil
    for i, u in ipairs(units) do if u.k == 'solstart' then cut = i end end
    if cut then
      local rest = {}
      for i = cut + 1, #units do rest[#rest + 1] = units[i] end
      units = rest
    end
    -- a leading block quote restates the question; later ones open the parts
    local out, seen_other = {}, false
    local has_open = false
    for _, u in ipairs(units) do if u.k == 'open' then has_open = true end end
    for i, u in ipairs(units) do
      if u.k == 'quote' then
        if i == 1 and not seen_other then
          -- the restated question: dropped
        elseif not has_open then
          out[#out + 1] = { k = 'open', label = u.label or '', form = 'quote', text = '' }
        end
      elseif u.k ~= 'solstart' then
        seen_other = true
        out[#out + 1] = u
      end
    end
    units = out
  end
  local form = part_form(units)
  local main, parts, pending = {}, {}, {}
  local cur = nil
  local last_alpha = nil
  local function add(list, t) if trim(t or '') ~= '' then list[#list + 1] = t end end
  local function flush_pending(to)
    for _, t in ipairs(pending) do add(to, t) end
    pending = {}
  end
  for _, u in ipairs(units) do
    local f = u.form
    if f == 'alpha_or_roman' then
      -- `(i)` after `(h)` is a letter; otherwise a roman sub-part under letters
      local before = ALPHA:sub(ALPHA:find(u.label, 1, true) - 1, ALPHA:find(u.label, 1, true) - 1)
      if form == 'alpha' and cur and last_alpha ~= before then f = 'roman' else f = 'alpha' end
    end
    if u.k == 'open' and f == form then
      cur = new_part(u.label)
      parts[#parts + 1] = cur
      if f == 'alpha' then last_alpha = u.label end
      flush_pending(cur.texts)
      add(cur.texts, u.text)
    elseif u.item and u.item.done then
      -- the rest of a list item already taken whole
    elseif u.k == 'open' or u.k == 'inner' then
      -- a sub-part or the rest of a list item: inside the part before it (a list
      -- item that is no part is taken whole, with its marker)
      local text = u.whole or u.text
      if u.item and u.k == 'open' then
        text = u.item.whole
        u.item.done = true
      end
      if cur then flush_pending(cur.texts); add(cur.texts, text) else add(main, text) end
    elseif u.k == 'text' or u.k == 'quote' then
      if not cur then add(main, u.text)
      elseif ROLE == 'solutions' or (#pending == 0 and starts_continuation(u.text)) then
        -- a solution's text runs on to the next label; a sheet's text carries on
        -- the part before it only when it reads so
        add(cur.texts, u.text)
      else pending[#pending + 1] = u.text end
    elseif u.k == 'options' then
      if not cur then
        cur = new_part('')
        parts[#parts + 1] = cur
      else
        flush_pending(cur.texts)
      end
      local base = #cur.options
      for _, o in ipairs(u.options) do cur.options[#cur.options + 1] = o end
      for _, c in ipairs(u.correct) do cur.correct[#cur.correct + 1] = base + c end
    elseif u.k == 'sol' then
      if not cur then
        cur = new_part('')
        parts[#parts + 1] = cur
        cur.solved_only = true
      end
      if #pending > 0 then
        if ROLE == 'solutions' then flush_pending(cur.ws) else flush_pending(cur.texts) end
      end
      add(cur.answer, u.answer)
      add(cur.ws, u.ws)
    end
  end
  if #pending > 0 then
    if cur then flush_pending(cur.texts) else flush_pending(main) end
  end
  -- a multiple-choice part's final answer: the options the source marks correct
  for _, p in ipairs(parts) do
    if #p.answer == 0 and #p.correct > 0 then
      for _, c in ipairs(p.correct) do p.answer[#p.answer + 1] = p.options[c + 1] end
    end
  end
  q.main_texts, q.parts = main, parts
  if ROLE == 'solutions' then
    -- every text of a solution is worked solution; text before any part is the
    -- question's only part
    if #parts == 0 and #main > 0 then
      local p = new_part('')
      p.texts = main
      parts[1] = p
      q.parts = parts
    end
    for _, p in ipairs(q.parts) do
      local ws = {}
      for _, t in ipairs(p.texts) do
        local a, w = split_solution(t)
        add(p.answer, a)
        add(ws, w)
      end
      for _, t in ipairs(p.ws) do add(ws, t) end
      p.ws, p.texts = ws, {}
    end
    q.main_texts = {}
  end
  return q
end

-- ---------------------------------------------------------------------------
-- Segmenting the document into questions.

local function new_question(list, number, title, level)
  local q = { number = number or '', title = title or '', level = level or 99, units = {} }
  list[#list + 1] = q
  return q
end

local function has_markers(blocks)
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and heading_marker(b) then return true end
    if bold_marker(b) then return true end
  end
  return false
end

local function numbered_solutions(blocks)
  for _, b in ipairs(blocks) do
    if (b.t == 'Para' or b.t == 'Plain') and numbered_label(sheet.text_of(b)) then return true end
  end
  return false
end

-- Paragraph layout: numbered lists restart at 1, each after a paragraph.
local function paragraph_layout(blocks)
  local restarts = 0
  for i, b in ipairs(blocks) do
    if b.t == 'OrderedList' and b.listAttributes.style ~= 'LowerAlpha' and b.listAttributes.style ~= 'LowerRoman'
      and (b.listAttributes.start or 1) == 1 and i > 1 and (blocks[i - 1].t == 'Para' or blocks[i - 1].t == 'Plain') then
      restarts = restarts + 1
    end
  end
  return restarts >= 2
end

local function is_question_list(b)
  local s = b.listAttributes.style
  return s ~= 'LowerAlpha' and s ~= 'UpperAlpha' and s ~= 'LowerRoman' and s ~= 'UpperRoman'
end

local function segment(blocks)
  local qs, cur = {}, nil
  local answers = nil
  html_capture = nil
  local markers = has_markers(blocks)
  local numbered = ROLE == 'solutions' and numbered_solutions(blocks)
  local paragraphs = not markers and not numbered and paragraph_layout(blocks)
  local group = ''
  for _, b in ipairs(blocks) do
    if answers then
      answers[#answers + 1] = b
    elseif html_capture then
      if cur then block_units(b, cur.units) else block_units(b, {}) end
    elseif b.t == 'Header' then
      local num, title = heading_marker(b)
      if num and markers then
        cur = new_question(qs, num, title, b.level)
      elseif ROLE == 'questions' and is_solutions_heading(b) and (not cur or b.level <= cur.level) then
        answers = {}
      elseif cur and b.level > cur.level then
        block_units(b, cur.units)
      else
        cur = nil
        group = heading_text(b)
      end
    elseif markers and bold_marker(b) then
      local num, title, rest = bold_marker(b)
      cur = new_question(qs, num, title, 99)
      if trim(rest) ~= '' then
        label_units(rest, cur.units)
        local last = cur.units[#cur.units]
        if last and last.k == 'text' then cur.units[#cur.units] = nil; text_unit(last.text, cur.units) end
      end
    elseif numbered and (b.t == 'Para' or b.t == 'Plain') and numbered_label(sheet.text_of(b)) then
      local n, l, rest = numbered_label(sheet.text_of(b))
      if not cur or cur.number ~= n then cur = new_question(qs, n, '', 99) end
      cur.units[#cur.units + 1] = { k = 'open', label = l, form = 'alpha', text = rest }
    elseif not markers and not numbered and b.t == 'OrderedList' and is_question_list(b)
      and not (paragraphs and cur) then
      local start = b.listAttributes.start or 1
      for i, item in ipairs(b.content) do
        cur = new_question(qs, tostring(start + i - 1), group, 99)
        cur.group = group ~= ''
        for _, c in ipairs(item) do block_units(c, cur.units) end
      end
    elseif paragraphs and (b.t == 'Para' or b.t == 'Plain') and (not cur or cur.closed) then
      cur = new_question(qs, '', '', 99)
      block_units(b, cur.units)
    elseif paragraphs and b.t == 'OrderedList' and cur then
      block_units(b, cur.units)
      cur.closed = true
    elseif cur then
      block_units(b, cur.units)
    elseif b.t == 'RawBlock' then
      block_units(b, {}) -- an answer div outside any question opens and closes here
    end
  end
  if html_capture and cur then
    -- an answer div never closed: what it held is still a solution
    cur.units[#cur.units + 1] = sol_unit(table.concat(html_capture, '\n\n'))
  end
  html_capture = nil
  -- a heading before a list of questions is their group title only when numbering
  -- restarts under two or more such headings (topic groups), not a sheet's title
  local groups, starts = {}, 0
  for _, q in ipairs(qs) do
    if q.group then
      groups[q.title] = true
      if q.number == '1' then starts = starts + 1 end
    end
  end
  for _, q in ipairs(qs) do
    if q.group and starts < 2 then q.title = '' end
  end
  for _, q in ipairs(qs) do assemble(q) end
  return qs, answers
end

-- Solutions of an `Answers` section merged by number (both numbered) or position.
local function merge_section(qs, sols)
  local by_number = true
  for _, s in ipairs(sols) do if s.number == '' then by_number = false end end
  for _, q in ipairs(qs) do if q.number == '' then by_number = false end end
  for i, s in ipairs(sols) do
    local target = nil
    if by_number then
      for _, q in ipairs(qs) do if q.number == s.number then target = q; break end end
    else
      target = qs[i]
    end
    if target then
      local labelled = #s.parts > 0
      for _, sp in ipairs(s.parts) do
        local found = false
        for _, qp in ipairs(target.parts) do if sp.label ~= '' and qp.label == sp.label then found = true end end
        if not found then labelled = false end
      end
      for j, sp in ipairs(s.parts) do
        local tp = nil
        if labelled then
          for _, qp in ipairs(target.parts) do if qp.label == sp.label then tp = qp; break end end
        else
          tp = target.parts[j]
          if not tp then
            tp = new_part('')
            target.parts[j] = tp
          end
        end
        for _, a in ipairs(sp.answer) do tp.answer[#tp.answer + 1] = a end
        for _, w in ipairs(sp.ws) do tp.ws[#tp.ws + 1] = w end
      end
    end
  end
end

-- A text without its blank edges; an indented code block (first line indented four
-- spaces or more) keeps its indentation, which is what makes it code.
local function edges_cut(t)
  local code = t:match('^%s*\n( +)') or t:match('^( +)')
  if code and #code >= 4 then
    return (t:gsub('^%s*\n', ''):gsub('%s+$', ''))
  end
  return trim(t)
end

local function joined(texts)
  local out = {}
  for _, t in ipairs(texts or {}) do
    if trim(t) ~= '' then out[#out + 1] = edges_cut(t) end
  end
  return table.concat(out, '\n\n')
end

local function emit_questions(qs)
  local out = {}
  for _, q in ipairs(qs) do
    local parts = {}
    for _, p in ipairs(q.parts) do
      if NUMBERING then
        parts[#parts + 1] = { content = p.label }
      else
        parts[#parts + 1] = {
          content = joined(p.texts), options = p.options, correct = p.correct,
          answer = joined(p.answer), worked_solution = joined(p.ws),
        }
      end
    end
    if NUMBERING then
      out[#out + 1] = { title = q.number, main_text = '', parts = parts }
    else
      out[#out + 1] = { title = q.title, main_text = joined(q.main_texts), parts = parts }
    end
  end
  return sheet.emit(out)
end

-- ---------------------------------------------------------------------------
-- Question headings: a sheet with no question marker whose run-in headings ask
-- (`#### What is the lower bound?`, a LaTeX `\paragraph*{...?}`) under section headings.

local function asks(h)
  return heading_text(h):match('%?$') ~= nil
end

-- The level of the headings that ask, when the layout is this one: no question marker,
-- two or more headings ending in `?`, all at one level, under two or more headings of a
-- higher level.
local function asking_level(blocks)
  if ROLE ~= 'questions' or has_markers(blocks) then return nil end
  local level, n, top = nil, 0, 99
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      if asks(b) then
        if level and level ~= b.level then return nil end
        level, n = b.level, n + 1
      else
        top = math.min(top, b.level)
      end
    end
  end
  if not (level and n >= 2 and top < level) then return nil end
  -- two or more sections ask: under a single heading (a sheet's title) the asking
  -- headings may as well be questions themselves
  local sections, asked = 0, false
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and b.level < level then
      asked = false
    elseif b.t == 'Header' and b.level == level and asks(b) and not asked then
      asked, sections = true, sections + 1
    end
  end
  if sections >= 2 then return level end
  return nil
end

-- Each section heading above the asking level opens a question (its title the heading
-- text, a trailing `(5-10 minutes)` estimate cut); each asking heading opens a part whose
-- content starts with the question it asks; the text before the first part is the main
-- text. A section with no asking heading is chrome (objectives, downloads, instructions).
local function asking_questions(blocks, level)
  local qs, cur, part = {}, nil, nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and b.level < level then
      local title = heading_text(b):gsub('%s*%([^%)]*%d[^%)]*%)$', '')
      cur = { number = '', title = trim(title), main_texts = {}, parts = {} }
      qs[#qs + 1] = cur
      part = nil
    elseif cur and b.t == 'Header' and b.level == level and asks(b) then
      part = new_part('')
      part.texts[1] = heading_text(b)
      cur.parts[#cur.parts + 1] = part
    elseif cur and b.t ~= 'HorizontalRule' and not (b.t == 'RawBlock') then
      local text = b.t == 'Header' and heading_text(b) or sheet.text_of(b)
      if trim(text) ~= '' then
        if part then part.texts[#part.texts + 1] = text else cur.main_texts[#cur.main_texts + 1] = text end
      end
    end
  end
  local out = {}
  for _, q in ipairs(qs) do
    if #q.parts > 0 then out[#out + 1] = q end
  end
  return out
end

function Pandoc(doc)
  ROLE = sheet.role(doc)
  local asking = asking_level(doc.blocks)
  if asking then
    local qs = asking_questions(doc.blocks, asking)
    if #qs > 0 then return emit_questions(qs) end
  end
  local qs, answers = segment(doc.blocks)
  if answers then
    local saved = ROLE
    ROLE = 'solutions'
    local sols = segment(answers)
    ROLE = saved
    merge_section(qs, sols)
  end
  return emit_questions(qs)
end
