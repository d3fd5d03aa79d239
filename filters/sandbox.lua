--[[
sandbox.lua: the trusted runner for route B filters (sheet2lambda).

A route B filter is untrusted Lua (a model writes it). pandoc's own ``--sandbox`` flag
does not restrict Lua filters (a filter run with it can still open files and run
commands), so this runner, itself an ordinary pandoc Lua filter, loads the untrusted
source as *text* into a restricted environment and applies it there.

Invoked by ``tasks/read/sandbox.py`` roughly as

    pandoc -f commonmark_x-smart -t json --sandbox --lua-filter <repo>/filters/sandbox.lua \
      -M in2lambda_role=questions -M in2lambda_filter=filter.lua \
      -M in2lambda_filter_name=NAME -M in2lambda_time_limit=SECONDS \
      -M in2lambda_memory_limit=BYTES input.md -o out.json

with the scratch directory as the working directory.

What the untrusted filter gets (its whole global environment):
  * base functions: assert, error, ipairs, next, pairs, select, tonumber, tostring, type,
    rawequal, rawget, rawlen, rawset, setmetatable, getmetatable (tables only), pcall and
    xpcall (they cannot swallow the time or memory limit), print (a no-op),
    collectgarbage (only "count", "collect", "step"), _VERSION, _G (the sandbox itself);
  * copies of string (without dump), table, math, utf8, coroutine;
  * a filtered copy of pandoc: the element constructors and constants, List, Blocks,
    Inlines, walk_block, walk_inline, json (encode, decode), text, utils (stringify,
    blocks_to_inlines, type, equals), read and write limited to the markdown family of
    formats (commonmark, commonmark_x, gfm, markdown, markdown_strict, ..., and plain for
    write; with +/- extensions) and to a short list of options;
  * PANDOC_VERSION, PANDOC_API_VERSION, FORMAT;
  * ``sheet``: the helper module filters/lib/sheet.lua (see that file), since require is
    refused.
Anything else the real environment has (os, io, require, load, loadstring, dofile,
loadfile, debug, package, pandoc.pipe, pandoc.system, pandoc.mediabag, pandoc.path,
pandoc.zip, pandoc.template, pandoc.cli, pandoc.utils.run_lua_filter, ...) raises
"filter breaks a sandbox rule: <name> is not available" when touched. Bytecode is
refused (``load`` in mode "t").

The filter is applied as pandoc would apply a filter file: if the chunk returns a filter
table (or a list of them) that is used, else the element functions it defined as globals
(Pandoc, Meta, Blocks, Para, ...); each filter is applied with ``doc:walk``.

Limits: a count hook stops the filter cleanly past the time limit (CPU seconds since
the runner started) or when the Lua heap grows past half the memory limit; the caller
also kills the process group past the time limit (plus a grace) and caps the address
space (RLIMIT_AS), which covers what the hook cannot see (one huge allocation in C).

On failure the runner raises one line starting with "SANDBOX-REASON: " followed by the
reason (pandoc then exits non-zero and prints it on stderr).
]]

local MARK = 'SANDBOX-REASON: '

-- Trusted references, taken before anything untrusted runs.
local T = {
  pandoc = pandoc, io = io, os = os, debug = debug, load = load, string = string,
  table = table, math = math, utf8 = utf8, coroutine = coroutine, pcall = pcall,
  xpcall = xpcall, error = error, type = type, tostring = tostring, pairs = pairs,
  ipairs = ipairs, next = next, select = select, tonumber = tonumber, assert = assert,
  rawequal = rawequal, rawget = rawget, rawlen = rawlen, rawset = rawset,
  setmetatable = setmetatable, getmetatable = getmetatable,
  collectgarbage = collectgarbage,
}
local real_G = _G

local RULE = 'filter breaks a sandbox rule: '

local function forbid(name)
  T.error(RULE .. name .. ' is not available', 3)
end

