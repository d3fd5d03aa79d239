--[[
sheet.lua: the helper module every route B filter can use (sheet2lambda).

The sandbox runner (filters/sandbox.lua) refuses `require`, so it loads this module
itself, in a restricted environment of its own, and hands it to the filter as the global
table `sheet`. A filter simply calls, for instance:

    function Pandoc(doc)
      local questions = {}
      for _, b in ipairs(doc.blocks) do
        if b.t == 'Para' then
          local before, pieces = sheet.split_labels(b)
          local parts = {}
          for _, p in ipairs(pieces) do parts[#parts + 1] = { content = p.text } end
          questions[#questions + 1] = { title = '', main_text = before, parts = parts }
        end
      end
      return sheet.emit(questions)
    end

Functions (blocks may be given as a Block, a Blocks list or a plain Lua list of blocks):

  sheet.role(doc)             'questions' or 'solutions' (doc.meta.in2lambda_role).
  sheet.text(blocks)          markdown of the blocks, quoting the input file's own text
                              where a block's source is known (see below), else
                              pandoc's rendering (commonmark_x-smart, lines as in the
                              source). Consecutive blocks keep the source's blank lines.
  sheet.text_of(block)        the same for one block.
  sheet.source_of(block)      the source slice of a block, or nil when it is not known.
  sheet.render(blocks)        pandoc's rendering only (never the source).
  sheet.lines(text)           a Lua list of the lines of a string.
  sheet.trim(text)            the string without leading and trailing whitespace.
  sheet.label(line)           part label at the start of a line: `(a)`, `a)`, `(iv)`;
                              returns label, rest (the line after the label) or nil.
  sheet.split_labels(block)   before, pieces: the text before the first part label and a
                              list of {label=, text=} pieces, splitting the block's text
                              at lines that start with a label (outside $$ maths).
  sheet.is_timing(line)       a timing or star line: `5-10 mins`, `★★ 15-20 mins`,
                              `- 15-20 mins`, `* 3-5 mins`, `- ★ 20-25 mins`, `★★`.
  sheet.is_stamp(line)        a `Generated: ...` stamp.
  sheet.is_separator(line)    `---`, `***`, `___`.
  sheet.is_chrome(line)       any of the three above, or a blank line.
  sheet.bullet(line)          the text after a leading `- `, `* ` or `+ ` marker, or nil.
  sheet.question_heading(h)   for a Header block that names a question (`1.1 Title`,
                              `Question 3`, `Problem 2.`, `Exercise 4 (5 pts)`): its
                              title (the words after the number, or the heading text
                              when there are none); nil for any other heading.
  sheet.emit(questions)       the document the filter returns: one CodeBlock holding
                              the JSON list [{title, main_text, parts: [{content,
                              options, answer, worked_solution, correct}]}] (missing
                              fields are empty strings, empty lists encode as [];
                              `correct`, the 0-based indices of the options marked
                              correct, is written only when not empty).
  sheet.source                the input markdown as text (nil when unknown).

How quoting works: the runner passes the text of the input file; on first use the
module parses it again with `commonmark_x-smart+sourcepos`, which wraps every block
and inline in a Div/Span carrying `data-pos` (line:column ranges). For every block (top
level, inside list items, block quotes and divs) the wrappers are removed to get the
plain block, which is rendered with pandoc.write(..., 'commonmark_x-smart',
{wrap_text = 'wrap-preserve'}) with its attributes in a fixed order; that rendering
keys the block's source lines (the line range of its inlines, since a block's own range
runs on until the block is closed; list markers and continuation indentation are cut
by column, a tab counting to the next multiple of 4). `sheet.text` renders the filter's block
the same way and returns the source slice with that key, preferring the first one after
the last slice it returned, so that repeated blocks are quoted in document order.
Re-rendering alone would turn e.g. raw HTML `<br>` into `` `<br>`{=html} `` and `$$`
blocks into one line, and the verbatim check would fail.
]]

