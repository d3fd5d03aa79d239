--[[
mathpix.lua: a library route B filter for Mathpix-style markdown (sheet2lambda).

The layout (e.g. a PDF problem sheet and its solutions as Mathpix converts them):

  * a heading per question, numbered: `### 1.1 Hydraulic scale` (also `Question 3`,
    `Problem 2.`, `Exercise 4`); the title is the words after the number. Any other ATX
    heading (the sheet title `## MECH50010 ...`, `## Introduction`) is chrome and ends
    the question before it; a setext heading inside a question (Mathpix turns a text line
    followed by a stray `-` line into one) is text.
  * parts labelled `(a)`, `(b)`, ... (also `a)`, `(i)`, `(ii)`), either as a lettered
    list (pandoc's fancy_lists) or at the start of a line inside a paragraph;
  * in the questions role, bullet items after a part (or nested in it) are that part's
    multiple-choice options, not its content; bullet items before the first part are
    main text;
  * display maths as `$$` lines, images as `![](media/...)` lines, kept as written.

Chrome left out (never copied into a field):
  * headings that do not name a question (see above) and anything before the first
    question heading;
  * timing and star lines: `5-10 mins`, `★★ 15-20 mins`, also as bullet items
    (`- 15-20 mins`, `* 3-5 mins`, `- ★ 20-25 mins`);
  * the remark rule: in this house style the first line after a timing line is a remark
    to the student about the course ("This is a gentle warm up question ..."), not part
    of the question; route A and the author's own export both leave it out, so this filter
    drops the first non-blank line after a timing line (unless that line is a part label
    or a `Final answer` / `Worked solutions` marker);
  * a `Generated: ...` stamp and separator lines.

In the solutions role, under each question heading a part label (alone on a line, as a
list item or before other text) starts a part; the text after a `Final answer` line up to
a `Worked solutions` line is the part's `answer`, the text after `Worked solutions` its
`worked_solution`. A second `Final answer` under the same part starts the next part (a
solutions document sometimes drops a label). Text under a label before either marker is
worked solution.

Every field is quoted from the markdown (sheet.text quotes the source lines); paragraphs
are the source's blocks, joined by a blank line.
]]

local ROLE = 'questions'

local function trim(s) return sheet.trim(s) end

-- A field: paragraphs of lines.
local function buffer() return { paras = {} } end

local function buffer_text(buf)
  local out = {}
  for _, para in ipairs(buf.paras) do
    local text = table.concat(para, '\n'):gsub('%s+$', '')
    if trim(text) ~= '' then out[#out + 1] = text end
  end
  return table.concat(out, '\n\n')
end

local State = {}
State.__index = State

local function new_state()
  return setmetatable({
    questions = {}, q = nil, part = nil, target = nil,
    fresh = true, skip_remark = false, in_math = false,
  }, State)
end

function State:new_question(title)
  self.q = { title = title, main = buffer(), parts = {} }
  table.insert(self.questions, self.q)
  self.part, self.target = nil, self.q.main
  self.fresh, self.skip_remark, self.in_math = true, false, false
end

function State:new_part()
  local p = { content = buffer(), options = {}, answer = buffer(), ws = buffer(), seen_final = false }
  table.insert(self.q.parts, p)
  self.part = p
  self.target = ROLE == 'solutions' and p.ws or p.content
  self.fresh = true
end

function State:final()
  if not self.part or self.part.seen_final then self:new_part() end
  self.part.seen_final = true
  self.target, self.fresh = self.part.answer, true
end

function State:worked()
  if not self.part then self:new_part() end
  self.target, self.fresh = self.part.ws, true
end

function State:append(line)
  if self.fresh or #self.target.paras == 0 then
    table.insert(self.target.paras, {})
    self.fresh = false
  end
  local para = self.target.paras[#self.target.paras]
  para[#para + 1] = line
end

-- A marker line in the solutions role: 'final' or 'worked' and the rest of the line.
local function marker(t)
  local rest = t:match('^Final answers?%s*:?%s*(.*)$')
  if rest then return 'final', rest end
  rest = t:match('^Worked solutions?%s*:?%s*(.*)$')
  if rest then return 'worked', rest end
  return nil
end

function State:line(line)
  if not self.q then return end
  local t = trim(line)
  if t == '' then
    self.fresh = true
    return
  end
  if not self.in_math then
    local label, rest = sheet.label(line)
    local mark, mrest = nil, nil
    if ROLE == 'solutions' then mark, mrest = marker(t) end
    if label then
      self.skip_remark = false
      self:new_part()
      if rest ~= '' then self:line(rest) end
      return
    elseif mark then
      self.skip_remark = false
      if mark == 'final' then self:final() else self:worked() end
      if mrest ~= '' then self:line(mrest) end
      return
    elseif sheet.is_timing(line) then
      self.skip_remark = true
      return
    elseif sheet.is_stamp(line) or sheet.is_separator(line) then
      return
    elseif self.skip_remark then
      self.skip_remark = false
      return
    end
  end
  self:append(line)
  local _, n = line:gsub('%$%$', '')
  if n % 2 == 1 then self.in_math = not self.in_math end
end

function State:feed_text(text)
  self.fresh, self.in_math = true, false
  for _, l in ipairs(sheet.lines(text)) do self:line(l) end
  self.fresh, self.in_math = true, false
end

-- A whole block as one paragraph, no line rules (code, tables, raw blocks).
function State:feed_verbatim(text)
  if not self.q or trim(text) == '' then return end
  if self.skip_remark then self.skip_remark = false end
  self.fresh = true
  self:append(text)
  self.fresh = true
end

local function is_setext(h)
  local lines = sheet.lines(sheet.text_of(h))
  return #lines >= 2 and lines[#lines]:match('^%s*[-=]+%s*$') ~= nil
end

local function is_part_list(b)
  local style = b.listAttributes.style
  return style == 'LowerAlpha' or style == 'LowerRoman'
end

local function all_timing(list)
  for _, item in ipairs(list.content) do
    local t = trim(sheet.text(item))
    if t == '' or not sheet.is_timing(t) then return false end
  end
  return #list.content > 0
end

-- Options from the items of a bullet list; an item whose text runs on into a part label
-- (a lazy continuation line) is split there.
function State:options(list)
  for _, item in ipairs(list.content) do
    local lines = sheet.lines(sheet.text(item))
    local opt, rest_from = {}, nil
    for i, l in ipairs(lines) do
      if i > 1 and sheet.label(l) then rest_from = i; break end
      opt[#opt + 1] = l
    end
    local text = trim(table.concat(opt, '\n'))
    if text ~= '' then table.insert(self.part.options, text) end
    if rest_from then
      self.fresh = true
      for i = rest_from, #lines do self:line(lines[i]) end
      self.fresh = true
    end
  end
end

function State:feed_blocks(blocks)
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      local title = sheet.question_heading(b)
      if title then
        self:new_question(title)
      elseif self.q and is_setext(b) then
        self:feed_text(sheet.text_of(b))
      else
        self.q = nil
      end
    elseif not self.q then
      -- chrome before the first question, or after a chrome heading
    elseif b.t == 'OrderedList' and is_part_list(b) then
      for _, item in ipairs(b.content) do
        self:new_part()
        self.skip_remark = false
        self:feed_blocks(item)
      end
    elseif b.t == 'BulletList' then
      if all_timing(b) then
        self.skip_remark = true
      elseif ROLE == 'questions' and self.part then
        self:options(b)
      else
        self:feed_text(sheet.text_of(b))
      end
    elseif b.t == 'HorizontalRule' then
      -- a separator
    elseif b.t == 'CodeBlock' or b.t == 'RawBlock' or b.t == 'Table' then
      self:feed_verbatim(sheet.text_of(b))
    else
      self:feed_text(sheet.text_of(b))
    end
  end
end

function Pandoc(doc)
  ROLE = sheet.role(doc)
  local st = new_state()
  st:feed_blocks(doc.blocks)
  local out = {}
  for _, q in ipairs(st.questions) do
    local parts = {}
    for _, p in ipairs(q.parts) do
      parts[#parts + 1] = {
        content = buffer_text(p.content),
        options = p.options,
        answer = buffer_text(p.answer),
        worked_solution = buffer_text(p.ws),
      }
    end
    out[#out + 1] = { title = q.title, main_text = buffer_text(q.main), parts = parts }
  end
  return sheet.emit(out)
end