-- ---------------------------------------------------------------------------
-- State of the current run (set in run()).
local aborted = nil          -- the reason once a limit is passed (sticky)
local time_limit = 20.0      -- seconds
local memory_kb = 512 * 1024 -- Lua heap limit in KiB
local clock0 = 0             -- CPU seconds at the filter's start (os.clock)
local wall0 = 0              -- wall seconds at the filter's start (os.time, whole seconds)

local function seconds(x)
  if x == T.math.floor(x) then return T.string.format('%d', x) end
  return T.string.format('%g', x)
end

local function hook()
  if aborted then T.error(aborted, 0) end
  -- CPU time, or wall time on a loaded machine (where the process may get too little CPU to
  -- reach the limit before the caller's wall-clock kill: the clean reason must come first).
  if T.os.clock() - clock0 > time_limit or T.os.time() - wall0 > time_limit then
    aborted = 'filter ran past the ' .. seconds(time_limit) .. ' s time limit'
    T.error(aborted, 0)
  end
  if T.collectgarbage('count') > memory_kb then
    T.collectgarbage('collect')
    if T.collectgarbage('count') > memory_kb then
      aborted = 'filter ran out of memory'
      T.error(aborted, 0)
    end
  end
end
local HOOK_COUNT = 10000

-- ---------------------------------------------------------------------------
-- Building the restricted environment.

-- A table whose unknown keys raise a sandbox-rule error when the real table has them.
local function guard(tbl, prefix, real)
  return T.setmetatable(tbl, {
    __index = function(_, k)
      if real ~= nil and T.type(k) == 'string' and T.rawget(real, k) ~= nil then
        forbid(prefix .. k)
      end
      return nil
    end,
    __metatable = false,
  })
end

local function copy(src, except)
  local out = {}
  for k, v in T.pairs(src) do
    if not (except and except[k]) then out[k] = v end
  end
  return out
end

-- Markdown-family format names, optionally with +ext/-ext (never a file name).
local READ_FORMATS = {
  commonmark = true, commonmark_x = true, gfm = true, markdown = true,
  markdown_strict = true, markdown_phpextra = true, markdown_mmd = true,
  markdown_github = true,
}
local WRITE_FORMATS = copy(READ_FORMATS)
WRITE_FORMATS.plain = true

local function check_format(fmt, allowed, what)
  if T.type(fmt) ~= 'string' then
    forbid(what .. ' to a format given as a ' .. T.type(fmt))
  end
  local base = fmt:match('^([%a_]+)')
  local rest = base and fmt:sub(#base + 1) or ''
  local ok = base ~= nil and allowed[base] == true
  if ok then
    local rebuilt = {}
    for sign, ext in rest:gmatch('([+-])([%a_]+)') do rebuilt[#rebuilt + 1] = sign .. ext end
    ok = T.table.concat(rebuilt) == rest
  end
  if not ok then
    forbid(what .. " to format '" .. fmt:sub(1, 60) .. "'")
  end
  return fmt
end

local WRITER_OPTION_KEYS = {
  wrap_text = true, columns = true, tab_stop = true, reference_links = true,
  reference_location = true, setext_headers = true, prefer_ascii = true,
  number_sections = true, html_q_tags = true, list_of_figures = true,
  toc_depth = true, table_of_contents = true, section_divs = true,
}
local READER_OPTION_KEYS = {
  columns = true, tab_stop = true, standalone = true, indented_code_classes = true,
  default_image_extension = true, strip_comments = true,
}

local function clean_options(opts, keys, what)
  if opts == nil then return nil end
  if T.type(opts) ~= 'table' then forbid(what .. ' options given as a ' .. T.type(opts)) end
  local out = {}
  for k, v in T.pairs(opts) do
    if not keys[k] then forbid(what .. ' option ' .. T.tostring(k)) end
    local tv = T.type(v)
    if tv ~= 'string' and tv ~= 'number' and tv ~= 'boolean' and tv ~= 'table' then
      forbid(what .. ' option ' .. k .. ' given as a ' .. tv)
    end
    out[k] = v
  end
  return out
end

local PANDOC_ALLOWED = {
  -- documents, blocks and inlines
  'Pandoc', 'Meta', 'MetaBlocks', 'MetaBool', 'MetaInlines', 'MetaList', 'MetaMap',
  'MetaString', 'BlockQuote', 'BulletList', 'CodeBlock', 'DefinitionList', 'Div', 'Figure',
  'Header', 'HorizontalRule', 'LineBlock', 'OrderedList', 'Para', 'Plain', 'RawBlock',
  'Table', 'Cite', 'Code', 'Emph', 'Image', 'LineBreak', 'Link', 'Math', 'Note', 'Quoted',
  'RawInline', 'SmallCaps', 'SoftBreak', 'Space', 'Span', 'Str', 'Strikeout', 'Strong',
  'Subscript', 'Superscript', 'Underline', 'Attr', 'AttributeList', 'Caption', 'Cell',
  'Citation', 'ListAttributes', 'Row', 'TableFoot', 'TableHead', 'SimpleTable', 'Blocks',
  'Inlines', 'List', 'Block', 'Inline',
  -- constants
  'AlignCenter', 'AlignDefault', 'AlignLeft', 'AlignRight', 'AuthorInText', 'Decimal',
  'DefaultDelim', 'DefaultStyle', 'DisplayMath', 'DoubleQuote', 'Example', 'InlineMath',
  'LowerAlpha', 'LowerRoman', 'NormalCitation', 'OneParen', 'Period', 'SingleQuote',
  'SuppressAuthor', 'TwoParens', 'UpperAlpha', 'UpperRoman',
  -- pure helpers
  'walk_block', 'walk_inline', 'types',
}

local function make_pandoc_copy()
  local P = T.pandoc
  local out = {}
  for _, k in T.ipairs(PANDOC_ALLOWED) do out[k] = P[k] end
  out.utils = guard({
    stringify = P.utils.stringify,
    blocks_to_inlines = P.utils.blocks_to_inlines,
    type = P.utils.type,
    equals = P.utils.equals,
  }, 'pandoc.utils.', P.utils)
  out.json = guard({ encode = P.json.encode, decode = P.json.decode, null = P.json.null },
    'pandoc.json.', P.json)
  out.text = guard(copy(P.text), 'pandoc.text.', P.text)
  out.read = function(text, format, options)
    if T.type(text) ~= 'string' then forbid('pandoc.read of a ' .. T.type(text)) end
    format = check_format(format or 'markdown', READ_FORMATS, 'pandoc.read')
    return P.read(text, format, clean_options(options, READER_OPTION_KEYS, 'pandoc.read'))
  end
  out.write = function(doc, format, options)
    if P.utils.type(doc) ~= 'Pandoc' then
      T.error('pandoc.write expects a Pandoc document, got ' .. P.utils.type(doc), 2)
    end
    format = check_format(format or 'html', WRITE_FORMATS, 'pandoc.write')
    return P.write(doc, format, clean_options(options, WRITER_OPTION_KEYS, 'pandoc.write'))
  end
  return guard(out, 'pandoc.', P)
end

local function make_string_copy()
  return guard(copy(T.string, { dump = true }), 'string.', T.string)
end

-- pcall/xpcall/coroutine.resume that cannot swallow a passed limit.
local function sticky(...)
  if aborted then T.error(aborted, 0) end
  return ...
end

local function make_coroutine_copy()
  local C = T.coroutine
  local out = copy(C)
  out.create = function(f)
    local co = C.create(f)
    T.debug.sethook(co, hook, '', HOOK_COUNT)
    return co
  end
  out.wrap = function(f)
    local co = out.create(f)
    return function(...)
      local res = T.table.pack(C.resume(co, ...))
      if aborted then T.error(aborted, 0) end
      if not res[1] then T.error(res[2], 0) end
      return T.table.unpack(res, 2, res.n)
    end
  end
  out.resume = function(co, ...) return sticky(C.resume(co, ...)) end
  return guard(out, 'coroutine.', C)
end

local FORBIDDEN_GLOBALS = {
  'os', 'io', 'require', 'load', 'loadstring', 'dofile', 'loadfile', 'debug', 'package',
  'lpeg', 're', 'warn', 'module', 'setfenv', 'getfenv', 'PANDOC_STATE',
  'PANDOC_SCRIPT_FILE', 'PANDOC_READER_OPTIONS', 'PANDOC_WRITER_OPTIONS',
}

local function make_env()
  local env = {
    assert = T.assert, error = T.error, ipairs = T.ipairs, next = T.next, pairs = T.pairs,
    select = T.select, tonumber = T.tonumber, tostring = T.tostring, type = T.type,
    rawequal = T.rawequal, rawget = T.rawget, rawlen = T.rawlen, rawset = T.rawset,
    setmetatable = T.setmetatable,
    getmetatable = function(o)
      if T.type(o) == 'table' then return T.getmetatable(o) end
      return nil
    end,
    pcall = function(...) return sticky(T.pcall(...)) end,
    xpcall = function(...) return sticky(T.xpcall(...)) end,
    print = function() end,
    collectgarbage = function(opt, ...)
      if opt == nil or opt == 'collect' or opt == 'count' or opt == 'step' then
        return T.collectgarbage(opt, ...)
      end
      return 0
    end,
    string = make_string_copy(),
    table = copy(T.table),
    math = copy(T.math),
    utf8 = copy(T.utf8),
    coroutine = make_coroutine_copy(),
    pandoc = make_pandoc_copy(),
    PANDOC_VERSION = PANDOC_VERSION,
    PANDOC_API_VERSION = PANDOC_API_VERSION,
    FORMAT = FORMAT,
    _VERSION = _VERSION,
  }
  env._G = env
  local forbidden = {}
  for _, k in T.ipairs(FORBIDDEN_GLOBALS) do forbidden[k] = true end
  return T.setmetatable(env, {
    __index = function(_, k)
      if forbidden[k] or (T.type(k) == 'string' and T.rawget(real_G, k) ~= nil) then
        forbid(T.tostring(k))
      end
      return nil
    end,
    __metatable = false,
  })
end

-- Method calls on strings ("x"):rep(...) go through the string metatable; point it at a
-- read-only view of the string library without dump.
do
  local view = T.setmetatable({}, {
    __index = function(_, k)
      if k == 'dump' then forbid('string.dump') end
      return T.string[k]
    end,
    __newindex = function() T.error('strings are read-only', 2) end,
    __metatable = false,
  })
  T.getmetatable('').__index = view
end

-- ---------------------------------------------------------------------------

local ELEMENT_NAMES = {
  'Inline', 'Inlines', 'Block', 'Blocks', 'Meta', 'Pandoc',
  'Cite', 'Code', 'Emph', 'Image', 'LineBreak', 'Link', 'Math', 'Note', 'Quoted',
  'RawInline', 'SmallCaps', 'SoftBreak', 'Space', 'Span', 'Str', 'Strikeout', 'Strong',
  'Subscript', 'Superscript', 'Underline',
  'BlockQuote', 'BulletList', 'CodeBlock', 'DefinitionList', 'Div', 'Figure', 'Header',
  'HorizontalRule', 'LineBlock', 'OrderedList', 'Para', 'Plain', 'RawBlock', 'Table',
}

local function global_filter(env)
  local f = {}
  for _, name in T.ipairs(ELEMENT_NAMES) do
    local v = T.rawget(env, name)
    if T.type(v) == 'function' then f[name] = v end
  end
  local tr = T.rawget(env, 'traverse')
  if T.type(tr) == 'string' then f.traverse = tr end
  return f
end

local function read_file(path)
  local fh = T.io.open(path, 'rb')
  if not fh then return nil end
  local text = fh:read('a')
  fh:close()
  return text
end

local function meta_text(meta, key)
  local v = meta[key]
  if v == nil then return nil end
  return T.pandoc.utils.stringify(v)
end

local function one_line(s)
  s = s:gsub('%s+', ' ')
  if #s > 400 then s = s:sub(1, 400) .. '...' end
  return s
end

local function classify(err)
  if aborted then return aborted end
  local msg
  if T.type(err) == 'string' then
    msg = err
  elseif T.type(err) == 'userdata' then
    msg = T.tostring(err) -- pandoc's own error values (errors raised inside walk)
  else
    return 'filter error: an error value of type ' .. T.type(err)
  end
  msg = msg:gsub('\n?%s*stack traceback:.*$', '')
  local at = msg:find(RULE, 1, true)
  if at then return one_line((msg:sub(at):match('^[^\n]*'))) end
  if msg:find('not enough memory', 1, true) then return 'filter ran out of memory' end
  return 'filter error: ' .. one_line(msg)
end

local function fail(reason)
  T.error(MARK .. reason, 0)
end

local function run(doc)
  local meta = doc.meta
  local role = meta_text(meta, 'in2lambda_role') or 'questions'
  local filter_file = meta_text(meta, 'in2lambda_filter') or 'filter.lua'
  local name = (meta_text(meta, 'in2lambda_filter_name') or 'filter'):gsub('[^%w_.%-]', '_')
  time_limit = T.tonumber(meta_text(meta, 'in2lambda_time_limit') or '') or 20.0
  local mem_bytes = T.tonumber(meta_text(meta, 'in2lambda_memory_limit') or '')
  if mem_bytes then memory_kb = mem_bytes / 2 / 1024 end
  for _, key in T.ipairs({ 'in2lambda_filter', 'in2lambda_filter_name',
    'in2lambda_time_limit', 'in2lambda_memory_limit' }) do
    meta[key] = nil
  end
  doc.meta = meta

  local source = read_file(filter_file)
  if not source then fail('filter error: the filter file could not be read') end
  if source:sub(1, 1) == '\27' then fail(RULE .. 'bytecode is not available') end

  local input_text = nil
  local inputs = PANDOC_STATE.input_files
  if inputs and inputs[1] and inputs[1] ~= '-' then input_text = read_file(inputs[1]) end
  local script_dir = T.pandoc.path.directory(PANDOC_SCRIPT_FILE)
  local helper_source = read_file(T.pandoc.path.join({ script_dir, 'lib', 'sheet.lua' }))
  if not helper_source then fail('filter error: the helper module filters/lib/sheet.lua is missing') end

  clock0 = T.os.clock()
  wall0 = T.os.time()
  T.debug.sethook(hook, '', HOOK_COUNT)

  local ok, result = T.pcall(function()
    local helper_env = make_env()
    local make_sheet = T.assert(T.load(helper_source, '=sheet.lua', 't', helper_env))()
    local sheet = make_sheet({ source = input_text, role = role })

    local env = make_env()
    T.rawset(env, 'sheet', sheet)
    local chunk, err = T.load(source, '=' .. name, 't', env)
    if not chunk then
      if T.tostring(err):find('binary chunk', 1, true) then
        T.error(RULE .. 'bytecode is not available', 0)
      end
      T.error(err, 0)
    end
    local ret = chunk()
    local filters
    if T.type(ret) == 'table' and T.rawget(ret, 1) ~= nil then
      filters = ret
    elseif T.type(ret) == 'table' then
      filters = { ret }
    else
      filters = { global_filter(env) }
    end
    local out = doc
    for i = 1, #filters do
      local f = filters[i]
      if T.type(f) ~= 'table' then T.error('the filter list holds a ' .. T.type(f) .. ', not a filter table', 0) end
      out = out:walk(f)
      if T.pandoc.utils.type(out) ~= 'Pandoc' then
        T.error('the filter did not return a Pandoc document', 0)
      end
    end
    return out
  end)
  if aborted then fail(aborted) end
  if not ok then fail(classify(result)) end
  return result
end

return { { Pandoc = run } }