return function(ctx)
  ctx = ctx or {}
  local M = {}
  M.source = ctx.source

  local WRITE_OPTS = { wrap_text = 'wrap-preserve' }

  local function trim(s)
    return (s:gsub('^%s+', ''):gsub('%s+$', ''))
  end
  M.trim = trim

  function M.lines(text)
    local out = {}
    text = (text or ''):gsub('\r\n', '\n')
    for line in (text .. '\n'):gmatch('(.-)\n') do out[#out + 1] = line end
    return out
  end

  local function as_blocks(x)
    if x == nil then return {} end
    local ty = pandoc.utils.type(x)
    if ty == 'Block' then return { x } end
    return x
  end

  function M.render(blocks)
    local list = pandoc.Blocks({})
    for _, b in ipairs(as_blocks(blocks)) do list:insert(b) end
    local md = pandoc.write(pandoc.Pandoc(list), 'commonmark_x-smart', WRITE_OPTS)
    return (md:gsub('^\n+', ''):gsub('%s+$', ''))
  end

  function M.role(doc)
    local v = doc and doc.meta and doc.meta.in2lambda_role
    local role = v and pandoc.utils.stringify(v) or ctx.role or 'questions'
    if role == 'solutions' then return 'solutions' end
    return 'questions'
  end

  -- -------------------------------------------------------------------------
  -- The source index.

  local index = nil      -- rendering -> list of entries {first=, last=, text=}
  local cursor = 0       -- last source line quoted

  -- A Div or Span that sourcepos added: only `wrapper` and `data-pos` attributes (the
  -- reader also marks a Span that carries a sheet's own attributes with `wrapper`).
  local function is_pos_wrapper(el)
    if not el.attributes.wrapper or el.identifier ~= '' or #el.classes > 0 then return false end
    for i = 1, #el.attributes do
      local k = el.attributes[i][1]
      if k ~= 'wrapper' and k ~= 'data-pos' then return false end
    end
    return true
  end

  local UNWRAP = {
    Inline = function(el)
      if el.t == 'Span' and is_pos_wrapper(el) then return el.content end
      if el.attr and el.attributes['data-pos'] then
        while el.attributes['data-pos'] do el.attributes['data-pos'] = nil end
        return el
      end
    end,
    Inlines = function(inls)
      local out = pandoc.Inlines({})
      for _, x in ipairs(inls) do
        local last = out[#out]
        if x.t == 'Str' and last and last.t == 'Str' then
          out[#out] = pandoc.Str(last.text .. x.text)
        else
          out:insert(x)
        end
      end
      return out
    end,
    Block = function(el)
      if el.t == 'Div' and is_pos_wrapper(el) then return el.content end
      if el.attr and el.attributes['data-pos'] then
        while el.attributes['data-pos'] do el.attributes['data-pos'] = nil end
        return el
      end
    end,
  }

  -- The last data-pos of an element: a block in a list item can carry two, the
  -- enclosing list's first.
  local function data_pos(el)
    local pos = nil
    if not el.attr then return nil end
    for i = 1, #el.attributes do
      local kv = el.attributes[i]
      if kv[1] == 'data-pos' then pos = kv[2] end
    end
    return pos
  end

  -- Attributes in a fixed order: the sourcepos reader lists a sheet's own attributes
  -- before `wrapper`, the plain reader after it.
  local function sort_attributes(el)
    if not el.attr or #el.attributes < 2 then return nil end
    local list = {}
    for i = 1, #el.attributes do list[i] = { el.attributes[i][1], el.attributes[i][2] } end
    table.sort(list, function(a, b)
      if a[1] ~= b[1] then return a[1] < b[1] end
      return a[2] < b[2]
    end)
    el.attributes = list
    return el
  end
  local NORMALIZE = { Inline = sort_attributes, Block = sort_attributes }

  -- The key of a block: its rendering with attributes in a fixed order.
  local function key_of(blocks)
    return M.render(pandoc.Blocks(blocks):walk(NORMALIZE))
  end

  local function ranges(pos)
    local out = {}
    for l1, c1, l2, c2 in (pos or ''):gmatch('(%d+):(%d+)%-(%d+):(%d+)') do
      out[#out + 1] = { tonumber(l1), tonumber(c1), tonumber(l2), tonumber(c2) }
    end
    return out
  end

  -- First and last line of the inlines under an element (precise, unlike block ranges,
  -- which run on until the block is closed).
  local function inline_span(el)
    local first, last = nil, nil
    local function note(pos)
      for _, r in ipairs(ranges(pos)) do
        local e = r[4] > 1 and r[3] or r[3] - 1
        if e < r[1] then e = r[1] end
        if not first or r[1] < first then first = r[1] end
        if not last or e > last then last = e end
      end
    end
    local function walk_inls(inls)
      for _, x in ipairs(inls) do
        if x.attr then note(data_pos(x)) end
      end
    end
    pandoc.Blocks({ el }):walk({ Inlines = function(inls) walk_inls(inls) end })
    return first, last
  end

  local src_lines = nil

  -- The byte index where column `col` starts (1-based columns as the reader counts them:
  -- characters, a tab running to the next multiple of 4); nil past the end of the line.
  local function col_offset(line, col)
    local c = 1
    for pos, code in utf8.codes(line) do
      if c >= col then return pos end
      if code == 9 then c = c + 4 - ((c - 1) % 4) else c = c + 1 end
    end
    return nil
  end

  local function strip_cols(line, col, first_line)
    if col <= 1 then return line end
    local ok, at = pcall(col_offset, line, col)
    if not ok then at = utf8.offset(line, col) end
    if first_line then
      if not at then return '' end
      return line:sub(at)
    end
    -- continuation lines: cut only indentation (or block-quote markers), never text
    local prefix = at and line:sub(1, at - 1) or line
    if prefix:match('^[%s>]*$') then return at and line:sub(at) or '' end
    return (line:gsub('^%s+', ''))
  end

  local function record(block, pos, first, last, col)
    if not first or not last or last < first then return end
    -- an indented code block's position is its code's column: its four spaces of
    -- indentation are what make it code, so they are part of its text
    if block.t == 'CodeBlock' and col > 4 then
      local line = src_lines[first] or ''
      local ok, at = pcall(col_offset, line, col)
      local rest = ok and at and line:sub(at) or ''
      if not rest:match('^[`~][`~][`~]') then col = col - 4 end
    end
    while last > first and trim(src_lines[last] or '') == '' do last = last - 1 end
    local out = {}
    for l = first, last do
      out[#out + 1] = strip_cols(src_lines[l] or '', col, l == first)
    end
    local text = table.concat(out, '\n'):gsub('%s+$', '')
    local clean = pandoc.Blocks({ block }):walk(UNWRAP)
    local key = key_of(clean)
    index[key] = index[key] or {}
    table.insert(index[key], { first = first, last = last, text = text })
  end

  local visit

  local function children(b)
    if b.t == 'BulletList' or b.t == 'OrderedList' then
      for _, item in ipairs(b.content) do visit(item) end
    elseif b.t == 'BlockQuote' or b.t == 'Div' or b.t == 'Figure' then
      visit(b.content)
    elseif b.t == 'DefinitionList' then
      for _, item in ipairs(b.content) do
        for _, def in ipairs(item[2]) do visit(def) end
      end
    end
  end

  -- Each entry of `blocks` is either a wrapper Div (data-pos) around the block(s) of
  -- one source block, or a block carrying data-pos itself (Header, CodeBlock, ...).
  visit = function(blocks)
    local found = {}
    for _, b in ipairs(blocks) do
      local pos, inner
      if b.t == 'Div' and is_pos_wrapper(b) then
        pos, inner = data_pos(b), b.content
      else
        pos, inner = data_pos(b), { b }
      end
      for _, ib in ipairs(inner) do
        local rs = ranges(pos)
        local if1, il1 = inline_span(ib)
        local bf, bl, col = nil, nil, 1
        if rs[1] then
          col = rs[1][2]
          for _, r in ipairs(rs) do
            local e = r[4] > 1 and r[3] or r[3] - 1
            if not bf or r[1] < bf then bf, col = r[1], r[2] end
            if not bl or e > bl then bl = e end
          end
        end
        local first, last
        if ib.t == 'Header' then
          first, last = bf or if1, bl or il1
        elseif if1 then
          first, last = math.min(bf or if1, if1), il1
          if ib.t ~= 'Para' and ib.t ~= 'Plain' and bl and bl > last then
            last = bl -- lists, quotes, tables: the block range, capped below
          end
        else
          first, last = bf, bl
        end
        found[#found + 1] = { block = ib, first = first, last = last, col = col }
        children(ib)
      end
    end
    for i, f in ipairs(found) do
      local nxt = found[i + 1]
      if nxt and nxt.first and f.last and f.last >= nxt.first then f.last = nxt.first - 1 end
      record(f.block, nil, f.first, f.last, f.col)
    end
  end

  local function build()
    index = {}
    if not M.source then return end
    src_lines = M.lines(M.source)
    local ok, doc = pcall(pandoc.read, M.source, 'commonmark_x-smart+sourcepos')
    if not ok then return end
    visit(doc.blocks)
  end

  local function lookup(block)
    if not index then build() end
    local key = key_of({ block })
    local entries = index[key]
    if not entries then return nil, M.render({ block }) end
    local pick = entries[1]
    for _, e in ipairs(entries) do
      if e.first > cursor then pick = e; break end
    end
    cursor = pick.last
    return pick, key
  end

  function M.source_of(block)
    local e = lookup(block)
    return e and e.text or nil
  end

  function M.text(blocks)
    local out, prev = {}, nil
    for _, b in ipairs(as_blocks(blocks)) do
      local e, key = lookup(b)
      local piece = e and e.text or key
      if piece ~= '' then
        if #out > 0 then
          local sep = '\n\n'
          if e and prev and e.first > prev.last then
            local blank = true
            for l = prev.last + 1, e.first - 1 do
              if trim(src_lines[l] or '') ~= '' then blank = false; break end
            end
            if blank then sep = string.rep('\n', e.first - prev.last) end
          end
          out[#out + 1] = sep
        end
        out[#out + 1] = piece
        prev = e
      end
    end
    return table.concat(out)
  end

  function M.text_of(block)
    return M.text({ block })
  end

  -- -------------------------------------------------------------------------
  -- Lines: labels and chrome.

  function M.label(line)
    local s = line:gsub('^%s+', '')
    local l, rest = s:match('^%((%l)%)%s*(.*)$')
    if l and (rest == '' or s:match('^%(%l%)%s')) then return l, rest end
    l, rest = s:match('^%(([ivx]+)%)%s*(.*)$')
    if l and (rest == '' or s:match('^%([ivx]+%)%s')) then return l, rest end
    l, rest = s:match('^(%l)%)%s+(.*)$')
    if l then return l, rest end
    l = s:match('^(%l)%)$')
    if l then return l, '' end
    return nil
  end

  function M.split_labels(block)
    local text = M.text_of(block)
    local before, pieces, cur = {}, pandoc.List({}), nil
    local in_math = false
    for _, line in ipairs(M.lines(text)) do
      local label, rest = nil, nil
      if not in_math then label, rest = M.label(line) end
      if label then
        cur = { label = label, lines = { rest } }
        pieces:insert(cur)
      elseif cur then
        table.insert(cur.lines, line)
      else
        before[#before + 1] = line
      end
      local _, n = line:gsub('%$%$', '')
      if n % 2 == 1 then in_math = not in_math end
    end
    for _, p in ipairs(pieces) do
      p.text = trim(table.concat(p.lines, '\n'))
      p.lines = nil
    end
    return trim(table.concat(before, '\n')), pieces
  end

  local STAR, WHITE_STAR, EN_DASH = '\u{2605}', '\u{2606}', '\u{2013}'

  function M.bullet(line)
    return line:match('^%s*[-*+]%s+(.*)$') or (line:match('^%s*[-*+]$') and '')
  end

  function M.is_timing(line)
    local s = M.bullet(line) or line
    local stars1, stars2
    s, stars1 = s:gsub(STAR, '')
    s, stars2 = s:gsub(WHITE_STAR, '')
    s = trim((s:gsub(EN_DASH, '-')))
    if s == '' then return stars1 + stars2 > 0 end
    s = s:gsub('^%((.*)%)$', '%1')
    return (s:match('^%d+%s*%-%s*%d+%s*min[%a]*%.?$') or s:match('^%d+%s*min[%a]*%.?$')) ~= nil
  end

  function M.is_stamp(line)
    return line:match('^%s*Generated:%s') ~= nil
  end

  function M.is_separator(line)
    local s = trim(line)
    return s:match('^%-%-%-+$') ~= nil or s:match('^%*%*%*+$') ~= nil or s:match('^___+$') ~= nil
  end

  function M.is_chrome(line)
    return trim(line) == '' or M.is_timing(line) or M.is_stamp(line) or M.is_separator(line)
  end

  function M.question_heading(h)
    if not h or h.t ~= 'Header' then return nil end
    local lines = M.lines(M.text_of(h))
    local text = lines[1] or ''
    text = text:gsub('^%s*#+%s*', ''):gsub('%s*#+%s*$', ''):gsub('%s*{[^}]*}%s*$', '')
    text = trim(text)
    local rest = text:match('^%d+[%.%d]*%.?%s+(.+)$')
    if rest then return trim(rest) end
    if text:match('^%d+[%.%d]*%.?$') then return text end
    local word, num, tail = text:match('^(%a+)%s+(%d+[%.%d]*)%s*[%.:]?%s*(.*)$')
    if word then
      local w = word:lower()
      if w == 'question' or w == 'problem' or w == 'exercise' or w == 'q' then
        tail = trim(tail)
        if tail ~= '' and not tail:match('^%(') then return tail end
        return trim((text:gsub('[%.:]%s*$', '')))
      end
    end
    return nil
  end

  -- -------------------------------------------------------------------------

  local function str(x)
    if x == nil then return '' end
    if type(x) == 'string' then return x end
    if type(x) == 'number' then return tostring(x) end
    return pandoc.utils.stringify(x)
  end

  function M.emit(questions)
    local out = pandoc.List({})
    for _, q in ipairs(questions or {}) do
      local parts = pandoc.List({})
      for _, p in ipairs(q.parts or {}) do
        local options = pandoc.List({})
        for _, o in ipairs(p.options or {}) do options:insert(str(o)) end
        local part = {
          content = str(p.content),
          options = options,
          answer = str(p.answer),
          worked_solution = str(p.worked_solution),
        }
        if p.correct and #p.correct > 0 then
          local correct = pandoc.List({})
          for _, i in ipairs(p.correct) do correct:insert(math.tointeger(i) or i) end
          part.correct = correct
        end
        parts:insert(part)
      end
      out:insert({ title = str(q.title), main_text = str(q.main_text), parts = parts })
    end
    return pandoc.Pandoc({ pandoc.CodeBlock(pandoc.json.encode(out)) })
  end

  return M
end
