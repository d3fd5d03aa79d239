--[[
general.lua: the general route B reader of the library (sheet2lambda), driven by the
markers it finds in the markdown (docs: the contract between conversion and the reader).

Questions open at
  * a heading naming a question: `Question 3`, `Problem 2.`, `Exercise 4 (5 pts), Title`,
    `Q1`, `Aufgabe 2`, `3) Title`, `1.1 Title` (title: the words after the number and
    any points); in the solutions role also `Solution N` / `Answer N`; also when it opens a
    fenced div that frames its question (`::: {.question}` over `#### Question 3`); a
    compound number the headings count in sequence (`## Exercise \#05-02: Title`); a
    one-item numbered list right under it restating its number (`3.  The data …`) is its text;
  * a paragraph opening with a bold marker: `**Question 3**`, `**Q1.**`,
    `**Problem 2.** (Title)`, `**Problem #3.4 in the book**` (a number sign is no part of
    the number; a marker that is all its question has is its main text); a bold label
    ending in that marker word with no number (`**Programming Problem.**`); after the
    last of them, a paragraph opening with a bold bonus label (`**Extra Credit. [1 point]**
    Show …`), titled by the label (anywhere, when the label names its problem: `**Extra
    Credit A.**`); `**Problem 2(a)**`, `**Problem 2(b)**`: parts a, b of question 2, and so
    `### Problem 1a`, `**Problem 1 b)**`, `**1(c)**`, `**1d)**`; a marker typed in fullwidth
    forms (`**Problem 1：**`) as in ASCII; a bold number sign and number (`**\#4**`);
    a bold sentence opening with a bare number (`**65 minutes. No book.**`) is none;
  * with neither in the document, a top-level ordered list item (one question each;
    a heading that is no marker before such a list is the group title of its
    questions; text between two lists leads into the next question, text under a
    section heading into the section's next question when sections group the
    questions, a remark before a heading ends the question before it;
    a list of capitals `A.` after a horizontal rule that ends such a list goes on as
    questions `A`, `B`, not parts of the last one), or — when
    numbered lists restart at 1 after paragraphs and the sheet never numbers its items
    as questions (a list resuming at N > 1, items with numbered lists of their own) —
    a paragraph followed by a numbered list of its parts;
  * in a solutions text, a paragraph opening `1(a)`, `2b)`: question 1 part a (a
    bold `**SOLUTION**` run-in and `**END**` that frame a key's answer are cut);
  * with no marker in the document, headings that are only a part label (`## a)`)
    make the headings one level up (`# Title`, unnumbered) questions: the heading
    layout of exercise pages (title: the heading text, attributes cut);
  * with no marker at all but headings that ask (text ending in `?`, one level, a
    LaTeX `\paragraph*{What is ...?}`) under two or more headings of a higher level: each
    section heading opens a question, each asking heading a part whose content starts
    with its question; a section that asks nothing is chrome.
  * with no question marker, a callout repeated word for word (a paragraph of bold text
    only, no number: `**✅ Do this**` before each activity of a course's notes): each opens
    a question, with the text since the heading above it; a heading ends it, and the
    lecture text between the activities is chrome.
A marker heading with nothing under it over deeper marker headings (`# Q2 Pool` over
`## 1.lambda`) is their group heading. A heading that is no marker (nor the sheet's title)
over deeper question headings or bold markers holds the group's stem (`## Questions 1-3`),
which leads into its first question. Bold markers numbered inside numbered headings
(`## 1. Title` over `**Question 1.1**`, or restarting at 1 under each) are the headings'
parts. A marker's "title" that is a sentence (`### Exercise 3 - Put together …`) is the
question's text; a short phrase before it (`Yearly Maxima.`) its title. In the list layout,
the lists whose numbers run on across interruptions number the questions, a list of another
numbering between them is text, and text set up before the first list (not under the
sheet's title) leads into it. Lecture notes that number definitions,
examples and exercises on one counter (`**Définition 9.**`, `**Exercice 11.**`): a numbered
block of another kind ends the question before it, and the notes up to the next question
are chrome.
A heading that is no marker ends the question before it (a title, a group heading, a
closing tip) unless it is deeper than the question's own heading; text outside every
question (title block, due date, instructions, points tables) is chrome.

Parts, inside a question: headings that are only a part label (`## a)`, `### (b)`; the
text under one is that part's), or the question's number and a label (`#### 2(a)`), or a
word the sheet repeats with labels in sequence (`### Step A`, `### Step B`); two or more
lines in a row each ending in a blank (`… _______`); nested or following ordered lists (any
numbering), paragraphs and hard-break lines opening with `(a)`, `a)`, `a.`, `(iv)` (also set
in bold, `**(a)**`; also right after a display closing on the line, `…$$ (i) Find`), bullets
like `* 1a (2pt) text`, bullets opening with labels in sequence (`- (a) Draw`) or with their
points (`- (5 points) Write`; points in the sheet's own unit too, `(1P)`, found where they
repeat), sub-headings of the level whose headings close with points (`## Training (3P)`),
`::: {.part}` divs (MyST's unnumbered exercise boxes). The outer labels are the part kind: a question opening at
`(i)` has roman parts and its `(a)`, `(b)` are sub-parts; lists and labels of another kind
(`(i)`, `(ii)` under `(c)`) are sub-parts and stay inside the part before them — unless a
label of the other kind starts mid-sequence and carries nothing on (`(a)`, then `(ii)`,
`(iii)`: the sheet mislabels a part), which is a part. Labels that start over at a label the
question has (`a)` … `f)`, then `a)`, `b)` again: hints) name those parts again.
Text between two parts is the lead-in of the next part (text that carries on the part
before it — starting in lower case, code, display maths — stays with that part, and so do
a part's notes and code cells up to its last code block, and short paragraphs the sheet
repeats: answer slots such as `_Your answer here._`); text after the last part ends that
part. With SHEET2LAMBDA_INLINE (a sheet that is its own solutions), what follows a part's
prompt is its solution. Task lists (`- [ ] option`, `- [x] option`) are
the options of the part they end, the `[x]` ones its correct options.

A numbered list headed by a short paragraph ending in a colon, an answer word among its first
two words (`Solutions:`, `Some answers:`), answers the numbered list before it in its section
item by item when both have as many items: each answer is read as a `solution` div of its item
(:func:`answered_lists`, before anything else); lists so answered are asked item by item: where
they are half or more of the lists restarting at 1, the sheet is no paragraph layout and each
item is a question (:func:`paragraph_layout`). A bullet list closing a question whose items each
ask something is its parts, after a lead-in ending in a colon too when every item asks a question
of its own (`- Does it hold? If not, …`) or ends in a colon before its answer (`- Remove the first
row:`; :func:`closing_prompts`).

One solution right after a list of two or more tasks none of which has its own answers
them all, and so do its continuations (a notebook's `Solution, Part 2` box).

Solutions (never left in a student-visible field): a fenced Div of class `solution` or
`answer`, an HTML `<div class="answer">` … `</div>` (HTML tags and `<br>` cut from its
lines, each line then a paragraph), a paragraph opening `Answer:` / `Final answer:`
(the final answer) or `Solution:` go to the part they follow (or the question's only
part) — unless the solution labels its pieces (`(a) …`, `\(b\) …`, `(i)(A) …`, one at a
line start each) with labels that all name parts of the question, when each piece goes
to its part; solution divs inside a sub-part list go to the part holding the list, whose
text keeps the sub-parts without them (a list item taken whole leaves its answer divs out); a section headed `Solutions` / `Answers` at the end
of the questions document is read as a solutions document and matched by number; a
`## Solution` heading (or one of class `solution`) inside a question opens that question's
solution, its `**(a)**` pieces matched to the parts by label, else by position (an
unlabelled solution goes to the first part). An `Answer:` / `ANSWER:` line with nothing
after it takes what follows, up to the next part, cell break or question; a list of True /
False answering the plain list just before it, one mark per item, makes that list the
part's options, the True ones correct (a quiz pool's answer cell). Notebook cell breaks
(`+++ {...}`) and lines holding only a wrapper shortcode (`{{< quote >}}`) are chrome;
`<br>` spacer paragraphs too. In the solutions role a paragraph naming its part
in words (`For part (a), …`, `Part (b): …`) opens that part, and a heading that names the
questions it answers anywhere in its text (`Réponse Q1.`, `Réponses Q5 et Q6`, `Orientation
(Q7).`, `(Q10a–b)`) gives the text under it to each question and part it names (a heading
naming a range, `(Q1–Q3)`, groups them and answers nothing). In the solutions role every part's
text is its worked solution (`Answer:` lines its final answer); a block quote at the top
of a solution, or everything before a `Solution` sub-heading, restates the question and
is dropped, and later block quotes (restated parts) open the parts.

With the global SHEET2LAMBDA_LAYOUT set (tasks/read/layout.py sets it when it weighs the
readings of a sheet), the layout is the one it names instead of the reader's own choice:
`mode` 'markers', 'headings' (`level`: every heading of that level opens a question),
'leaves' (`level`: the innermost sections are the questions: :func:`leaf_roles`),
'sections' (`level`: every heading of that level opens a part of the section above it),
'paragraphs', 'list', 'asking', 'whole' (the sheet one question) or 'closing' (`closing`: the
paragraph that closes each item, :func:`closed_items`); `words` are marker words
the sheet repeats with numbers (`Ejercicio 1`, `Ejercicio 2`), read as the question words are;
`plain` true: plain paragraphs opening with such a word and number (`Exercise 2. Find`) open
questions as bold markers do; `bold` true: headings open no question, only bold markers do.
With no question found at all, the sheet is one question with its text (its part labels its
parts), never an empty set.

With the global SHEET2LAMBDA_NUMBERING set to true (route B prepends it), the filter
emits the numbering instead of the fields: each question's title is its number as
printed ("" when none) and each part's content its label ("a", "2", "iv"; "" when none).

Every field is quoted from the markdown (sheet.text), cut only at line boundaries.
]]

local NUMBERING = SHEET2LAMBDA_NUMBERING == true
-- The sheet holds its solutions in place (the questions document is itself named as the
-- solutions and there is no other: tasks/read/choose.py sets it): what follows a part's
-- prompt (or a question's, when it has no parts) is its solution.
local INLINE = SHEET2LAMBDA_INLINE == true
local ROLE = 'questions'

-- The reading to give (tasks/read/layout.py chooses it by how well it explains the sheet):
-- `mode` one of 'markers', 'headings' (questions at heading `level`), 'paragraphs', 'list',
-- 'asking', 'whole' (one question), nil for the reader's own choice; `words`: marker words
-- found repeating in the sheet with numbers (`Ejercicio 1`, `Ejercicio 2`).
local LAYOUT = type(SHEET2LAMBDA_LAYOUT) == 'table' and SHEET2LAMBDA_LAYOUT or {}
local FOUND_WORDS = {}
for _, w in ipairs(LAYOUT.words or {}) do FOUND_WORDS[tostring(w):lower()] = true end

local trim = sheet.trim

local QUESTION_WORDS = {
  question = true, problem = true, exercise = true, task = true, aufgabe = true,
  exercice = true, q = true, ex = true, prob = true,
}
local SOLUTION_WORDS = { solution = true, answer = true, sol = true, ans = true }

local function is_question_word(w)
  w = w:lower()
  return QUESTION_WORDS[w] or FOUND_WORDS[w] or (ROLE == 'solutions' and SOLUTION_WORDS[w]) or false
end

-- The units a sheet writes its points in, found in the sheet (`(1P)`, `(1.5P)`, `(2 Pkt.)`
-- opening two or more bullets or closing two or more headings: :func:`discover_point_units`);
-- unit (lower case) → true. The English ones are known without it.
local POINT_UNITS = { pt = true, pts = true, point = true, points = true, mark = true, marks = true }

-- A mark of points, `(2P)`, `[1.5 pts]`: its unit (lower case), else nil.
local function points_unit(mark)
  local unit = mark:lower():match('^[%(%[]%s*%d+[%.,]?%d*%s*([%a\128-\255]+)%.?%s*[%)%]]$')
  return unit
end

-- points / marks after a marker: `(6 pts)`, `(10 pt)`, `[4 marks]`, `(10 points)`, `(1.5P)`
local function strip_points(s)
  s = trim(s)
  local changed = true
  while changed do
    changed = false
    for _, pat in ipairs({
      '^%(%s*%d+[%.,]?%d*%s*[%a\128-\255%.]*%s*%)%s*', '^%[%s*%d+[%.,]?%d*%s*[%a\128-\255%.]*%s*%]%s*',
      -- in emphasis inside the brackets: `(*4 pts*)` (a points macro's `\emph`)
      '^%(%*%s*%d+[%.,]?%d*%s*[%a\128-\255%.]*%s*%*%)%s*',
    }) do
      local a, b = s:find(pat)
      if a then
        local inner = s:sub(a, b):lower()
        if inner:match('pt') or inner:match('point') or inner:match('mark') or inner:match('^[%(%[]%s*%d+%s*[%)%]]')
          or POINT_UNITS[points_unit(trim(inner)) or ''] then
          s = trim(s:sub(b + 1)); changed = true
        end
      end
    end
  end
  return s
end

local function words_in(s)
  local _, n = s:gsub('%S+', '')
  return n
end

-- The title after a marker's number, and the prompt when the "title" is the question
-- itself: a sentence (three words or more ending in `.`, `?` or `!`, or sentences ending
-- in a colon that leads into a list: `Exercise 3 - Put
-- together a data set that …`) is the question's prompt, its main text, and the title is
-- empty (also with an answer format in brackets after it, `(True/False)`); a short leading phrase before it (four words at most,
-- `Yearly Maxima. How many …`) names the question and stays its title.
local function clean_title(rest)
  rest = trim(rest):gsub('^[%.:%)]%s*', '')
  rest = strip_points(rest)
  rest = trim(rest:gsub('^[,:;%-]%s*', ''):gsub('^\u{2014}%s*', ''):gsub('^\u{2013}%s*', ''))
  -- (an answer format after the sentence, `… doubles its frequency. (True/False)`, is the
  -- prompt's too)
  local bare = trim((rest:gsub('%s*%b()$', '')))
  if (rest:match('[%.%?!]$') or rest:match('[%.%?!]%s+%S.*:$') or (bare ~= rest and bare:match('[%.%?!]$')))
      and words_in(rest) >= 3 then
    local first, after = rest:match('^(.-[%.%?!])%s+([%u%$`%*_].*)$')
    if first and first:match('%.$') and words_in(first) <= 4 then
      return trim((first:gsub('%.$', ''))), after
    end
    return '', rest
  end
  rest = rest:gsub('[%.:]$', '')
  return trim(rest), ''
end

-- Words that head an answer (`Answers Q2 and Q3`, `Réponse Q1`), never a qualifier of a
-- question marker.
local ANSWER_WORDS = {}
for _, w in ipairs({ 'answer', 'answers', 'solution', 'solutions', 'réponse', 'réponses', 'lösung', 'lösungen',
  'solución', 'soluciones', 'risposta', 'risposte', 'antwort', 'antworten' }) do ANSWER_WORDS[w] = true end

-- Compound numbers the sheet's headings count in sequence (`## Exercise #05-01`, `## Exercise
-- #05-02`: a sheet number, a hyphen, the exercise's number): `word prefix` (lower case) → true,
-- found by :func:`discover_compounds`. One such heading alone (`## Exercises 1-7`, a range) is no
-- marker.
local COMPOUND = {}

-- A heading text's compound number: word, prefix, number (integers), rest; nil when none.
local function compound_of(text)
  text = text:gsub('^([%a\128-\255]+)%s+\\?#%s*(%d)', '%1 %2')
  local w, p, n, rest = text:match('^([%a\128-\255]+)%s*(%d+)%-(%d+)(.*)$')
  if w and (rest == '' or rest:match('^[%s%.:%),;]')) then return w, tonumber(p), tonumber(n), rest end
  return nil
end

-- A marker text (a heading's text, a bold run): number, title; nil when none.
local function marker_of(text)
  -- a no-break space is a space to the reader (Word puts one between `Question 1` and
  -- its points: `Question 1 (30 points)`)
  text = trim((text:gsub('\u{A0}', ' ')))
  -- fullwidth forms are their ASCII characters (`Problem 1：`, `Ｑ２`: typed with a CJK input
  -- method), an ideographic space a space
  text = trim((text:gsub('\u{3000}', ' '):gsub('\xEF[\xBC\xBD][\x80-\xBF]', function(c)
    local cp = utf8.codepoint(c)
    if cp >= 0xFF01 and cp <= 0xFF5E then return string.char(cp - 0xFEE0) end
  end)))
  -- a number sign before the number is no part of it: `Problem #3.4`, `Problem No. 2`,
  -- nor of a bare number: `#4` (a textbook exercise's number set in bold, `**\#4**`)
  text = text:gsub('^\\?#%s*(%d)', '%1')
  text = text:gsub('^([%a\128-\255]+)%s+\\?#%s*(%d)', '%1 %2'):gsub('^([%a\128-\255]+)%s+[Nn][or]%.%s*(%d)', '%1 %2')
  local cw, cp, cn, crest = compound_of(text)
  if cw and is_question_word(cw) and COMPOUND[cw:lower() .. ' ' .. cp] then
    return text:match('^[%a\128-\255]+%s*(%d+%-%d+)'), clean_title(crest)
  end
  local word, num, rest = text:match('^([%a\128-\255]+)%.?%s*(%d+[%.%d]*%a?)(.*)$')
  -- `Problem 1a`, `Problem 1b)`, `Problem 1 (c)`, `Problem 1 d)`: part a of question 1 named
  -- in the marker, as `Problem 2(a)` below (one question, its parts a, b …)
  if word and is_question_word(word) then
    local n, l, after = text:match('^[%a\128-\255]+%.?%s*(%d+)(%l)%)?(.*)$')
    if not n then n, l, after = text:match('^[%a\128-\255]+%.?%s*(%d+)%s+%(?(%l)%)(.*)$') end
    if n and (after == '' or after:match('^[%s%.:,;]')) then return n .. '(' .. l .. ')', clean_title(after) end
  end
  if word and is_question_word(word) and (rest == '' or rest:match('^[%s%.:%),;]')) then
    return (num:gsub('%.$', '')), clean_title(rest)
  end
  -- `Problem 2(a)`: part (a) of question 2 named in the marker (a sheet with no stem for
  -- question 2 marks each of its parts so); the number keeps the label (`2(a)`)
  local part, after = (rest or ''):match('^%((%l)%)(.*)$')
  if word and is_question_word(word) and part and num:match('^%d+$') and (after == '' or after:match('^[%s%.:,;]')) then
    return num .. '(' .. part .. ')', clean_title(after)
  end
  -- a qualifier before the question word, both capitalised as a label is: `Optional
  -- Question 1`, `Bonus Problem 3` (not a citation such as `Taylor exercise 1.39`)
  -- (an answer word is no qualifier: `Answers Q2 and Q3` names the questions it answers)
  local word1, word2
  word1, word2, num, rest = text:match('^(%u[%a\128-\255]*)%s+(%u[%a\128-\255]*)%.?%s*(%d+%a?)(.*)$')
  if word2 and is_question_word(word2) and not is_question_word(word1) and not ANSWER_WORDS[word1:lower()]
    and (rest == '' or rest:match('^[%s%.:%),;]')) then
    return (num:gsub('%.$', '')), clean_title(rest)
  end
  local delim
  num, delim, rest = text:match('^(%d+[%.%d]*)([%.%):]?)%s+(.*)$')
  -- a title may start with a number when a delimiter closes the marker (`1. 2021 Season`);
  -- `1.5 2.5` is no marker
  -- (a bold sentence that opens with a bare number is no marker: `**65 minutes. No book.**`)
  if num and (not rest:match('^%d') or delim ~= '' or num:match('^%d+%.$'))
    and not (delim == '' and num:match('^%d+$') and rest:match('%.%s')) then
    return (num:gsub('%.$', '')), clean_title(rest)
  end
  num = text:match('^(%d+[%.%d]*)[%.%):]?$')
  if num then return (num:gsub('%.$', '')), '' end
  -- `1.lambda`: a number run into its title (a quiz pool's variant name)
  num, rest = text:match('^(%d+)%.(%a[%w%-]*)$')
  if num then return num, rest end
  return nil
end

local function heading_text(h)
  -- (a heading opening with a line break, as Word writes one, starts on its next line:
  -- `\` ⏎ `Exercise 2: Title` ⏎ `-----`)
  local lines = sheet.lines(sheet.text_of(h))
  local text = lines[1] or ''
  if trim(text) == '\\' and lines[2] then text = lines[2] end
  text = text:gsub('^%s*#+%s*', ''):gsub('%s*#+%s*$', ''):gsub('%s*{[^}]*}%s*$', '')
  return trim(text)
end

local function heading_marker(h)
  -- `bold`: only bold openings open questions here (a solutions document read in the
  -- marker kind of its questions)
  if LAYOUT.bold then return nil end
  return marker_of(heading_text(h))
end

local function is_solutions_heading(h)
  local t = heading_text(h):lower()
  return (t:match('^solutions?%f[%W]') or t:match('^answers?%f[%W]') or t:match('^worked solutions?%f[%W]')) ~= nil
end

-- `**Question 3** rest`: number, title, rest of the paragraph's text; nil when none.
local function plain_marker(b)
  local text = sheet.text_of(b)
  local word, num, rest = text:match('^([%a\128-\255]+)%.?[ \t]*(%d+)[%.:%)][ \t]*(.*)$')
  if word and FOUND_WORDS[word:lower()] then return num, '', rest, '' end
  -- `1. A SNP …`, `2) Write …`: a typed number (pandoc writes `1\.`), when the sheet's
  -- paragraphs open so in sequence (tasks/read/discovery.py names them `#`)
  num, rest = text:match('^(%d+)\\?[%.%)][ \t]+(.*)$')
  if num and FOUND_WORDS['#'] then return num, '', rest, '' end
  return nil
end

local function bold_marker(b)
  if (b.t == 'Para' or b.t == 'Plain') and b.content[1] and b.content[1].t ~= 'Strong' and LAYOUT.plain then
    -- `Exercise 2. Find ...`: a plain opening with a marker word the sheet repeats
    return plain_marker(b)
  end
  if (b.t ~= 'Para' and b.t ~= 'Plain') or not b.content[1] or b.content[1].t ~= 'Strong' then
    return nil
  end
  local bold = pandoc.utils.stringify(b.content[1])
  local num, title, prompt = marker_of(bold)
  if not num then
    -- `**1(a)**`, `**1a)**`: a bold label naming question 1's part a, the whole bold run
    local n, l = trim(bold):match('^(%d+)%s*%((%l)%)[%.:]?$')
    if not n then n, l = trim(bold):match('^(%d+)(%l)[%)%.:]?$') end
    if n then num, title, prompt = n .. '(' .. l .. ')', '', '' end
  end
  if not num then return nil end
  local text = sheet.text_of(b)
  if prompt and prompt ~= '' then
    -- the prompt as the sheet writes it (its code spans, maths), from inside the bold
    local inner = text:match('^%*%*(.-)%*%*') or text:match('^__(.-)__')
    local _, t2, p2 = marker_of(inner or '')
    if p2 and p2 ~= '' then title, prompt = t2, p2 end
  end
  local rest = text:match('^%*%*.-%*%*(.*)$') or text:match('^__.-__(.*)$') or ''
  rest = rest:gsub('^[ \t]*[%.:]?[ \t]*', '')
  if title == '' then
    local paren, after = rest:match('^%(([^%)]*)%)[ \t]*(.*)$')
    -- `(a)`, `(iii)` after the marker is the first part's label, not a title
    if paren and not strip_points('(' .. paren .. ')'):match('^$') and not paren:match('^%l$')
      and not paren:match('^[ivx]+$') and not paren:match('^%u$') then
      title, rest = trim(paren), after
    end
  end
  rest = strip_points(rest)
  return num, title, rest, prompt or ''
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

-- The bold text a line opens with and the rest of the line: `**(a)**`, `__b)__`, and HTML bold
-- as the sheet writes it (`<b>A</b>`) or pandoc keeps it (`` `<b>`{=html}A`</b>`{=html} ``). A
-- single letter whose period or parenthesis follows the bold (`**A**.`, `<b>B</b>.`) comes back
-- with it (`A.`), as `**A.**` would. nil when the line opens no bold, or when it sets the
-- next letter so further on (choices listed inline).
local function bold_opening(s)
  local inner, after = s:match('^%*%*([^%*]+)%*%*(.*)$')
  if not inner then inner, after = s:match('^__([^_]+)__(.*)$') end
  if not inner then
    for _, tag in ipairs({ 'b', 'strong' }) do
      for _, raw in ipairs({ '`%s`{=html}', '%s' }) do
        local open, close = raw:format('<' .. tag .. '>'), raw:format('</' .. tag .. '>')
        if not inner and s:sub(1, #open) == open then
          local stop = s:find(close, #open + 1, true)
          if stop then inner, after = s:sub(#open + 1, stop - 1), s:sub(stop + #close) end
        end
      end
    end
  end
  if inner and inner:match('^%a$') and after:match('^[%.%)]') then
    -- the next letter set so further on the same line (`**A**. … <br> **B**. …`): the line
    -- lists choices inline, it opens no part
    local nxt = string.char(inner:byte() + 1)
    if after:find('**' .. nxt .. '**' .. after:sub(1, 1), 1, true)
        or after:find('<b>' .. nxt .. '</b>' .. after:sub(1, 1), 1, true) then
      return nil
    end
    inner, after = inner .. after:sub(1, 1), after:sub(2)
  end
  return inner, after
end

local function line_label(line)
  local s = line:gsub('^%s+', '')
  if ROLE == 'solutions' then
    -- a solution naming the part it answers in words: `For part (a), …`, `Part (b): …`
    -- (the words stay: they are the solution's sentence)
    local named = s:match('^[Ff]or [Pp]art %((%l+)%)') or s:match('^[Pp]art %((%l+)%)')
      or s:match('^[Pp]art (%l)[:%.%)]')
    if named and (#named == 1 or ROMAN_SET[named]) then
      return named, s, (#named == 1 and not ROMAN_SET[named]) and 'alpha' or (#named == 1 and 'alpha_or_roman' or 'roman')
    end
  end
  -- `**(a)**`, `__b)__`: a label set in bold (a class's `\part` macro, a house style),
  -- followed by a space or a no-break space
  local inner, after = bold_opening(s)
  if inner and (inner:match('^%(%w+%)$') or inner:match('^%l+[%.%)]$')) then
    after = after:gsub('^\u{A0}', ''):gsub('^%s+', '')
    s = inner .. ' ' .. after
  elseif inner and (inner:match('^%(%u%)$') or inner:match('^%u[%.%)]$')) then
    -- `**A.**`, `**(B)**`: a capital letter set in bold opens a part as a small one does
    -- (its label read in lower case, so `A`, `B`, `C` step as `a`, `b`, `c`)
    after = after:gsub('^\u{A0}', ''):gsub('^%s+', '')
    s = inner:lower() .. ' ' .. after
  end
  -- `\(a\)`: the escaped parentheses pandoc writes for a typed `(a)` (Word)
  local el, erest = s:match('^\\%((%w+)\\%)%s*(.*)$')
  if el then s = '(' .. el .. ') ' .. erest end
  -- `a\)`: `a)` as pandoc escapes it at a line start
  local ol, orest = s:match('^(%l+)\\%)%s*(.*)$')
  if ol then s = ol .. ') ' .. orest end
  -- `a\.`: a typed `a.` as pandoc escapes it (a notebook's or Word's own letters)
  local dl, drest = s:match('^(%l)\\%.%s+(.*)$')
  if dl then s = dl .. '. ' .. drest end
  local l, rest = s:match('^%((%l+)%)%s*(.*)$')
  if not l then l, rest = s:match('^(%l+)%)%s*(.*)$') end
  if not l then
    l, rest = s:match('^(%l)%.%s+(.*)$')
    if not l then l, rest = s:match('^([ivx]+)%.%s+(.*)$') end
    -- `a.(4 points) What …`: the label run into the points after it, with no space
    if not l then l, rest = s:match('^(%l)%.(%(%s*%d+%s*%a*%s*%).*)$') end
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

-- Words that open two or more headings of one level, each the word and a label only,
-- the labels in sequence from the first (`### Step A`, `### Step B`): the sheet's own
-- sub-question headings (lower case word → true). Set per document (:func:`Pandoc`).
local PART_WORDS = {}

-- Heading texts the knitted document computes (only inline R code, `` `r ctrQ()` ``), at
-- a level where they come two or more times: the sheet's numbered sub-question headings,
-- whose numbers the source never writes (text .. level → true). Set per document.
local GENERATED = {}

-- `Step A`, `Part 2`: word (lower case), label, form; nil for any other text.
local function word_label(text)
  local w, l = text:match('^([%a\128-\255]+)%s+(%u)[%.:]?$')
  if not w then w, l = text:match('^([%a\128-\255]+)%s+(%l)[%.:]?$') end
  if w then return w:lower(), l:lower(), 'alpha' end
  w, l = text:match('^([%a\128-\255]+)%s+(%d%d?)[%.:]?$')
  if w then return w:lower(), l, 'digit' end
  return nil
end

-- A heading that is only a part label (`## a)`, `### (b)`, `## c.`), or a question's
-- number with one (`#### 2(a)`, `#### 2b`: the sub-question of question 2), or a word the
-- sheet repeats with labels in sequence and a label (`### Step A`: :data:`PART_WORDS`);
-- attributes such as `{.homework}` already cut: label, form; nil for any other heading.
local function part_heading(h)
  if h.t ~= 'Header' then return nil end
  local text = heading_text(h)
  local label, rest, form = line_label(text)
  if not label then label, rest, form = line_label((text:gsub('^(%l)%.$', '%1. '))) end
  if label and trim(rest or '') == '' then return label, form end
  local l = text:match('^%d+%s*%((%l)%)$') or text:match('^%d+(%l)%)?$')
  if l then return l, 'alpha' end
  local w, wl, wform = word_label(text)
  if w and PART_WORDS[w] then return wl, wform end
  -- (no label the source writes: the parts pair in order)
  if GENERATED[text .. '\0' .. h.level] then return '', 'digit' end
  return nil
end

local function discover_generated(blocks)
  local seen, out = {}, {}
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      local text = heading_text(b)
      if text:match('^`r [^`]+`$') then
        local key = text .. '\0' .. b.level
        seen[key] = (seen[key] or 0) + 1
        if seen[key] >= 2 then out[key] = true end
      end
    end
  end
  return out
end

local function discover_part_words(blocks)
  local seen = {}  -- word .. level → labels in order
  local function visit(bs)
    for _, b in ipairs(bs) do
      if b.t == 'Header' then
        local w, l = word_label(heading_text(b))
        if w then
          local key = w .. '\0' .. b.level
          seen[key] = seen[key] or { word = w, labels = {} }
          table.insert(seen[key].labels, l)
        end
      elseif b.t == 'Div' then
        visit(b.content)
      end
    end
  end
  visit(blocks)
  local out = {}
  for _, v in pairs(seen) do
    local ls = v.labels
    local ok = #ls >= 2 and (ls[1] == 'a' or ls[1] == '1')
    for i = 2, #ls do
      local a, b = ls[i - 1], ls[i]
      local next_one = (tonumber(a) and tonumber(b) == tonumber(a) + 1)
        or (#a == 1 and #b == 1 and b:byte() == a:byte() + 1)
      -- a run restarts under the next question (`Step A` again)
      if not next_one and not (b == 'a' or b == '1') then ok = false end
    end
    if ok then out[v.word] = true end
  end
  return out
end

-- A heading that opens a question's solutions: `Solution`, `Answers`, `Worked solution`
-- as its text, or a class `solution` / `answer` on it (`## Solution {.solution}`).
local function solution_heading(h)
  if h.t ~= 'Header' then return false end
  for _, c in ipairs(h.classes) do
    if c == 'solution' or c == 'answer' or c == 'solutions' or c == 'answers' then return true end
  end
  return is_solutions_heading(h)
end

-- A heading that is only an answer word (`#### Solution:`, `## Answer`, `### Lösung`): in a
-- solutions document it opens the answer of the question it stands under, whatever its level
-- (a question opened by a bold `**Question 3.**` paragraph, restated, then its answer under a
-- notebook heading), never a section of its own.
local function bare_answer_heading(h)
  if h.t ~= 'Header' then return false end
  local t = trim(heading_text(h):lower():gsub('[%s%p]+$', ''))
  return ANSWER_WORDS[t] == true
end

-- Does label `b` come right after `a` (`a`→`b`, `i`→`ii`, `1`→`2`)?
local function sequence_step(a, b)
  if a:match('^%d+$') and b:match('^%d+$') then return tonumber(b) == tonumber(a) + 1 end
  if ROMAN_SET[a] and ROMAN_SET[b] and ROMAN_SET[b] == ROMAN_SET[a] + 1 then return true end
  return #a == 1 and #b == 1 and b:byte() == a:byte() + 1
end

-- A text opening with its points (`(5 points) Write`, `[2 marks] Name`): the rest, else nil.
local function points_opening(text)
  local mark, rest = text:match('^([%(%[]%s*%d+[%.,]?%d*%s*[%a\128-\255]+%.?%s*[%)%]])%s*(.*)$')
  if not mark then return nil end
  if POINT_UNITS[points_unit(mark) or ''] then return rest end
  return nil
end

-- The units of points marks the sheet repeats where points go: opening list items (`- (1P)
-- Zeichnen …`) or closing headings (`## Training (3P)`), two or more times in all — whatever
-- the language's word or letter for points. Adds them to POINT_UNITS.
local function discover_point_units(blocks)
  local n = {}
  local function count(mark)
    local u = mark and points_unit(mark)
    if u and #u <= 8 then n[u] = (n[u] or 0) + 1 end
  end
  local function visit(bs)
    for _, b in ipairs(bs) do
      if b.t == 'Header' then
        count(trim(pandoc.utils.stringify(b.content)):match('([%(%[][^%(%[]*[%)%]])$'))
      elseif b.t == 'BulletList' or b.t == 'OrderedList' then
        for _, item in ipairs(b.content) do
          if item[1] and (item[1].t == 'Para' or item[1].t == 'Plain') then
            count(trim(pandoc.utils.stringify(item[1])):match('^([%(%[][^%)%]]*[%)%]])'))
          end
          visit(item)
        end
      elseif b.t == 'Div' or b.t == 'BlockQuote' then
        visit(b.content)
      end
    end
  end
  visit(blocks)
  for u, k in pairs(n) do if k >= 2 then POINT_UNITS[u] = true end end
end

-- The heading level at which headings close with their points two or more times under a
-- shallower heading (`## Datensatz (1P)`, `## Training (3P)` under `# …03: Title (6P)`):
-- graded sections, so every heading of that level inside a question opens a part; nil when
-- none.
local POINTED_LEVEL = nil
local function discover_pointed_level(blocks)
  local n, top = {}, nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      top = top and math.min(top, b.level) or b.level
      local mark = trim(pandoc.utils.stringify(b.content)):match('([%(%[][^%(%[]*[%)%]])$')
      if mark and b.level > top and POINT_UNITS[points_unit(mark) or ''] then n[b.level] = (n[b.level] or 0) + 1 end
    end
  end
  for level, k in pairs(n) do
    if k >= 2 and (not POINTED_LEVEL or level < POINTED_LEVEL) then POINTED_LEVEL = level end
  end
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
  local l = t:lower() -- `ANSWER:` as well as `Answer:` (ASCII case only: same byte offsets)
  for _, pat in ipairs({ '^%**final answers?%**%s*:%**%s*', '^%**answers?%**%s*:%**%s*', '^%**ans%.?%**%s*:%**%s*' }) do
    local _, e = l:find(pat)
    if e then return t:sub(e + 1) end
  end
  return nil
end

-- A notebook cell break as MyST / Jupytext writes it: `+++` alone or followed by the
-- cell's JSON metadata (`+++ {"ctype": "answer"}`). Chrome: it ends an open answer.
local function is_cell_break(line)
  local t = trim(line)
  return t:match('^%+%+%+$') ~= nil or t:match('^%+%+%+%s*{.*}$') ~= nil
end

-- Shortcodes that wrap text (`{{< span … >}}` … `{{< /span >}}`, `{{% note %}}` …
-- `{{% /note %}}`): the names closed somewhere in the document.
local closed_shortcodes = nil

local function is_wrapper_shortcode(line)
  local open, name = trim(line):match('^{{([<%%])%s*/?%s*([%w_%-]+)[^}]*[>%%]}}$')
  if not open then return false end
  if closed_shortcodes == nil then
    closed_shortcodes = {}
    for n in (sheet.source or ''):gmatch('{{[<%%]%s*/%s*([%w_%-]+)') do closed_shortcodes[n] = true end
  end
  return closed_shortcodes[name] == true
end

-- A bullet list of True / False only (one per option of the list before it): the
-- marks of a multiple-choice answer; the list of booleans, else nil.
local function true_false(b)
  if b.t ~= 'BulletList' or #b.content == 0 then return nil end
  local out = {}
  for _, item in ipairs(b.content) do
    if #item ~= 1 or (item[1].t ~= 'Plain' and item[1].t ~= 'Para') then return nil end
    local w = trim(pandoc.utils.stringify(item[1])):lower()
    if w == 'true' then out[#out + 1] = true elseif w == 'false' then out[#out + 1] = false else return nil end
  end
  return out
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

-- A paragraph ending in an answer blank (`… _______`, `\_\_\_`, `$\underline{\qquad}$`).
local function ends_in_blank(t)
  t = t:gsub('%s+$', '')
  return t:match('\\_\\_\\_$') ~= nil or t:match('___$') ~= nil
    or t:match('%$\\underline{\\qquad}%$$') ~= nil
end

-- Paragraphs ending in a blank that come two or more in a row: each is an answer slot of
-- its own (`*How many survived?* _______` under "answer the following questions"), a part
-- of the question (text → true; set per document by :func:`Pandoc`).
local BLANK_RUNS = {}

local function find_blank_runs(blocks)
  local out = {}
  local function visit(bs)
    local run = {}
    local function close()
      if #run >= 2 then for _, t in ipairs(run) do out[t] = true end end
      run = {}
    end
    for _, b in ipairs(bs) do
      local t = (b.t == 'Para' or b.t == 'Plain') and trim(sheet.text_of(b)) or nil
      if t and ends_in_blank(t) and not t:find('\n') then
        run[#run + 1] = t
      else
        close()
        if b.t == 'Div' or b.t == 'BlockQuote' then visit(b.content) end
      end
    end
    close()
  end
  visit(blocks)
  return out
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

-- Does the text just before a part's trailing bullet list ask for a choice among its items
-- (`Which of these holds?`, `Choose the best estimate:`)? Only then are unmarked bullets
-- the part's choices; after `Do this with:` or `Plot versus time:` they are what the part
-- asks to do, its text.
local CHOICE_WORDS = { 'which', 'choose', 'select', 'circle', 'pick', 'tick', 'true or false',
  'quel', 'quelle', 'quels', 'quelles', 'welche', 'welcher', 'welches', 'cuál', 'cual' }
local function asks_choice(text)
  local t = trim(text or '')
  if t:match('%?$') then return true end
  -- `…, which will do the following:` relates, it asks nothing (a relative clause after a comma)
  t = t:gsub(',%s*[Ww]hich%f[%A]', ',')
  local low = ' ' .. t:lower():gsub('[%p%s]+', ' ') .. ' '
  for _, w in ipairs(CHOICE_WORDS) do
    if low:find(' ' .. w .. ' ', 1, true) then return true end
  end
  return false
end

-- A bullet list whose items each ask something: one paragraph each, a sentence of four
-- words or more (`- Interpret the slope in context.`, `- Does the intercept mean anything?`),
-- or every item a request of its own that ends in a colon, the answer to follow it (`- Return
-- the second column using `[]`:`, opening with a capital: no continuation of the lead-in), no
-- item opening with a bold or linked word (`- **Null:** …`, `- [AE 3](…)`): the items' texts
-- and whole items (`own`: each ends in a colon), else nil. They are parts when they close a
-- question (:func:`closing_prompts`).
local function prompt_items(b)
  if b.t ~= 'BulletList' or #b.content < 2 then return nil end
  local out, colons = {}, true
  for _, item in ipairs(b.content) do
    if #item ~= 1 or (item[1].t ~= 'Plain' and item[1].t ~= 'Para') then return nil end
    local t = trim(sheet.text_of(item[1]))
    if not (t:match(':$') and t:match('^%u')) then colons = false end
    if words_in(t) < 4 or not t:match('[%.%?!:]$') or t:match('^[%*_%[]') then return nil end
    out[#out + 1] = { text = t, whole = sheet.text(item) }
  end
  for _, p in ipairs(out) do
    if not colons and p.text:match(':$') then return nil end
    p.own = colons
  end
  return out
end

-- Is this list item one paragraph set wholly in bold? (`1. ***Z-test***`)
local function bold_item(item)
  if #item ~= 1 or (item[1].t ~= 'Plain' and item[1].t ~= 'Para') then return false end
  local strong = false
  local function only_bold(inlines, under_strong)
    for _, x in ipairs(inlines) do
      if x.t == 'Strong' then strong = true
        if not only_bold(x.content, true) then return false end
      elseif x.t == 'Emph' then
        if not only_bold(x.content, under_strong) then return false end
      elseif x.t == 'Space' or x.t == 'SoftBreak' or x.t == 'LineBreak' then
      elseif x.t == 'Str' and x.text == '\\' and not under_strong then
        -- a hard break's backslash at the paragraph's end, where it is kept as text
      elseif not under_strong then return false end
    end
    return true
  end
  return only_bold(item[1].content, false) and strong
end

-- An option's text as written, its emphasis markers cut when the whole option is set in
-- bold (the key's mark, not the option's words) and a trailing hard break cut.
local function option_text(text, bold)
  text = trim(text):gsub('%s*\\$', '')
  if bold then
    local inner = text:match('^[%*_]+(.-)[%*_]+$')
    if inner and trim(inner) ~= '' then text = trim(inner) end
  end
  return text
end

-- The words of a truth value a choice may be typed as (`T / F`, `True/False`, `Yes/No`).
local TRUTH_WORDS = { ['true'] = true, ['false'] = true, ['t'] = true, ['f'] = true, ['yes'] = true, ['no'] = true }

-- A part opening with its answer choices in brackets, `( T / F ) statement`,
-- `(True / False) …`, `[Yes/No] …`, or typed bare as a pair of truth words (`T / F If …`,
-- `True/False: …`): the alternatives (two to four, a word or two each, separated by `/`),
-- which of them are set in bold (a key's mark), the rest of the text, and whether they were
-- typed bare (true); nil otherwise.
local function inline_choices(text)
  local t = trim(text or '')
  local inside, rest = t:match('^%(%s*([^%(%)]-)%s*%)%s+(%S.*)$')
  if not inside then inside, rest = t:match('^%[%s*([^%[%]]-)%s*%]%s+(%S.*)$') end
  if not inside then
    -- typed with no brackets (`T / F If …`, `True/False: …`): only a pair of truth words,
    -- each as written, and the statement after them
    local a, b, after = t:match('^(%a+)%s*/%s*(%a+)%s*[:%.]?%s+(%S.*)$')
    if a and TRUTH_WORDS[a:lower()] and TRUTH_WORDS[b:lower()] and a:lower():sub(1, 1) ~= b:lower():sub(1, 1) then
      return { a, b }, { false, false }, after, true
    end
  end
  if not inside or not inside:find('/', 1, true) then return nil end
  local alts, bold = {}, {}
  for alt in (inside .. '/'):gmatch('%s*(.-)%s*/') do
    local plain = alt:gsub('[%*_]', '')
    if plain == '' or #plain > 12 or not plain:match('^%a[%a ]*$') or words_in(plain) > 2 then return nil end
    alts[#alts + 1] = plain
    bold[#bold + 1] = alt:match('^%*%*') ~= nil or alt:match('^__') ~= nil
  end
  if #alts < 2 or #alts > 4 then return nil end
  return alts, bold, rest
end

-- Parts that open with the same bracketed choices (`( T / F ) statement`; two parts or
-- more: the sheet's way of setting out true/false items), or a part opening with a bare typed
-- pair of truth words (`T / F If …`: its choices, whatever its neighbours), hold them as their
-- options, the statement as their content. In a key the alternative set in bold is the right one, and
-- the statement it restates is no solution.
local function inline_choice_parts(parts)
  local count = {}
  for _, p in ipairs(parts) do
    local alts = #p.options == 0 and inline_choices(p.texts[1]) or nil
    if alts then
      local key = table.concat(alts, '/'):lower()
      count[key] = (count[key] or 0) + 1
    end
  end
  for _, p in ipairs(parts) do
    local alts, bold, rest, typed = nil, nil, nil, nil
    if #p.options == 0 then alts, bold, rest, typed = inline_choices(p.texts[1]) end
    if alts and (typed or count[table.concat(alts, '/'):lower()] >= 2) then
      p.options, p.texts[1] = alts, rest
      if ROLE == 'solutions' or INLINE then
        local marked = {}
        for i, b in ipairs(bold) do if b then marked[#marked + 1] = i - 1 end end
        if #marked > 0 and #marked < #alts then
          p.correct = marked
          if ROLE == 'solutions' then table.remove(p.texts, 1) end
        end
      end
    end
  end
end

-- A paragraph opening with a bonus label and a colon (`Extra Credit: Rewrite …`,
-- `**A lot of Extra Credit** +10: Output …`, `Bonus: …`): the label and the rest, else nil.
local BONUS_WORDS = { 'extra credit', 'bonus question', 'bonus', 'challenge', 'extra' }
local function bonus_label(text)
  local head, rest = trim(text or ''):match('^([^:\n]-):%s*(%S.*)$')
  if not head or #head > 50 then return nil end
  local plain = trim((head:gsub('[%*_]', ''):gsub('%+%s*%d+', ''):gsub('%b()', '')))
  local low = plain:lower()
  if words_in(low) > 5 then return nil end
  for _, w in ipairs(BONUS_WORDS) do
    if low == w or low:sub(-#w - 1) == ' ' .. w then return plain:sub(-#w), rest end
  end
  return nil
end

-- A paragraph opening with a bold bonus label, points aside (`**Extra Credit. [1 point]**
-- Show …`, `**Bonus:** …`): the label (the question's title) and the paragraph's text
-- after it, else nil.
-- (`lettered`: also a label that names its bonus problem, `Extra Credit A`, `Bonus 2`)
local function bold_bonus(b, lettered)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or not b.content[1] or b.content[1].t ~= 'Strong' then return nil end
  local label = trim(pandoc.utils.stringify(b.content[1]))
  local plain = trim((label:gsub('%s*[%(%[][^%)%]]*[%)%]]%s*$', ''):gsub('[%.:]$', '')))
  if #plain == 0 or #plain > 40 then return nil end
  for _, w in ipairs(BONUS_WORDS) do
    if plain:lower() == w or (lettered and plain:lower():sub(1, #w + 1) == w .. ' '
        and plain:sub(#w + 2):match('^%w%w?$')) then
      local rest = sheet.text_of(b):match('^%*%*.-%*%*(.*)$') or ''
      return plain, strip_points(trim((rest:gsub('^[ \t]*[%.:]?[ \t]*', ''))))
    end
  end
  return nil
end

local function options_unit(b)
  local options, correct = {}, {}
  -- a key marks its right options by setting them in bold: read so in the solutions role
  -- (or a sheet holding its solutions), when some options are bold and some are not
  local bold, nbold = {}, 0
  if ROLE == 'solutions' or INLINE then
    for i, item in ipairs(b.content) do
      bold[i] = bold_item(item)
      if bold[i] then nbold = nbold + 1 end
    end
    if nbold == #b.content then bold = {} end
  end
  for i, item in ipairs(b.content) do
    local text = trim(sheet.text(item))
    -- the box is one character of three bytes: cut it whole (a byte class would leave two)
    text = text:gsub('^%[[ xX]?%]%s*', ''):gsub('^\u{2610}%s*', ''):gsub('^\u{2612}%s*', '')
    options[#options + 1] = option_text(text, bold[i])
    if task_box(item) == 'x' or bold[i] then correct[#correct + 1] = i - 1 end
  end
  return { k = 'options', options = options, correct = correct }
end

local TASK_VERBS = {}
for w in ('explain describe find compute calculate show prove state write give draw plot determine '
  .. 'derive estimate sketch list name identify interpret justify discuss evaluate solve use compare'):gmatch('%a+') do
  TASK_VERBS[w] = true
end

-- An ordered list of choices under a question that asks for one (a LaTeX `enumerate` of
-- options after `Which of the following …?`): the text just before it asks (`?`, or a
-- choice word: :func:`asks_choice`), and every item is one short paragraph that asks
-- nothing and opens with no points or label of its own. Items that ask, carry points
-- or hold more than a paragraph are parts.
local function ordered_choices(b, before)
  if b.t ~= 'OrderedList' or #b.content < 2 or #b.content > 8 then return false end
  if not before or (before.k ~= 'text' and before.k ~= 'open') or not before.text then return false end
  local last = trim(before.text):gsub('%s*\\$', '')
  local tail = last:match('([^%.!?]*[%.!?:]?)$') or last
  if not (last:match('%?$') or (asks_choice(tail) and not last:match('%.$'))) then return false end
  -- a stem that asks something of each item (`For the ones that are not, …`) sets parts
  local low = last:lower()
  if low:find('for each', 1, true) or low:find('for the ones', 1, true) or low:find('each of them', 1, true) then
    return false
  end
  local told = 0
  for _, item in ipairs(b.content) do
    if #item ~= 1 or (item[1].t ~= 'Plain' and item[1].t ~= 'Para') then return false end
    local t = trim(sheet.text_of(item[1])):gsub('%s*\\$', '')
    if TASK_VERBS[(t:match('^%a+') or ''):lower()] then told = told + 1 end
    -- items punctuated as one running sentence (`…,` `…;`) enumerate what each part is about
    if t:match('[,;]$') then return false end
    -- an item of two sentences or more is a hint or a step, not a choice
    if t:match('[%.!?]%s+%u') then return false end
    if t == '' or t:match('%?%**$') or points_opening(t) or t:match('^\\?%(%d+\\?%)')
        or words_in(t) > 60 or t:find('\n') then
      return false
    end
  end
  -- items that tell the student what to do (`Explain …`, `Find …`) are tasks, not choices
  return told * 2 < #b.content
end

-- Paragraphs opening typed letters in sequence (`a\.`, `b\.`; `A.`, `B.`; a letter
-- repeated as a sheet may mistype it) right under text that names a choice (`Which of the
-- following …?`, `Choose …:`, a choice word in its last sentence), or whose every item is a
-- truth value (`TRUE`, `FALSE`), or capitals set in bold with their stop (`**A.**`, `**A**.`,
-- a paragraph each or joined by `<br>`) under a stem ending in `?` or `:`: the question's
-- options, not its parts — each item one
-- short line that asks nothing, carries no points and tells the student to do nothing, as
-- :func:`ordered_choices` reads an ordered list of them. Units in, units out.
local function typed_letter(u)
  if u.k == 'open' and (u.form == 'alpha' or u.form == 'alpha_or_roman') and #u.label == 1 then
    -- only the typed `a.` style: `(a)` and `a)` are a sheet's part labels; a capital with
    -- its stop set in bold (`**A.**`, `__B.__`) is an option's letter, told by the third value
    local w = trim(u.whole or '')
    if w:match('^%l\\?%.%s') then return u.label, u.text end
    if w:match('^%*%*%u\\?%.%*%*') or w:match('^__%u\\?%.__') then return u.label, u.text, true end
    -- the stop after the bold (`**A**.`, `<b>A</b>.`: :func:`bold_opening` reads them as `**A.**`)
    local inner, after = bold_opening(w)
    if inner and inner:match('^%u%.$') and not w:match('^%*%*%u%.') then return u.label, u.text, true end
    return nil
  end
  if u.k == 'text' and not u.items then
    local l, rest = trim(u.text):match('^(%u)\\?%.%s+(%S.*)$')
    if l then return l:lower(), rest end
  end
  return nil
end
local function choice_item(t)
  t = trim(t or ''):gsub('%s*\\$', '')
  if t == '' or t:find('\n') or t:match('%?%**$') or points_opening(t) or words_in(t) > 40 then return false end
  if t:match('[%.!?]%s+%u') or t:match('[,;:]$') then return false end
  -- an item offering choices of its own (`T / F If …`) is a statement to judge, a part
  if inline_choices(t) then return false end
  return true
end
-- `…, which statement below is not correct:` asks (a determiner: `which` before a noun or
-- `of`), where `…, which will do the following:` relates: does the text ask so?
local RELATIVE_AFTER = {}
for w in ('will is are was were would can could may might has have had does do did shall should '
  .. 'we you they it he she i means gives makes shows'):gmatch('%a+') do RELATIVE_AFTER[w] = true end
local function which_asks(text)
  for w in text:lower():gmatch('%f[%a]which%s+(%a+)') do
    if not RELATIVE_AFTER[w] then return true end
  end
  return false
end
-- The truth values a text closes on in brackets (`(True/False)`, `[Yes / No]`), each as
-- written, else nil.
local function trailing_truth(text)
  local inside = trim(text or ''):match('[%(%[]%s*([%a%s/]-)%s*[%)%]]$')
  if not inside or not inside:find('/', 1, true) then return nil end
  local alts = {}
  for alt in (inside .. '/'):gmatch('%s*(.-)%s*/') do
    if not TRUTH_WORDS[alt:lower()] then return nil end
    alts[#alts + 1] = alt
  end
  return #alts == 2 and alts or nil
end
local function lettered_choices(units)
  local out, i = {}, 1
  while i <= #units do
    local u = units[i]
    out[#out + 1] = u
    local run, bold_letters = {}, nil
    if u.k == 'text' or u.k == 'open' then
      local prev = nil
      local j = i + 1
      while units[j] do
        local l, t, strong = typed_letter(units[j])
        t = t and (t:gsub('%s*<br%s*/?>%s*$', ''))
        if not l or not choice_item(t) then break end
        bold_letters = (bold_letters ~= false) and strong == true
        if prev == nil and l ~= 'a' then break end
        if prev and l ~= prev and not sequence_step(prev, l) then break end
        run[#run + 1] = t
        prev = l
        j = j + 1
      end
    end
    local ok = #run >= 2 and #run <= 8
    if ok then
      local truth, told = true, 0
      for _, t in ipairs(run) do
        local w = trim(t):gsub('[%*_%.]', ''):lower()
        if not TRUTH_WORDS[w] then truth = false end
        if TASK_VERBS[(t:match('^%a+') or ''):lower()] then told = told + 1 end
      end
      local last = trim(u.text or ''):gsub('%s*\\$', '')
      local tail = last:match('([^%.!?]*[%.!?:]?)$') or last
      local named = (asks_choice((tail:gsub('%?$', ''))) or which_asks(tail)) and not last:match('%.$')
      -- a last sentence opening `Which …` asks whatever ends it (`Which of these are true.`)
      if tail:match('^%W*[Ww]hich%s') then named = true end
      -- capitals set in bold with their stop (`**A.**` … `**D.**`) under a stem that asks
      -- (`?`) or leads into them (`:`) are its options: a sheet's own option style
      if bold_letters and (last:match('%?$') or last:match(':$')) then named = true end
      ok = (truth or named) and told * 2 < #run
    end
    if ok then
      local opts = {}
      for _, t in ipairs(run) do opts[#opts + 1] = option_text(t, false) end
      out[#out + 1] = { k = 'options', options = opts, correct = {} }
      i = i + #run + 1
    else
      -- a statement closing on its answer format in brackets, truth values only
      -- (`… doubles its frequency. (True/False)`, `(Yes / No)`), with no options or part
      -- after it: the format's words are its options
      local alts = (u.k == 'text' or u.k == 'open') and trailing_truth(u.text)
      local nxt = units[i + 1]
      if alts and not (nxt and (nxt.k == 'options' or (u.k == 'text' and nxt.k == 'open'))) then
        out[#out + 1] = { k = 'options', options = alts, correct = {} }
      end
      i = i + 1
    end
  end
  return out
end

-- The lines of a text, a line cut after a display that closes on it when a part label
-- follows (`…$$ (i) Determine …`): after a display the text starts a line of its own.
local function display_lines(text)
  local out, in_math = {}, false
  for _, line in ipairs(sheet.lines(text)) do
    local from, at = 1, 1
    while true do
      local a, b = line:find('%$%$', at)
      if not a then break end
      in_math = not in_math
      at = b + 1
      if not in_math then
        local rest = line:sub(b + 1)
        if rest:match('^%s+%(%l+%)%s') or rest:match('^%s+\\%(%l+\\%)%s') then
          out[#out + 1] = line:sub(from, b)
          from = b + 1 + #rest:match('^%s+')
        end
      end
    end
    out[#out + 1] = line:sub(from)
  end
  return out
end

-- How a part label is written at a line start, its letter left out: `(a)`, `a)`, `a.`.
local function label_style(line)
  local s = line:gsub('^%s+', '')
  if s:match('^%(%l+%)') then return '(a)' end
  if s:match('^%l+%)') then return 'a)' end
  if s:match('^%l+%.') then return 'a.' end
  return nil
end

-- The label styles the sheet opens parts with, lines of one paragraph labelled from `a` in
-- sequence with no colon before them, in two paragraphs or more (`1. Let X … ⏎ a. What is …
-- ⏎ b. Explain …` in one question, then again in another): style → true. A run of that style
-- after a colon (`Find the distributions of: ⏎ a. … ⏎ b. …`) is then parts as well, the
-- sheet's own way of setting them out. Set per document by :func:`Pandoc`.
local LABEL_PARTS = {}

local function find_label_parts(blocks)
  local count = {}
  local function para(text)
    local prev, last, style = '', nil, nil
    for _, line in ipairs(sheet.lines(text)) do
      local l = line_label(line)
      if l then
        if not last then
          if l == 'a' and not trim(prev):match(':$') then last, style = l, label_style(line) end
        elseif sequence_step(last, l) and label_style(line) == style then
          last = l
          if l == 'b' and style then count[style] = (count[style] or 0) + 1 end
        end
      end
      prev = line
    end
  end
  local function visit(bs)
    for _, b in ipairs(bs) do
      if b.t == 'Para' or b.t == 'Plain' then para(sheet.text_of(b))
      elseif b.t == 'Div' or b.t == 'BlockQuote' then visit(b.content)
      elseif b.t == 'OrderedList' or b.t == 'BulletList' then
        for _, item in ipairs(b.content) do visit(item) end
      end
    end
  end
  visit(blocks)
  local out = {}
  for style, n in pairs(count) do if n >= 2 then out[style] = true end end
  return out
end

-- A line that sets its parts out inline, `(a) Is … tell? (b) What … R? (c) …`: labels
-- `(a)`, `(b)`, … in sequence from `(a)`, the first opening the line and each other one
-- opening a sentence (after `.`, `?` or `!`), every piece a sentence of three words or more
-- that ends so: the pieces, one line each (quotes of the line); nil otherwise. Labels
-- inside a sentence (`… pro- or counter-cyclical: (i) …; (ii) …`) are its text.
local function inline_label_lines(line)
  if ROLE ~= 'questions' or not line:match('^%s*%(a%)%s') then return nil end
  local starts, want = {}, 'a'
  local at = 1
  while true do
    local a, b = line:find('%(' .. want .. '%)%s', at)
    if not a then break end
    if a > 1 and not line:sub(1, a - 1):match('^%s*$') and not line:sub(1, a - 1):match('[%.%?!]%s+$') then break end
    starts[#starts + 1] = a
    at = b + 1
    want = string.char(want:byte() + 1)
  end
  if #starts < 2 then return nil end
  local out = {}
  for i, a in ipairs(starts) do
    local piece = trim(line:sub(a, (starts[i + 1] or #line + 1) - 1))
    local body = piece:gsub('^%(%l%)%s*', '')
    if words_in(body) < 3 or not body:match('[%.%?!]$') then return nil end
    out[#out + 1] = piece
  end
  return out
end

-- In a solutions document, a plain capital letter and a period (`C. The …`) right after a
-- part labelled the letter before it (`**B**.`): the next part, its label written plain
-- (label, rest, 'alpha'), else nil. A capital opening a line anywhere else is the text's.
local function plain_next_label(line, cur)
  if ROLE ~= 'solutions' or not cur or cur.form ~= 'alpha' then return nil end
  local l, rest = line:match('^(%u)%.%s+(.*)$')
  if l and sequence_step(cur.label, l:lower()) then return l:lower(), rest, 'alpha' end
  return nil
end

-- The last unit of `units` that opens a part (its label and form), else nil.
local function last_open(units)
  for i = #units, 1, -1 do
    if units[i].k == 'open' then return units[i] end
  end
  return nil
end

-- Units from a text with part labels at line starts (outside $$ maths).
local function label_units(text, units)
  local cur, before, in_math = nil, {}, false
  local pieces = {}
  local lines = {}
  for _, line in ipairs(display_lines(text)) do
    local split = not in_math and inline_label_lines(line)
    if split then
      for _, l in ipairs(split) do lines[#lines + 1] = l end
    else lines[#lines + 1] = line end
    local _, n = line:gsub('%$%$', '')
    if n % 2 == 1 then in_math = not in_math end
  end
  in_math = false
  for _, line in ipairs(lines) do
    local label, rest, form = nil, nil, nil
    if not in_math then label, rest, form = line_label(line) end
    if not label and not in_math then label, rest, form = plain_next_label(line, cur or last_open(units)) end
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
  if #pieces > 0 and lead:match(':$') and not (#pieces >= 2 and pieces[1].label == 'a'
      and LABEL_PARTS[label_style(pieces[1].whole[1]) or '']) then
    units[#units + 1] = { k = 'text', text = trim(text) }
    return
  end
  local b = clean(before)
  if b ~= '' then units[#units + 1] = { k = 'text', text = b } end
  for _, p in ipairs(pieces) do
    units[#units + 1] = { k = 'open', label = p.label, form = p.form, text = clean(p.lines), whole = clean(p.whole) }
  end
end

-- A key's bold run-in `**SOLUTION**` (no colon: Weave's sheets) opens the solution and a
-- bold `**END**` closes it: in the solutions role neither is the solution's text.
local function solution_frame(text)
  if ROLE ~= 'solutions' then return text end
  local t = trim(text)
  t = t:match('^%*%*[Ss][Oo][Ll][Uu][Tt][Ii][Oo][Nn]%*%*%s*(.*)$') or t
  return (t:gsub('%s*%*%*END%*%*$', ''))
end

local function text_unit(text, units)
  text = solution_frame(text)
  if trim(text) == '' then return end
  local a = answer_line(text)
  if a then
    -- `Answer:` with nothing after it: the answer is what follows (up to the next part,
    -- cell break or question)
    units[#units + 1] = { k = 'sol', answer = trim(a), ws = '', open = trim(a) == '' }
    return
  end
  local s = solution_line(text)
  if s then units[#units + 1] = { k = 'sol', answer = '', ws = trim(s) }; return end
  units[#units + 1] = { k = 'text', text = text }
end

local function has_part_class(classes)
  for _, c in ipairs(classes) do if c == 'part' then return true end end
  return false
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
  return { k = 'sol', answer = a, ws = w, text = text }
end

-- The answer Divs anywhere inside a block that is no answer itself (a list of sub-parts
-- whose items carry their own solutions), in document order.
local function nested_answer_divs(b)
  local found = {}
  local function visit(blocks)
    for _, x in ipairs(blocks) do
      if x.t == 'Div' and is_answer_class(x.classes) then
        found[#found + 1] = x
      elseif x.t == 'Div' or x.t == 'BlockQuote' then
        visit(x.content)
      elseif x.t == 'OrderedList' or x.t == 'BulletList' then
        for _, item in ipairs(x.content) do visit(item) end
      end
    end
  end
  visit({ b })
  return found
end

-- `text` without the runs of lines that quote `cuts` (each a block's text, matched line
-- by line with indentation ignored, in order), blank runs left by a cut folded to one.
local function lines_cut(text, cuts)
  local lines = sheet.lines(text)
  local drop, at = {}, 1
  for _, cut in ipairs(cuts) do
    local want = sheet.lines(cut)
    for i = at, #lines - #want + 1 do
      local ok = true
      for k = 1, #want do
        if trim(lines[i + k - 1]) ~= trim(want[k]) then ok = false; break end
      end
      if ok then
        for k = i, i + #want - 1 do drop[k] = true end
        at = i + #want
        break
      end
    end
  end
  local out, blank = {}, false
  for i, l in ipairs(lines) do
    if not drop[i] then
      if trim(l) == '' then
        if not blank and #out > 0 then out[#out + 1] = '' end
        blank = true
      else
        out[#out + 1] = l
        blank = false
      end
    end
  end
  return trim(table.concat(out, '\n'))
end

-- A block holding answer Divs deeper down (sub-parts each with its solution): units for
-- its text without the Divs (`inner`, inside the part) and one solution per Div, which
-- go to the part the block is in; nil when the block holds none.
local function nested_solution_units(b)
  local divs = nested_answer_divs(b)
  if #divs == 0 then return nil end
  local cuts = {}
  for i, d in ipairs(divs) do cuts[i] = sheet.text_of(d) end
  local out = { { k = 'inner', text = lines_cut(sheet.text_of(b), cuts) } }
  for _, d in ipairs(divs) do out[#out + 1] = sol_unit(sheet.text(d.content)) end
  return out
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

-- A paragraph of raw HTML tags and spaces only (`<br><br>` spacers): chrome. A figure
-- (`<img …>`) is content.
local function only_html(b)
  local tags = 0
  for _, x in ipairs(b.content) do
    if x.t == 'RawInline' and not x.text:match('^<img%s') then tags = tags + 1
    elseif x.t ~= 'Space' and x.t ~= 'SoftBreak' and x.t ~= 'LineBreak' then return false end
  end
  return tags > 0
end

-- Units of one block (and its children where they carry structure).
-- The units of a list item's first paragraph, opening with a lone parenthesised number
-- (`1.  (4) Write the hypotheses.`, a sheet's points) and no other label: the item is
-- labelled by its list already, and one number opens no run of parts; it is the item's
-- text, as written.
-- `from`: the item's first unit in `sub` (default 1); the units after it are the item's.
local function lone_number_is_text(sub, from)
  from = from or 1
  local head = sub[from]
  if not head or head.k ~= 'open' or head.form ~= 'digit' or not head.whole then return end
  for k = from + 1, #sub do
    if sub[k].k == 'open' and sub[k].form == 'digit' and sub[k].whole then return end
  end
  sub[from] = { k = 'text', text = head.whole }
end

-- A quote whose paragraphs each open with a part label, the labels in sequence (`> a\. (5
-- points) Give …`, `> b\. …`): a Word sheet's indented parts (pandoc reads an indent as a
-- quote), read as if not indented.
local function quoted_parts(b)
  if #b.content == 0 then return false end
  local prev = nil
  for _, c in ipairs(b.content) do
    if c.t ~= 'Para' and c.t ~= 'Plain' then return false end
    local l = line_label(trim(sheet.lines(sheet.text_of(c))[1] or ''))
    if not l or (prev and not sequence_step(prev, l)) then return false end
    prev = l
  end
  return true
end

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
    local label, form = part_heading(b)
    if ROLE == 'solutions' and trim(solution_frame(heading_text(b))) == '' then return end -- `## **END**`
    if ROLE == 'solutions' and (t:match('^solutions?%f[%W]') or t:match('^answers?%f[%W]') or t:match('^proof%f[%W]')) then
      units[#units + 1] = { k = 'solstart' }
    elseif ROLE == 'questions' and solution_heading(b) then
      -- `## Solution {.solution}` inside a question: what follows answers its parts
      units[#units + 1] = { k = 'solsection' }
    elseif label then
      -- `## a)`: a part heading; the text under it is that part's
      units[#units + 1] = { k = 'open', label = label, form = form, text = '', heading = true }
    elseif ROLE == 'questions' and POINTED_LEVEL == b.level then
      -- a graded section of the question (`## Training (3P)`; a sibling `(optional)` too)
      -- (its heading, which names it, is its first text)
      units[#units + 1] = { k = 'open', label = '', form = 'bullet', text = heading_text(b), heading = true }
    else
      units[#units + 1] = { k = 'text', text = sheet.text_of(b) }
    end
  elseif (b.t == 'Para' or b.t == 'Plain') and only_html(b) then
    -- `<br><br>` spacers, buttons: chrome
  elseif b.t == 'Para' or b.t == 'Plain' then
    -- notebook cell breaks (`+++ {...}`) are chrome that ends an open answer
    local chunks, buf = {}, {}
    for _, line in ipairs(sheet.lines(sheet.text_of(b))) do
      if is_cell_break(line) then
        chunks[#chunks + 1] = table.concat(buf, '\n'); buf = {}
        chunks[#chunks + 1] = false
      elseif is_wrapper_shortcode(line) then
        -- a line holding only a site generator's wrapper (`{{< blockquote >}}` …
        -- `{{< /blockquote >}}`): it renders nothing; the text it wraps is kept
        chunks[#chunks + 1] = table.concat(buf, '\n'); buf = {}
      else buf[#buf + 1] = line end
    end
    chunks[#chunks + 1] = table.concat(buf, '\n')
    if BLANK_RUNS[trim(sheet.text_of(b))] then
      -- one of a run of lines each ending in an answer blank: a part of its own
      units[#units + 1] = { k = 'open', label = '', form = 'blank', text = trim(sheet.text_of(b)) }
      return
    end
    for _, chunk in ipairs(chunks) do
      if chunk == false then
        units[#units + 1] = { k = 'cell' }
      elseif trim(chunk) ~= '' then
        label_units(chunk, units)
        -- a paragraph without labels: check for an answer line
        local last = units[#units]
        if last and last.k == 'text' then
          units[#units] = nil
          text_unit(last.text, units)
        end
      end
    end
  elseif b.t == 'OrderedList' and ordered_choices(b, units[#units]) then
    -- the choices of a question that asks for one: its options, not its parts
    units[#units + 1] = options_unit(b)
  elseif b.t == 'OrderedList' then
    local start = b.listAttributes.start or 1
    local list = { whole = sheet.text_of(b) }
    -- a list that resumes the count of the question's last list (`1.`, `2.`, a display,
    -- then `3.`) is that list's continuation: one list of tasks, answered together or not
    for k = #units, 1, -1 do
      local u = units[k]
      if u.k == 'open' and u.list then
        if start > 1 and u.label == tostring(start - 1) then
          list = { whole = list.whole, answered_whole = u.list.answered_whole }
          list.resumes = u.list.resumes or u.list
        end
        break
      end
    end
    local whole_lines, at = sheet.lines(list.whole), 1
    local records = {}
    for i, item in ipairs(b.content) do
      local rec = { start = nil, cuts = {} }  -- cuts: its answer divs (an item taken whole leaves them out)
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
        lone_number_is_text(sub)
        rest_from = 2
      end
      local body = {}
      for k = rest_from, #item do body[#body + 1] = item[k] end
      local head = sub[1]
      local opener = { k = 'open', label = label, form = form, text = head and head.k == 'text' and head.text or '', list = list }
      local first_unit = #units + 1
      units[#units + 1] = opener
      local from = (head and head.k == 'text') and 2 or 1
      for k = from, #sub do units[#units + 1] = sub[k] end
      -- the rest of the item: nested lists, further paragraphs (inside the part)
      local tail = {}
      local trailing_options = nil
      for k, blk in ipairs(body) do
        local before = k > 1 and sheet.text_of(body[k - 1]) or opener.text
        if k == #body and (is_task_list(blk)
          or (plain_choices(blk) and asks_choice(before))
          or ordered_choices(blk, { k = 'text', text = before })) then
          trailing_options = options_unit(blk)
        elseif blk.t == 'Div' and is_answer_class(blk.classes) then
          if #tail > 0 then units[#units + 1] = { k = 'inner', text = sheet.text(tail) }; tail = {} end
          units[#units + 1] = sol_unit(sheet.text(blk.content))
          rec.cuts[#rec.cuts + 1] = sheet.text_of(blk)
        elseif (blk.t == 'OrderedList' or blk.t == 'BulletList' or blk.t == 'Div') and nested_answer_divs(blk)[1] then
          if #tail > 0 then units[#units + 1] = { k = 'inner', text = sheet.text(tail) }; tail = {} end
          for _, u in ipairs(nested_solution_units(blk)) do units[#units + 1] = u end
          for _, d in ipairs(nested_answer_divs(blk)) do rec.cuts[#rec.cuts + 1] = sheet.text_of(d) end
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
      if #rec.cuts > 0 then rec.whole = lines_cut(rec.whole, rec.cuts) end
    end
  elseif b.t == 'BulletList' then
    if is_task_list(b) then
      units[#units + 1] = options_unit(b)
      return
    end
    local marks = true_false(b)
    if marks then
      units[#units + 1] = { k = 'marks', marks = marks, text = sheet.text_of(b) }
      return
    end
    local labelled = true
    for _, item in ipairs(b.content) do
      if not (item[1] and bullet_label(trim(sheet.text_of(item[1])))) then labelled = false; break end
    end
    -- bullets that each open with their points (`- (5 points) Write …`): graded parts
    local pointed = #b.content >= 2
    for _, item in ipairs(b.content) do
      if pointed and not (item[1] and points_opening(trim(sheet.text_of(item[1])))) then pointed = false end
    end
    -- bullets that each name a numbered problem to do (`- Book Problem 5`, `- Exercise 2.4.
    -- Note: …`: a course's list of textbook problems), each a part
    local named = #b.content >= 2
    for _, item in ipairs(b.content) do
      local first = item[1] and (item[1].t == 'Para' or item[1].t == 'Plain') and trim(sheet.text_of(item[1])) or ''
      local head = first:match('^[^:;]*') or ''
      head = head:match('^(.-%d+)%.%s') or head
      if not (named and head:match('^%u') and words_in(head) <= 4 and marker_of(head)) then named = false end
    end
    -- bullets that each hold their own worked solution (a `solution` div in every item: a
    -- site's collapsed answer after each task, tasks/convert/details.py): each bullet is a
    -- part, unlabelled as printed, and the div its solution
    local answered = #b.content >= 2 and not labelled
    for _, item in ipairs(b.content) do
      local has = false
      for _, blk in ipairs(item) do
        if blk.t == 'Div' and is_answer_class(blk.classes) then has = true end
      end
      if not has then answered = false; break end
    end
    if answered then
      for _, item in ipairs(b.content) do
        local texts, asked, sols = {}, {}, {}
        for _, blk in ipairs(item) do
          if blk.t == 'Div' and is_answer_class(blk.classes) then
            sols[#sols + 1] = sol_unit(sheet.text(blk.content))
          else
            asked[#asked + 1] = blk
            local t = sheet.text_of(blk)
            if trim(t) ~= '' then texts[#texts + 1] = t end
          end
        end
        units[#units + 1] = { k = 'open', label = '', form = 'bullet', text = table.concat(texts, '\n\n'), whole = sheet.text(asked) }
        for _, s in ipairs(sols) do units[#units + 1] = s end
      end
      return
    end
    if named and not labelled then
      for _, item in ipairs(b.content) do
        local texts = {}
        for k = 1, #item do
          local t = sheet.text_of(item[k])
          if trim(t) ~= '' then texts[#texts + 1] = t end
        end
        units[#units + 1] = { k = 'open', label = '', form = 'bullet', text = table.concat(texts, '\n\n'), whole = sheet.text(item) }
      end
      return
    end
    -- bullets that each open with a part label, the labels in sequence (`- (a) Draw …`)
    local lettered = #b.content >= 2
    local prev = nil
    for _, item in ipairs(b.content) do
      local l = lettered and item[1] and line_label(trim(sheet.lines(sheet.text_of(item[1]))[1] or '')) or nil
      if not l or (prev and not sequence_step(prev, l)) then lettered = false end
      prev = l
    end
    if lettered and not labelled then
      for _, item in ipairs(b.content) do
        local l, rest, form = line_label(trim(sheet.text_of(item[1])))
        local texts = { rest }
        for k = 2, #item do texts[#texts + 1] = sheet.text_of(item[k]) end
        local joined = {}
        for _, t in ipairs(texts) do if trim(t) ~= '' then joined[#joined + 1] = t end end
        units[#units + 1] = { k = 'open', label = l, form = form, text = table.concat(joined, '\n\n'), whole = sheet.text(item) }
      end
    elseif pointed and not labelled then
      for _, item in ipairs(b.content) do
        local texts = { trim(sheet.text_of(item[1])) }  -- its points kept: they are the sheet's
        for k = 2, #item do texts[#texts + 1] = sheet.text_of(item[k]) end
        local joined = {}
        for _, t in ipairs(texts) do if trim(t) ~= '' then joined[#joined + 1] = t end end
        units[#units + 1] = { k = 'open', label = '', form = 'bullet', text = table.concat(joined, '\n\n'), whole = sheet.text(item) }
      end
    elseif labelled then
      for _, item in ipairs(b.content) do
        local n, l, rest = bullet_label(trim(sheet.text_of(item[1])))
        local texts = { rest }
        for k = 2, #item do texts[#texts + 1] = sheet.text_of(item[k]) end
        local joined = {}
        for _, t in ipairs(texts) do if trim(t) ~= '' then joined[#joined + 1] = t end end
        units[#units + 1] = { k = 'open', label = l, form = 'bullet', text = table.concat(joined, '\n\n'), whole = sheet.text(item) }
      end
    else
      -- a plain list (items one short paragraph each) keeps its items: the options of
      -- a multiple-choice question when an answer marks them, an answer's values
      local unit = { k = 'text', text = sheet.text_of(b), prompts = prompt_items(b) }
      if plain_choices(b) or (#b.content == 1 and #b.content[1] == 1 and (b.content[1][1].t == 'Plain' or b.content[1][1].t == 'Para')) then
        unit.items = {}
        for _, item in ipairs(b.content) do unit.items[#unit.items + 1] = trim(sheet.text(item)) end
      end
      units[#units + 1] = unit
    end
  elseif b.t == 'Div' then
    if is_answer_class(b.classes) then
      units[#units + 1] = sol_unit(sheet.text(b.content))
    elseif ROLE == 'questions' and has_part_class(b.classes) then
      -- a part the conversion marked (`::: {.part}`: the unnumbered exercise boxes of a
      -- MyST page, tasks/convert/myst.py): a part opens, its text what the div holds
      units[#units + 1] = { k = 'open', label = '', form = 'bullet', text = '', heading = true }
      for _, c in ipairs(b.content) do
        -- a heading grouping the steps (moved into the part it heads): its words, a line of
        -- the part
        if c.t == 'Header' then units[#units + 1] = { k = 'text', text = heading_text(c) }
        else block_units(c, units) end
      end
    else
      for _, c in ipairs(b.content) do block_units(c, units) end
    end
  elseif b.t == 'RawBlock' then
    local text = sheet.text_of(b)
    -- an answer div can open on a later line of the block (an `<img>` line before it
    -- runs on into it); the lines before it are the sheet's
    local lines, at = sheet.lines(text), nil
    for i, line in ipairs(lines) do
      if html_div_open(line) == 'answer' then at = i; break end
    end
    local before = table.concat(lines, '\n', 1, (at or #lines + 1) - 1)
    if trim(before):match('^<img%s') then units[#units + 1] = { k = 'text', text = trim(before) } end
    if at then
      text = table.concat(lines, '\n', at)
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
    if ROLE == 'questions' and quoted_parts(b) then
      for _, c in ipairs(b.content) do block_units(c, units) end
      return
    end
    local text = sheet.text(b.content)
    local label = text:match('^`(%w+)`[%.%)]') or text:match('^(%d+)[%.%)]%s') or text:match('^%((%l+)%)')
    -- a sheet's quote is shown as a quote (its `>` marks kept); a solution's opening
    -- quote restates the question and is read for its label
    if ROLE == 'questions' then text = sheet.text_of(b) end
    units[#units + 1] = { k = 'quote', text = text, label = label }
  elseif b.t == 'HorizontalRule' then
    -- a separator
  else
    units[#units + 1] = { k = 'text', text = sheet.text_of(b) }
  end
end

-- ---------------------------------------------------------------------------
-- A question's units → main text and parts.

-- Answer slots: short paragraphs the sheet repeats word for word (`_Your answer here._`
-- after each question), each the place of the answer to what comes before it, never a
-- lead-in to what follows (text → true; set per document by :func:`Pandoc`).
local SLOTS = {}

local function is_slot(t)
  return SLOTS[trim(t)] == true
end

local function find_slots(blocks)
  local seen, out = {}, {}
  local function visit(bs)
    for _, b in ipairs(bs) do
      if b.t == 'Para' or b.t == 'Plain' then
        local t = trim(sheet.text_of(b))
        local _, words = t:gsub('%S+', '')
        if t ~= '' and words <= 12 then
          seen[t] = (seen[t] or 0) + 1
          if seen[t] >= 2 then out[t] = true end
        end
      elseif b.t == 'Div' or b.t == 'BlockQuote' then
        visit(b.content)
      end
    end
  end
  visit(blocks)
  return out
end


local FORM_RANK = { marker = 0, bullet = 1, alpha = 2, alpha_or_roman = 2, digit = 3, roman = 4, quote = 5, blank = 6 }

-- A text that is a code block (fenced, or indented four spaces).
local function is_code(t)
  local s = t:gsub('^%s*\n', '')
  return s:match('^%s*```') ~= nil or s:match('^%s*~~~') ~= nil or s:match('^    %S') ~= nil
end

-- Has a part had its answer cell: a code block among its texts, or in the text after it?
local function answered(part, pending)
  for _, t in ipairs(part.texts) do if is_code(t) then return true end end
  for _, t in ipairs(pending) do if is_code(t) then return true end end
  return false
end


local function part_form(units)
  local best, first = nil, nil
  for _, u in ipairs(units) do
    if u.k == 'open' then
      first = first or u
      local f = u.form == 'alpha_or_roman' and 'alpha' or u.form
      if not best or FORM_RANK[f] < FORM_RANK[best] then best = f end
    end
  end
  -- the outer labels come first: a question opening at `(i)` (a roman list starts there)
  -- whose `(a)`, `(b)` follow under it has roman parts and lettered sub-parts
  if best == 'alpha' and first and (first.form == 'roman' or (first.form == 'alpha_or_roman' and first.label == 'i')) then
    best = 'roman'
  end
  return best
end

-- Does label `b` follow label `a` in one style (`a`→`b`, `ii`→`iii`, `3`→`4`)?
local function follows(a, b)
  return a ~= nil and b ~= nil and sequence_step(a, b)
end

local FIRST_LABELS = { a = true, i = true, ['1'] = true, A = true }

-- A solution text with a line opening at a part label (`(i) If …`): its pieces are labelled.
local function labels_pieces(text)
  for _, line in ipairs(sheet.lines(text or '')) do
    if line_label(line) then return true end
  end
  return false
end

-- The parts of one list that a solution after it answers together: `cur` (the part before
-- the solution) is the last of two or more parts opened by one list's items, none of which
-- has a solution yet — or the list was answered so already (a solution continued after code).
-- The parts, else nil.
local function list_answered_whole(cur, parts)
  if not cur or not cur.list then return nil end
  local members = {}
  local own = cur.list.resumes or cur.list
  for _, p in ipairs(parts) do
    if p.list == own or (p.list and p.list.resumes == own) then members[#members + 1] = p end
  end
  if cur.list.answered_whole then return members end
  if #members < 2 or members[#members] ~= cur or parts[#parts] ~= cur then return nil end
  for _, p in ipairs(members) do
    if #p.answer > 0 or #p.ws > 0 then return nil end
  end
  cur.list.answered_whole = true
  return members
end

local function new_part(label)
  return { label = label or '', texts = {}, options = {}, correct = {}, answer = {}, ws = {} }
end

-- A solution's parts merged into its question's: by label when every solution part
-- has a label the question has, else by position (parts appended when the question
-- has fewer). A question with no parts takes a solution of several parts whole, as its
-- one part: the solution's structure (restated sub-items) makes no parts.
local function merge_parts(target, s)
  local sparts = s.parts
  if #target.parts == 0 and #sparts > 1 then
    local one = new_part('')
    for _, sp in ipairs(sparts) do
      for _, a in ipairs(sp.answer) do one.answer[#one.answer + 1] = a end
      for _, w in ipairs(sp.ws) do one.ws[#one.ws + 1] = w end
    end
    sparts = { one }
  end
  local labelled = #sparts > 0
  for _, sp in ipairs(sparts) do
    local found = false
    for _, qp in ipairs(target.parts) do if sp.label ~= '' and qp.label == sp.label then found = true end end
    if not found then labelled = false end
  end
  for j, sp in ipairs(sparts) do
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

-- A solution that names the parts it solves (`(a) ...`, `(b) ...`, `(i)(A) ...`, one
-- label at a line start each) when every label it names is the label of one of `parts`:
-- list of {part=, text=} in order (text before the first label goes with the first);
-- nil otherwise.
local function solution_by_label(text, parts)
  local units, pieces, lead = {}, {}, nil
  label_units(text or '', units)
  for _, u in ipairs(units) do
    if u.k == 'open' then
      pieces[#pieces + 1] = u
    elseif #pieces == 0 then
      lead = u.text
    else
      return nil
    end
  end
  if #pieces == 0 then return nil end
  local by = {}
  for _, p in ipairs(parts) do
    if p.label ~= '' and not by[p.label] then by[p.label] = p end
  end
  local out = {}
  for i, pc in ipairs(pieces) do
    local p = by[pc.label]
    if not p then return nil end
    local t = pc.text
    if i == 1 and lead and trim(lead) ~= '' then t = lead .. '\n\n' .. t end
    out[#out + 1] = { part = p, text = t }
  end
  return out
end

local assemble

-- A sheet with its solutions in place (:data:`INLINE`): after a part's prompt (its
-- opening paragraph) every text of the part is its solution, code its worked solution and
-- prose its final answer; in a question with no parts, all after its first paragraph.
local function inline_solutions(units)
  local form = part_form(units)
  local out, opened, main_seen = {}, false, false
  for _, u in ipairs(units) do
    local f = u.form == 'alpha_or_roman' and 'alpha' or u.form
    if u.k == 'open' and f == form then
      opened = true
      out[#out + 1] = u
    elseif (u.k == 'text' or u.k == 'inner' or u.k == 'quote') and (opened or (not form and main_seen)) then
      local t = u.text
      if is_code(t) then
        out[#out + 1] = { k = 'sol', answer = '', ws = t }
      else
        out[#out + 1] = { k = 'sol', answer = t, ws = '' }
      end
    else
      if u.k == 'text' then main_seen = true end
      out[#out + 1] = u
    end
  end
  return out
end

-- The units after a `Solution` heading inside a question (questions role): read as a
-- solution of that question and merged into its parts.
local function merge_solution_units(q, units)
  local saved = ROLE
  ROLE = 'solutions'
  local s = assemble({ number = q.number, title = '', units = units })
  ROLE = saved
  merge_parts(q, s)
end

-- A question whose last block is a list of prompts (:func:`prompt_items`) and which has no
-- part of its own asks each prompt as a part (`## Exercise 3` over two bulleted questions),
-- unless the text just before the list asks or leads into it as a question does its
-- choices (`Which holds?`, `Choose one:`); a list with text after it is the stem's. Prompts
-- that each ask a question of their own (`- Does it hold? If not, why?`), or each end in a
-- colon before the answer they ask for (`- Remove the first row:`), are no choices: after a
-- lead-in (`Do the following operations:`) they are parts still.
local function closing_prompts(units)
  local last = #units
  for _, u in ipairs(units) do
    if u.k ~= 'text' then return units end
  end
  local list = units[last]
  if not list or not list.prompts then return units end
  local before = units[last - 1] and trim(units[last - 1].text) or ''
  local asking = true
  for _, p in ipairs(list.prompts) do
    if not (p.own or p.text:find('?', 1, true)) then asking = false end
  end
  if before:match('%?$') or (before:match(':$') and not asking) then return units end
  local out = { table.unpack(units, 1, last - 1) }
  for _, p in ipairs(list.prompts) do
    out[#out + 1] = { k = 'open', label = '', form = 'bullet', text = p.text, whole = p.whole }
  end
  return out
end

assemble = function(q)
  local units = q.units
  if ROLE == 'questions' and not INLINE then units = closing_prompts(units) end
  if ROLE == 'questions' then units = lettered_choices(units) end
  -- questions: a `Solution` heading inside the question; what follows it is its solution
  local sol_units = nil
  if ROLE == 'questions' then
    for i, u in ipairs(units) do
      if u.k == 'solsection' then
        sol_units, units = {}, { table.unpack(units, 1, i - 1) }
        for k = i + 1, #q.units do
          if q.units[k].k ~= 'solsection' then sol_units[#sol_units + 1] = q.units[k] end
        end
        break
      end
    end
  end
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
  if INLINE and ROLE == 'questions' then units = inline_solutions(units) end
  local form = part_form(units)
  local main, parts, pending = {}, {}, {}
  local cur = nil
  local last_alpha = nil
  local last_letter, last_sub = nil, {}  -- the last lettered label of any level; the last sub-part's, by form
  local repeating = false                -- the labels have started over (a part named again)
  local items_of, last_list = {}, nil  -- plain lists: text → items; the last one added
  local answering = nil                -- the part an open `Answer:` is filling
  local function add(list, t)
    if trim(t or '') == '' then return end
    list[#list + 1] = t
    if items_of[t] then last_list = { list = list, text = t, items = items_of[t] } else last_list = nil end
  end
  local function flush_pending(to)
    for _, t in ipairs(pending) do add(to, t) end
    pending = {}
  end
  -- Text between two parts sets up the next one, but once a code block has come (the
  -- part's scaffold or test cells in a notebook), the notes before it and the code are the
  -- part's own: only the text after the code leads into the next part.
  local function keep_until_code(part)
    local seen_code, cut = false, nil
    for _, t in ipairs(part.texts) do if is_code(t) then seen_code = true end end
    for i, t in ipairs(pending) do
      if is_code(t) then seen_code = true
      elseif seen_code then cut = i; break end
    end
    if not seen_code then return end
    local rest = {}
    for i, t in ipairs(pending) do
      if cut and i >= cut then rest[#rest + 1] = t else add(part.texts, t) end
    end
    pending = rest
  end
  -- True/False marks answering the plain list just before them, one per item: that
  -- list becomes the part's options, the True ones correct
  local function mark_options(u)
    local ll = last_list
    if not ll or #ll.items ~= #u.marks or ll.list[#ll.list] ~= ll.text then
      add(answering.answer, u.text)
      return
    end
    table.remove(ll.list)
    last_list = nil
    local base = #answering.options
    for i, o in ipairs(ll.items) do
      answering.options[#answering.options + 1] = o
      if u.marks[i] then answering.correct[#answering.correct + 1] = base + i - 1 end
    end
  end
  for _, u in ipairs(units) do
    if u.k == 'text' and u.items then items_of[u.text] = u.items end
    if u.k == 'marks' and not answering then u = { k = 'text', text = u.text } end
    if answering and (u.k == 'text' or u.k == 'marks' or u.k == 'quote') then
      if u.k == 'marks' then mark_options(u)
      elseif u.items then
        for _, item in ipairs(u.items) do add(answering.answer, item) end
      else add(answering.answer, u.text) end
      goto continue
    end
    answering = nil
    local f = u.form
    if f == 'alpha_or_roman' then
      -- `(i)` after `(h)` is a letter; otherwise a roman sub-part under letters (under
      -- roman parts: a roman part, unless the letters before it reach `(h)`)
      local before = ALPHA:sub(ALPHA:find(u.label, 1, true) - 1, ALPHA:find(u.label, 1, true) - 1)
      if form == 'roman' then f = last_letter == before and 'alpha' or 'roman'
      elseif form == 'alpha' and cur and last_alpha ~= before then f = 'roman' else f = 'alpha' end
    end
    local opens_part = u.k == 'open' and f == form
    if u.k == 'open' and not opens_part and cur and not FIRST_LABELS[u.label]
      and not follows(last_sub[f], u.label) and (f == 'alpha' or f == 'roman') then
      -- a label of the other kind that starts no sub-list (one opens at its first label)
      -- and carries none on: the sheet mislabels a part (`(a)`, then `(ii)`, `(iii)`)
      opens_part = true
    end
    if u.k == 'open' and f == 'alpha' then last_letter = u.label end
    if u.k == 'open' and not opens_part and f then last_sub[f] = u.label end
    local again = nil
    if opens_part and ROLE == 'questions' and u.label ~= '' and (FIRST_LABELS[u.label] or repeating) then
      -- the labels start over at a label the question has (`a)`, `b)` again under its
      -- `a)` … `f)`: hints, notes): each names its part again, no new part
      for _, p in ipairs(parts) do if p.label == u.label then again = p; break end end
    end
    repeating = again ~= nil
    if again then
      flush_pending(cur.texts)
      cur = again
      add(cur.texts, u.text)
    elseif opens_part then
      if cur then keep_until_code(cur) end
      cur = new_part(u.label)
      cur.heading = u.heading
      cur.list = u.list
      parts[#parts + 1] = cur
      if f == 'alpha' then last_alpha = u.label end
      last_sub = {}
      flush_pending(cur.texts)
      add(cur.texts, u.text)
    elseif u.item and u.item.done and u.k ~= 'sol' then
      -- the rest of a list item already taken whole (its answers still go to the part)
    elseif u.k == 'open' or u.k == 'inner' then
      -- a sub-part or the rest of a list item: inside the part before it (a list
      -- item that is no part is taken whole, with its marker)
      local text = u.whole or u.text
      if u.item and u.k == 'open' then
        text = u.item.whole
        u.item.done = true
      end
      if cur then flush_pending(cur.texts); add(cur.texts, text) else add(main, text) end
    elseif u.k == 'text' and cur and not cur.heading and bonus_label(u.text) and answered(cur, pending) then
      -- `Extra Credit: Rewrite …` after a part's answer cell: a part of its own (before
      -- it, the part's own remark)
      local label, rest = bonus_label(u.text)
      keep_until_code(cur)
      cur = new_part(label)
      parts[#parts + 1] = cur
      last_sub = {}
      flush_pending(cur.texts)
      add(cur.texts, rest)
    elseif u.k == 'text' or u.k == 'quote' then
      if not cur then add(main, u.text)
      elseif ROLE == 'solutions' or cur.heading
        or (#pending == 0 and (starts_continuation(u.text) or is_slot(u.text))) then
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
    elseif u.k == 'sol' and ROLE ~= 'solutions' and solution_by_label(u.text, parts) then
      -- a solution after several parts that labels its pieces: each to its part
      if #pending > 0 then flush_pending(cur.texts) end
      for _, piece in ipairs(solution_by_label(u.text, parts)) do
        local a, w = split_solution(piece.text)
        add(piece.part.answer, a)
        add(piece.part.ws, w)
      end
    elseif u.k == 'sol' and not u.item and ROLE ~= 'solutions'
      and (#pending == 0 or (cur and cur.list and cur.list.answered_whole)) and not labels_pieces(u.text)
      and list_answered_whole(cur, parts) then
      if #pending > 0 then flush_pending(cur.texts) end
      -- one solution right after a list of parts none of which has its own, labelling no
      -- piece: it answers the list's tasks together (a notebook's `Solution, Part 2` box
      -- after the Part's numbered tasks), and so do its continuations
      for _, p in ipairs(list_answered_whole(cur, parts)) do
        add(p.answer, u.answer)
        add(p.ws, u.ws)
      end
      if u.open then answering = cur end
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
      if u.open then answering = cur end
    end
    ::continue::
  end
  if #pending > 0 then
    if cur then flush_pending(cur.texts) else flush_pending(main) end
  end
  inline_choice_parts(parts)
  -- a multiple-choice part's final answer: the options the source marks correct
  for _, p in ipairs(parts) do
    if #p.answer == 0 and #p.correct > 0 then
      for _, c in ipairs(p.correct) do p.answer[#p.answer + 1] = p.options[c + 1] end
    end
  end
  q.main_texts, q.parts = main, parts
  if ROLE == 'questions' and q.marker_text and #main == 0 then
    -- a question whose marker line is all the sheet gives (`**Problem #3.8 in the book**`:
    -- a book's problem named, nothing more): that line is its text, as the student reads it
    local empty = true
    for _, p in ipairs(parts) do if #p.texts > 0 then empty = false end end
    if empty then q.main_texts = { q.marker_text } end
  end
  if sol_units then merge_solution_units(q, sol_units) end
  if ROLE == 'solutions' then
    -- every text of a solution is worked solution; text before any part is the
    -- question's only part
    if #parts == 0 and #main > 0 then
      local p = new_part('')
      p.texts = main
      parts[1] = p
      q.parts = parts
    elseif #main > 0 and #parts[1].texts == 0 and #parts[1].ws == 0 and #parts[1].answer == 0
        and #parts[1].options == 0 then
      -- text before a first part that holds nothing (a `#### Part b` heading over nothing, its
      -- piece labelled again below): the solution's opening, kept on that part so that
      -- restated prompts in it can still place it (tasks/read/restated.py)
      parts[1].texts = main
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

-- A numbered list at the top level that starts at the number after question `q`'s (a
-- question marked `6`, then a list from `7.`): it goes on numbering the questions.
local function continues_numbering(b, q)
  if b.t ~= 'OrderedList' then return false end
  local n, style = tonumber(q.number), b.listAttributes.style
  return n ~= nil and b.listAttributes.start == n + 1
    and (style == 'Decimal' or style == 'DefaultStyle')
end

local function has_markers(blocks)
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and heading_marker(b) then return true end
    if bold_marker(b) then return true end
  end
  return false
end

-- A callout: a paragraph that is only bold text with no number, repeated word for word in
-- the document (`**✅ Do this**` before each activity of a course's notes), opening what a
-- student does: its text, else nil. A label before text (`**Hint:**`) or a solution word
-- is none.
local function callout_text(b)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or #b.content ~= 1 or b.content[1].t ~= 'Strong' then return nil end
  local t = trim(pandoc.utils.stringify(b.content[1]))
  if t == '' or #t > 40 or t:match('%d') or t:match(':$') then return nil end
  local first = (t:lower():match('^[%a\128-\255]+') or '')
  if SOLUTION_WORDS[first] or first == 'solutions' or first == 'answers' then return nil end
  return t
end

-- The callouts of a document's top level repeated two or more times, and those opening
-- with the same symbol as a repeated one (`**✅ Try this**` beside `**✅ Do this**`):
-- text → true.
local function callouts(blocks)
  local n, out, symbols = {}, {}, {}
  for _, b in ipairs(blocks) do
    local t = callout_text(b)
    if t then n[t] = (n[t] or 0) + 1 end
  end
  for t, k in pairs(n) do
    if k >= 2 then
      out[t] = true
      local sym = t:match('^(%S+)%s')
      if sym and not sym:match('[%w]') then symbols[sym] = true end
    end
  end
  for t in pairs(n) do
    local sym = t:match('^(%S+)%s')
    if sym and symbols[sym] then out[t] = true end
  end
  return out
end

-- A numbered block of another kind: a paragraph opening with a bold or emphasised
-- `Word N.` whose word is no question word (lecture notes' `**Définition 9.**`,
-- `*Remarque 5*.` between their exercises): its word (lower case) and number, else nil.
local function other_block_word(b)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or not b.content[1] then return nil end
  local first = b.content[1]
  if first.t ~= 'Strong' and first.t ~= 'Emph' then return nil end
  local word, num = trim(pandoc.utils.stringify(first)):match('^([%a\128-\255]+)%.?%s*(%d+)%.?$')
  if word and not is_question_word(word) then return word:lower(), tonumber(num) end
  return nil
end

-- The words of such blocks when they are numbered on one counter with the questions (all
-- the numbered blocks, questions among them, count up in the order of the document:
-- `Définition 1`, `Exemple 2`, `Exercice 3`, `Définition 4`): lecture text between the
-- questions, which ends the question before it. Blocks that number on their own (`Step
-- 1`, `Step 2` inside a question, again in the next) are the questions' text.
local function other_block_words(blocks)
  local n, out, last = 0, {}, nil
  for _, b in ipairs(blocks) do
    local w, k = other_block_word(b)
    if not w then
      local qn = bold_marker(b)
      k = qn and tonumber(qn) or nil
    end
    if k then
      if last and k <= last then return {} end
      last = k
    end
    if w then n, out[w] = n + 1, true end
  end
  if n < 2 or ROLE ~= 'questions' then return {} end
  return out
end

-- The words of the document's numbered bold markers (`**Problem 3.**` → `problem`) when two
-- or more open so: word → true.
local function numbered_bold_words(blocks)
  local n, out = {}, {}
  for _, b in ipairs(blocks) do
    if bold_marker(b) and b.content[1] and b.content[1].t == 'Strong' then
      local w = trim(pandoc.utils.stringify(b.content[1])):match('^([%a\128-\255]+)')
      if w then n[w:lower()] = (n[w:lower()] or 0) + 1 end
    end
  end
  for w, k in pairs(n) do if k >= 2 then out[w] = true end end
  return out
end

-- A heading with no number whose words, capitalised as a label is and four at most, end in
-- a question word (`## Book Problems`, `## Bonus Question` right after `## Problem 1`): its
-- text (the question's title), else nil. The segmenter opens a question at it only where it
-- stands at the level of the question heading before it (:func:`segment`).
local function unnumbered_heading(b)
  local t = heading_text(b)
  if t == '' or t:match('%d') or words_in(t) > 4 or is_solutions_heading(b) then return nil end
  for w in t:gmatch('%S+') do
    if not w:match('^%u') then return nil end
  end
  local last = t:match('([%a\128-\255]+)[%.:]?$')
  if not last then return nil end
  last = last:lower()
  if not (is_question_word(last) or (last:match('s$') and is_question_word(last:sub(1, -2)))) then return nil end
  return (t:gsub('[%.:]$', ''))
end

-- A paragraph that is only bold words ending in a marker word of the document's numbered
-- bold markers, with no number, every word capitalised as a label is (`**Programming
-- Problem.**`, `**Bonus Problem:**` among `**Problem 3.**` ones): its words (the
-- question's title), else nil.
local function unnumbered_marker(b, words)
  if (b.t ~= 'Para' and b.t ~= 'Plain') or #b.content ~= 1 or b.content[1].t ~= 'Strong' then return nil end
  local t = trim(pandoc.utils.stringify(b.content[1]))
  if t:match('%d') or words_in(t) > 4 then return nil end
  local last = t:match('([%a\128-\255]+)[%.:]?$')
  if not last or not words[last:lower()] then return nil end
  for w in t:gmatch('%S+') do
    if not w:match('^%u') then return nil end  -- a label's capitals, not a sentence
  end
  return (t:gsub('[%.:]$', ''))
end

local function marker_count(blocks)
  local n = 0
  for _, b in ipairs(blocks) do
    if (b.t == 'Header' and heading_marker(b)) or bold_marker(b) then n = n + 1 end
  end
  return n
end

-- In a solutions document, a heading that names the questions it answers anywhere in its
-- text (`Réponse Q1.`, `Réponses Q5 et Q6`, `Orientation (Q7).`, `Relations (Q10a–b).`):
-- list of {number, labels}; nil when it names none, or a range of questions (`(Q1–Q3)`:
-- a group heading over the answers).
local function named_answers(text)
  local out, at = {}, 1
  while true do
    local s, e, word, num, lab = text:find('(%a+)%.?%s?(%d+)(%l?)', at)
    if not s then break end
    at = e + 1
    if is_question_word(word) and (s == 1 or not text:sub(s - 1, s - 1):match('%a'))
      and not text:sub(e + 1, e + 1):match('%a') then
      local rest = text:sub(e + 1)
      if rest:match('^%s*[%-\u{2013}\u{2014}]+%s*%a*%.?%s?%d') then return nil end
      local labels = {}
      if lab ~= '' then
        labels[1] = lab
        local to = rest:match('^%s*[%-\u{2013}]+%s*(%l)%f[%A]')
        if to then for c = lab:byte() + 1, to:byte() do labels[#labels + 1] = string.char(c) end end
      end
      out[#out + 1] = { number = num, labels = labels }
    end
  end
  if #out == 0 then return nil end
  return out
end

local function numbered_solutions(blocks)
  for _, b in ipairs(blocks) do
    if (b.t == 'Para' or b.t == 'Plain') and numbered_label(sheet.text_of(b)) then return true end
  end
  return false
end

-- Paragraph layout: numbered lists restart at 1, each after a paragraph.
-- Is `b` a numbered list a later block of the sheet answers item by item (`Solutions:` and a
-- list of as many answers: :func:`answered_lists` closes each item with a `keyed` solution div)?
local function keyed_list(b)
  if b.t ~= 'OrderedList' or #b.content == 0 then return false end
  for _, item in ipairs(b.content) do
    local d = item[#item]
    if not (d and d.t == 'Div' and d.classes:includes('keyed')) then return false end
  end
  return true
end

-- (lists a key answers item by item are asked item by item: when they are half or more of
-- the lists restarting at 1, each item is a question, the list layout, and no stem's parts)
local function paragraph_layout(blocks)
  local restarts, keyed = 0, 0
  for i, b in ipairs(blocks) do
    if b.t == 'OrderedList' and b.listAttributes.style ~= 'LowerAlpha' and b.listAttributes.style ~= 'LowerRoman'
      and (b.listAttributes.start or 1) == 1 and i > 1 and (blocks[i - 1].t == 'Para' or blocks[i - 1].t == 'Plain') then
      restarts = restarts + 1
      if keyed_list(b) then keyed = keyed + 1 end
    end
  end
  return restarts >= 2 and keyed * 2 < restarts
end

-- In the paragraph layout, is the paragraph at `i` text closing the question before it? It
-- is when no numbered list restarting at 1 follows it before the next heading or the end:
-- a question there is a stem with its list, so a paragraph no list follows is no stem
-- (`Submit the time it took.` after the parts, at the end of its section).
local function closes_question(blocks, i)
  for j = i + 1, #blocks do
    local b = blocks[j]
    if b.t == 'Header' then return true end
    if b.t == 'OrderedList' and (b.listAttributes.start or 1) == 1 then return false end
  end
  return true
end

local function list_kind(b)
  return tostring(b.listAttributes.style) .. '/' .. tostring(b.listAttributes.delimiter)
end

-- The sheet's question numbering, when it runs on across interruptions in one list
-- style while lists of another style restart inside it (`(1)` … `(6)`, a `1.` … `5.` list
-- of activity steps under a section, then `(7)`): the kind (style/delimiter) of the
-- lists that number the questions; the lists of other kinds are text of the question
-- they stand in. nil when no single kind runs on so (segment sets it per document).
local QUESTION_KIND = nil

local function numbering_kind(blocks)
  local ends, continues, kinds = {}, {}, {}
  for _, b in ipairs(blocks) do
    local s = b.t == 'OrderedList' and b.listAttributes.style
    if s and s ~= 'LowerAlpha' and s ~= 'UpperAlpha' and s ~= 'LowerRoman' and s ~= 'UpperRoman' then
      local k, start = list_kind(b), b.listAttributes.start or 1
      kinds[k] = true
      if start > 1 and ends[k] == start - 1 then continues[k] = true end
      ends[k] = start + #b.content - 1
    end
  end
  local kind, n, others = nil, 0, 0
  for k in pairs(continues) do kind, n = k, n + 1 end
  for k in pairs(kinds) do if k ~= kind then others = others + 1 end end
  if n == 1 and others > 0 then return kind end
  return nil
end

-- Lists of letters that run on the sheet's questions after a rule: a top-level list
-- of capitals (`A.`, `B.`) that follows a list of numbered questions with only a
-- horizontal rule between them is a new run of questions, not parts of the last one (a
-- worksheet's numbered tasks, a rule, then lettered tasks). Block → true; set per document.
local RULED = {}

local function ruled_runs(blocks)
  local out, prev, rule = {}, nil, false
  for _, b in ipairs(blocks) do
    if b.t == 'HorizontalRule' then
      rule = true
    elseif b.t ~= 'RawBlock' then
      local s = b.t == 'OrderedList' and b.listAttributes.style
      if rule and s == 'UpperAlpha' and prev and (out[prev] or (prev.t == 'OrderedList'
          and prev.listAttributes.style ~= 'LowerAlpha' and prev.listAttributes.style ~= 'UpperAlpha'
          and prev.listAttributes.style ~= 'LowerRoman' and prev.listAttributes.style ~= 'UpperRoman')) then
        out[b] = true
      end
      prev, rule = b, false
    end
  end
  return out
end

local function is_question_list(b)
  local s = b.listAttributes.style
  if RULED[b] then return true end
  if QUESTION_KIND and list_kind(b) ~= QUESTION_KIND then return false end
  return s ~= 'LowerAlpha' and s ~= 'UpperAlpha' and s ~= 'LowerRoman' and s ~= 'UpperRoman'
end

-- Heading layout: with no question markers, headings that are only a part label
-- (`## a)`) are parts, and every heading one level up from the shallowest of them
-- (`# Title`, unnumbered) opens a question; the level of those, or nil.
local function heading_layout(blocks)
  local plevel = nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and part_heading(b) and (not plevel or b.level < plevel) then plevel = b.level end
  end
  if not plevel then return nil end
  local qlevel = nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and b.level < plevel and not solution_heading(b) and (not qlevel or b.level > qlevel) then
      qlevel = b.level
    end
  end
  return qlevel
end

-- The sheet numbers its top-level list items as questions are numbered: a list that
-- starts at a number other than 1 (numbering resumed after text or a heading:
-- `\item[4.]`, enumitem's `resume`, `\setcounter{enumi}`), or an item with a numbered
-- list of its own (the item has parts, so it is a question, not a part). Then lists
-- restarting at 1 after a paragraph are runs of questions, not the paragraph's parts.
local function numbered_as_questions(blocks)
  for _, b in ipairs(blocks) do
    if b.t == 'OrderedList' and is_question_list(b) then
      if (b.listAttributes.start or 1) ~= 1 then return true end
      for _, item in ipairs(b.content) do
        for _, c in ipairs(item) do
          if c.t == 'OrderedList' then return true end
        end
      end
    end
  end
  return false
end

-- Sections group the questions: two or more headings that are no question marker are
-- each followed by a list of questions before the next heading. Text under such a
-- heading (a section's set-up: data, definitions, a derivation) leads into the section's
-- next question; under a lone heading (the sheet's title) it is chrome.
local function sectioned(blocks)
  local n, open = 0, false
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      open = heading_marker(b) == nil
    elseif open and b.t == 'OrderedList' and is_question_list(b) then
      n, open = n + 1, false
    end
  end
  return n >= 2
end

-- Notes whose activities each open at a callout (`**✅ Do this**`): a question per callout,
-- with the text since the heading above it (its set-up) when no question came between; a
-- heading ends a question, and the lecture text between the activities is chrome.
local function callout_segment(blocks, calls)
  local qs, cur, lead, title = {}, nil, {}, ''
  html_capture = nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      cur, lead, title = nil, {}, heading_text(b)
    elseif calls[callout_text(b) or ''] then
      cur = new_question(qs, '', title, 99)
      title = ''
      for _, lb in ipairs(lead) do block_units(lb, cur.units) end
      lead = {}
    elseif cur then
      block_units(b, cur.units)
    else
      lead[#lead + 1] = b
    end
  end
  html_capture = nil
  for _, q in ipairs(qs) do assemble(q) end
  return qs
end

-- Bold markers numbered inside the marker headings above them (`## 1. Title` over
-- `**Question 1.1**`, `**Question 1.2**`; or restarting at 1 under each: `**Question 1**`
-- … `**Question 5**`, then under `## 2.` `**Question 1**` again), under two or more
-- such headings and never outside one: the headings are the questions and the bold
-- markers their parts.
local function nested_markers(blocks)
  local groups, cur = {}, nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' then
      local num = heading_marker(b)
      if num then
        cur = { number = num, level = b.level, bolds = {} }
        groups[#groups + 1] = cur
      elseif not cur or b.level <= cur.level then
        cur = nil
      end
    else
      local num = bold_marker(b)
      if num then
        if not cur then return false end
        cur.bolds[#cur.bolds + 1] = num
      end
    end
  end
  local any = false
  if #groups < 2 then return false end
  for _, g in ipairs(groups) do
    local prefixed, counted = true, true
    for i, n in ipairs(g.bolds) do
      any = true
      if n:sub(1, #g.number + 1) ~= g.number .. '.' then prefixed = false end
      if tonumber(n) ~= i then counted = false end
    end
    if not (prefixed or counted) then return false end
  end
  return any
end

-- Bold markers numbered one level deeper than most of the sheet's dotted markers
-- (`**Question 1.8.0**`, `**Question 1.8.1**` among `**Question 1.7**`, `**Question 1.9**`)
-- are parts of the question their number's first levels name (`1.8`), whether or not the
-- sheet marks that question on its own. Returns that depth (levels in most markers' numbers,
-- two or more, held by two or more markers), nil when no marker is one level deeper.
local function marker_depth(blocks)
  local depths = {}
  for _, b in ipairs(blocks) do
    local num = bold_marker(b)
    if num and num:match('^%d+[%.%d]*$') then
      local d = select(2, num:gsub('%.', '')) + 1
      depths[d] = (depths[d] or 0) + 1
    end
  end
  local best, most = nil, 0
  for d, n in pairs(depths) do
    if n > most or (n == most and d < best) then best, most = d, n end
  end
  if best and best >= 2 and most >= 2 and (depths[best + 1] or 0) > 0 then return best end
  return nil
end

-- The question a marker one level deeper than `depth` belongs to (`1.8.0` at depth 2 → `1.8`),
-- nil for any other marker.
local function deeper_parent(num, depth)
  if not depth or not num or not num:match('^%d+[%.%d]*$') then return nil end
  local levels = {}
  for x in num:gmatch('%d+') do levels[#levels + 1] = x end
  if #levels ~= depth + 1 then return nil end
  return table.concat(levels, '.', 1, depth)
end

-- The sheet sets up its questions with text before their lists: a later question list
-- follows a paragraph that is no part label (a scenario between two runs of items). Then
-- the text before the first list is such a set-up too, not instructions.
local function sets_up_lists(blocks)
  local lists, prev = 0, nil
  for _, b in ipairs(blocks) do
    if b.t == 'OrderedList' and is_question_list(b) then
      lists = lists + 1
      if lists > 1 and prev and (prev.t == 'Para' or prev.t == 'Plain')
        and not line_label(sheet.lines(sheet.text_of(prev))[1] or '') then
        return true
      end
    end
    if b.t ~= 'RawBlock' then prev = b end
  end
  return false
end

-- No other heading of the document is as shallow as `level`: the first heading at it is
-- the sheet's title, and the text under it its instructions.
local function lone_level(blocks, level)
  local n = 0
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and b.level <= level then n = n + 1 end
  end
  return n <= 1
end

-- How many headings after `h` are deeper than it.
local function deeper_headings(blocks, h)
  local n, seen = 0, false
  for _, b in ipairs(blocks) do
    if b == h then seen = true elseif seen and b.t == 'Header' and b.level > h.level then n = n + 1 end
  end
  return n
end

-- The sheet's title written with a bare number (`# 18.330 Problem set 2`, a course number):
-- the first heading, none other as shallow, its marker no question word, over two or more
-- deeper headings whose markers all name their question word (`#### Exercise 1: …`). It is
-- another kind than the questions' markers: the title, chrome.
local function numbered_title(blocks, b)
  if not lone_level(blocks, b.level) or not heading_text(b):match('^%d') then return false end
  local worded = 0
  for _, x in ipairs(blocks) do
    if x.t == 'Header' and x ~= b and heading_marker(x) then
      if x.level <= b.level or heading_text(x):match('^%d') then return false end
      worded = worded + 1
    end
  end
  return worded >= 2
end

-- The 'leaves' layout (`level`: the deeper of two heading levels): the sheet's tasks are
-- its innermost sections. A heading at `level` whose section has text of its own (prose, not
-- only code) opens a question; one with none (`### Use pivot functions` over a code chunk)
-- opens a part of the question before it, its words the part's text. A shallower heading
-- whose section holds such questions groups them (its text is the group's, no question's);
-- one that holds none but a code chunk to fill is a question itself. Returns block index → 'question' / 'part'.
local function prose_block(b)
  if b.t == 'Para' or b.t == 'Plain' or b.t == 'BulletList' or b.t == 'OrderedList'
    or b.t == 'BlockQuote' or b.t == 'Table' or b.t == 'LineBlock' or b.t == 'DefinitionList' then
    return trim(pandoc.utils.stringify(b)) ~= ''
  end
  return b.t == 'Div' and trim(pandoc.utils.stringify(b)) ~= ''
end

local function leaf_roles(blocks, level)
  local roles = {}
  for i, b in ipairs(blocks) do
    if b.t == 'Header' and b.level == level then
      local prose = false
      for j = i + 1, #blocks do
        if blocks[j].t == 'Header' then break end
        if prose_block(blocks[j]) then prose = true; break end
      end
      roles[i] = prose and 'question' or 'part'
    end
  end
  for i, b in ipairs(blocks) do
    if b.t == 'Header' and b.level < level then
      local groups, answers = false, false
      for j = i + 1, #blocks do
        local c = blocks[j]
        if c.t == 'Header' and c.level <= b.level then break end
        if roles[j] == 'question' then groups = true; break end
        if c.t == 'CodeBlock' then answers = true end
      end
      -- (a section with no code, no place to answer, is the sheet's objectives or instructions)
      if not groups and answers then roles[i] = 'question' end
    end
  end
  return roles
end

local function segment(blocks)
  local qs, cur = {}, nil
  local answers = nil
  html_capture = nil
  QUESTION_KIND = numbering_kind(blocks)
  RULED = ruled_runs(blocks)
  local markers = has_markers(blocks)
  local numbered = ROLE == 'solutions' and numbered_solutions(blocks)
  local qlevel = not markers and not numbered and heading_layout(blocks)
  local paragraphs = not markers and not numbered and not qlevel and paragraph_layout(blocks)
    and not numbered_as_questions(blocks)
  local mode = LAYOUT.mode
  if mode == nil and ROLE == 'questions' and marker_count(blocks) <= 1 and not numbered then
    -- (one lone marker, such as a dated title `# 31 Aug 23 - Activity`, is no layout)
    local calls = callouts(blocks)
    if next(calls) then return callout_segment(blocks, calls), nil end
  end
  if mode == 'markers' then
    markers, numbered, qlevel, paragraphs = true, false, false, false
  elseif mode == 'headings' then
    markers, numbered, paragraphs = false, false, false
    qlevel = LAYOUT.level or heading_layout(blocks)
  elseif mode == 'paragraphs' then
    markers, numbered, qlevel, paragraphs = false, false, false, true
  elseif mode == 'list' then
    markers, numbered, qlevel, paragraphs = false, false, false, false
  end
  local leaves = nil
  if mode == 'leaves' and LAYOUT.level then
    markers, numbered, paragraphs, qlevel = false, false, false, LAYOUT.level
    leaves = leaf_roles(blocks, LAYOUT.level)
  end
  local others = markers and other_block_words(blocks) or {}
  local bold_words = markers and numbered_bold_words(blocks) or {}
  local listed = not markers and not numbered and not qlevel and not paragraphs
  local sections = listed and sectioned(blocks)
  local nested = markers and nested_markers(blocks)
  local depth = markers and not nested and marker_depth(blocks)
  local group = ''
  -- In the list layout, text between questions waits here: it leads into the next
  -- question (set-up text before a list, a section's introduction), or, when a heading
  -- comes first, closes the question before it. `after_heading`: it follows a heading.
  -- Before the first question, text that runs straight into the list sets the list up
  -- (a scenario at the top of a sheet whose title is metadata, when later lists are set up
  -- so too: :func:`sets_up_lists`; a scenario under
  -- `# Exercises` after the course's chrome sections): it leads into the first question.
  -- Text under the sheet's title (its first heading, none other as shallow: instructions)
  -- stays chrome, and so does text a heading follows.
  local lead, after_heading, headings_seen = {}, listed and sets_up_lists(blocks), 0
  -- In the paragraph layout, the text under the sheet's title, when sections (two or more
  -- deeper headings) follow it, is the sheet's head (due date, instructions), not a question:
  -- the questions open under the sections. `in_head`: such text is being read.
  local in_head = false
  -- With question markers, a heading that is none (nor the sheet's title) over
  -- deeper question headings or bold markers groups them (`## Questions 1-3` over
  -- `### Question 1`): the text under it is the group's shared stem, which leads into the
  -- group's first question; `stem` holds it, `stem_level` is the group heading's level.
  local stem, stem_level = nil, 0
  local function flush_stem(q, level)
    if stem and level > stem_level then
      for _, sb in ipairs(stem) do block_units(sb, q.units) end
    end
    stem = nil
  end
  local function flush_lead(q)
    if q then
      for _, lb in ipairs(lead) do
        if lb.t == 'OrderedList' then
          -- a list in another numbering than the questions': text of the question
          q.units[#q.units + 1] = { k = 'text', text = sheet.text_of(lb) }
        else
          block_units(lb, q.units)
        end
      end
    end
    lead = {}
  end
  -- a solutions document's answers under headings that name their questions: the blocks
  -- under one such heading, given to each question (and part) it names
  local named = nil
  local function finish_named()
    if not named then return end
    for _, t in ipairs(named.targets) do
      local q = nil
      for _, x in ipairs(qs) do if x.number == t.number then q = x; break end end
      q = q or new_question(qs, t.number, '', named.level)
      local labels = #t.labels > 0 and t.labels or { false }
      for _, l in ipairs(labels) do
        if l then q.units[#q.units + 1] = { k = 'open', label = l, form = 'alpha', text = '' } end
        for _, nb in ipairs(named.blocks) do block_units(nb, q.units) end
      end
    end
    named = nil
  end
  -- the index of the last block opening a question with a bold marker
  local last_marker = nil
  if markers then
    for bi, b in ipairs(blocks) do if bold_marker(b) then last_marker = bi end end
  end
  -- in a solutions document, the index of the last block opening an answer with a marker
  local last_opening = nil
  if markers and ROLE == 'solutions' then
    for bi, b in ipairs(blocks) do
      if bold_marker(b) or (b.t == 'Header' and heading_marker(b)) then last_opening = bi end
    end
  end
  for bi, b in ipairs(blocks) do
    if named and b.t ~= 'Header' then
      named.blocks[#named.blocks + 1] = b
      goto next_block
    end
    if b.t == 'Header' then finish_named() end
    -- (not when only bold openings are the solutions' markers: their headings are sections)
    if ROLE == 'solutions' and b.t == 'Header' and not LAYOUT.bold and not heading_marker(b)
      and named_answers(heading_text(b)) then
      named = { targets = named_answers(heading_text(b)), level = b.level, blocks = {} }
      cur = nil
      goto next_block
    end
    if answers then
      answers[#answers + 1] = b
    elseif html_capture then
      if cur then block_units(b, cur.units) else block_units(b, {}) end
    elseif b.t == 'Header' then
      -- text waiting since a heading runs on across a deeper one into the next question
      -- (a section's introduction), except before the sheet's first question, where a
      -- heading followed by another (title, instructions) is chrome
      if listed and (not after_heading or #qs == 0) then flush_lead(cur) end
      local num, title, prompt = heading_marker(b)
      if num and markers and headings_seen == 0 and numbered_title(blocks, b) then num = nil end
      local joined_n, joined_l = (num or ''):match('^(%d+)%((%l)%)$')
      if joined_n and markers then
        -- `### Problem 1b`: a part of question 1, which the heading of its part (a) opened;
        -- the text under it is the part's
        if not cur or cur.number ~= joined_n then
          cur = new_question(qs, joined_n, '', b.level)
          flush_stem(cur, b.level)
        end
        cur.units[#cur.units + 1] = { k = 'open', label = joined_l, form = 'alpha', text = title, heading = true }
      elseif num and markers then
        cur = new_question(qs, num, title, b.level)
        flush_stem(cur, b.level)
        -- a heading holding the whole prompt: the question's text (a solution restates it)
        if prompt and prompt ~= '' and ROLE ~= 'solutions' then
          cur.units[#cur.units + 1] = { k = 'text', text = prompt }
        end
      elseif markers and cur and cur.level == b.level and unnumbered_heading(b) then
        -- `## Book Problems` after `## Problem 1`, at its level: a question the sheet does not
        -- number (its number is its place)
        cur = new_question(qs, '', unnumbered_heading(b), b.level)
      elseif leaves and leaves[bi] == 'question' and not is_solutions_heading(b) then
        cur = new_question(qs, '', heading_text(b), b.level)
        flush_stem(cur, b.level)
      elseif leaves and leaves[bi] == 'part' and cur then
        -- a task heading with no text of its own: a part of the question, its words the part's
        cur.units[#cur.units + 1] = { k = 'open', label = '', form = 'bullet', text = heading_text(b), heading = true }
      elseif qlevel and b.level == qlevel and not is_solutions_heading(b) and not leaves then
        cur = new_question(qs, '', heading_text(b), b.level)
      elseif ROLE == 'questions' and is_solutions_heading(b) and (not cur or b.level <= cur.level) and #qs > 0 then
        -- the answers to the questions before it (`## Answers to Questions` over the
        -- questions themselves, with nothing before it, answers nothing)
        answers = {}
      elseif cur and b.level > cur.level then
        block_units(b, cur.units)
      elseif ROLE == 'solutions' and cur and bare_answer_heading(b) then
        cur.units[#cur.units + 1] = { k = 'solstart' }
      elseif ROLE == 'solutions' and cur and last_opening and bi > last_opening and b.level == cur.level then
        -- after the solutions' last marker, a heading at the markers' level that is none (a
        -- script's comment `## For arrays, we saw this:` read as a heading): no answer follows
        -- for it to group or open, so the last answer goes on
        block_units(b, cur.units)
      else
        local title = headings_seen == 0 and lone_level(blocks, b.level)
        in_head = paragraphs and title and deeper_headings(blocks, b) >= 2
        after_heading = sections or (#qs == 0 and not title)
        cur = nil
        group = heading_text(b)
        if (markers or leaves) and not title and ROLE == 'questions' then stem, stem_level = {}, b.level end
      end
      if cur then stem = nil end
      if headings_seen > 0 then in_head = false end
      headings_seen = headings_seen + 1
    elseif markers and others[(other_block_word(b)) or ''] then
      -- a definition, example or remark of lecture notes ends the question; it and what
      -- follows it up to the next question are the notes, no question's text (nor a stem)
      cur, stem = nil, nil
    elseif nested and cur and bold_marker(b) then
      -- a bold marker numbered inside its heading's question: a part of it
      local num, title, rest, prompt = bold_marker(b)
      local text = trim(rest) ~= '' and rest or title
      if prompt and prompt ~= '' then text = trim(prompt .. '\n\n' .. rest) end
      cur.units[#cur.units + 1] = { k = 'open', label = num, form = 'marker', text = text }
    elseif depth and deeper_parent(bold_marker(b), depth) then
      -- `**Question 1.8.0**` among two-level markers: a part of question 1.8, opened here
      -- when the sheet does not mark it on its own
      local num, title, rest, prompt = bold_marker(b)
      local parent = deeper_parent(num, depth)
      if not cur or cur.number ~= parent then
        cur = new_question(qs, parent, '', 99)
        flush_stem(cur, 99)
      end
      local text = trim(rest) ~= '' and rest or title
      if prompt and prompt ~= '' then text = trim(prompt .. '\n\n' .. rest) end
      -- (the text after the marker is the part's own, as under a heading)
      cur.units[#cur.units + 1] = { k = 'open', label = num, form = 'marker', text = text, heading = true }
    elseif markers and bold_marker(b) and select(1, bold_marker(b)):match('^%d+%(%l%)$') then
      -- `**Problem 2(b)**`: a part of question 2, which the marker of its part (a) opened
      local num, _, rest = bold_marker(b)
      local n, l = num:match('^(%d+)%((%l)%)$')
      if not cur or cur.number ~= n then
        cur = new_question(qs, n, '', 99)
        flush_stem(cur, 99)
      end
      cur.units[#cur.units + 1] = { k = 'open', label = l, form = 'alpha', text = solution_frame(rest) }
    elseif markers and bold_marker(b) then
      local num, title, rest, prompt = bold_marker(b)
      cur = new_question(qs, num, title, 99)
      -- the marker names more than a number (`Problem #3.8 in the book`): the line may be
      -- all the question has
      if title ~= '' and trim(rest) == '' and (prompt or '') == '' then cur.marker_text = trim(sheet.text_of(b)) end
      flush_stem(cur, 99)
      if prompt and prompt ~= '' and ROLE ~= 'solutions' then
        cur.units[#cur.units + 1] = { k = 'text', text = prompt }
      end
      if trim(rest) ~= '' then
        label_units(rest, cur.units)
        local last = cur.units[#cur.units]
        if last and last.k == 'text' then cur.units[#cur.units] = nil; text_unit(last.text, cur.units) end
      end
    elseif markers and ROLE == 'questions' and unnumbered_marker(b, bold_words) then
      -- `**Programming Problem.**` among `**Problem 3.**` markers: a question the sheet
      -- does not number (its number is its place)
      cur = new_question(qs, '', unnumbered_marker(b, bold_words), 99)
      flush_stem(cur, 99)
    elseif markers and ROLE == 'questions' and cur and last_marker and (bi > last_marker and bold_bonus(b)
        or bold_bonus(b, true)) then
      -- (a bonus problem the sheet names with a letter of its own, `**Extra Credit A.**`, is
      -- one wherever it stands, between numbered questions too)
      -- `**Extra Credit. [1 point]** Show …` after the sheet's last numbered question: a
      -- question of its own the sheet does not number, titled by its label
      local title, rest = bold_bonus(b, true)
      cur = new_question(qs, '', title, 99)
      if rest ~= '' then text_unit(rest, cur.units) end
    elseif markers and cur and continues_numbering(b, cur) then
      -- numbered items that go on from the marked question's number (`### Question 6`, then
      -- `7. …`, `8. …`): the same questions, written another way from there on
      local start, level = b.listAttributes.start, cur.level
      for i, item in ipairs(b.content) do
        cur = new_question(qs, tostring(start + i - 1), '', level)
        for _, c in ipairs(item) do block_units(c, cur.units) end
      end
    elseif numbered and (b.t == 'Para' or b.t == 'Plain') and numbered_label(sheet.text_of(b)) then
      local n, l, rest = numbered_label(sheet.text_of(b))
      if not cur or cur.number ~= n then cur = new_question(qs, n, '', 99) end
      cur.units[#cur.units + 1] = { k = 'open', label = l, form = 'alpha', text = rest }
    elseif not markers and not numbered and not qlevel and b.t == 'OrderedList' and is_question_list(b)
      and not (paragraphs and cur) then
      local start = b.listAttributes.start or 1
      for i, item in ipairs(b.content) do
        local n = start + i - 1
        cur = new_question(qs, RULED[b] and ALPHA:sub(n, n):upper() or tostring(n), group, 99)
        cur.group = group ~= ''
        if i == 1 then flush_lead(cur) end
        local from = #cur.units + 1
        for _, c in ipairs(item) do block_units(c, cur.units) end
        if item[1] and (item[1].t == 'Para' or item[1].t == 'Plain') then lone_number_is_text(cur.units, from) end
      end
      after_heading = false
    elseif listed and ROLE == 'solutions' and cur and not after_heading and #lead == 0 and b.t ~= 'RawBlock'
      and b.t ~= 'OrderedList' then
      -- a solutions document numbering its answers as the questions' list: what follows an
      -- item (a restated prompt) answers it, never leads into the next
      block_units(b, cur.units)
    elseif listed and (cur or after_heading) and b.t ~= 'RawBlock'
      and (b.t ~= 'OrderedList' or (QUESTION_KIND and list_kind(b) ~= QUESTION_KIND))
      and not (b.t == 'Div' and is_answer_class(b.classes))
      and not (cur and #lead == 0 and not after_heading and starts_continuation(sheet.text_of(b))) then
      lead[#lead + 1] = b
    elseif paragraphs and (b.t == 'Para' or b.t == 'Plain') and (not cur or cur.closed) and not in_head
      and not (cur and closes_question(blocks, bi)) then
      cur = new_question(qs, '', '', 99)
      block_units(b, cur.units)
    elseif paragraphs and b.t == 'OrderedList' and cur then
      block_units(b, cur.units)
      cur.closed = true
    elseif cur then
      flush_lead(cur)
      block_units(b, cur.units)
    elseif stem and b.t == 'HorizontalRule' then
      -- a rule between the group heading's text and its first question sets that text
      -- apart (a notebook's instructions cell): chrome, no stem; what follows the rule is
      stem = {}
    elseif stem then
      stem[#stem + 1] = b
    elseif b.t == 'RawBlock' then
      block_units(b, {}) -- an answer div outside any question opens and closes here
    end
    ::next_block::
  end
  finish_named()
  if not after_heading then flush_lead(cur) end
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
  -- a marker heading with nothing under it but cell breaks, over deeper question
  -- headings (`# Q2 Pool` over `## 1.lambda`), is their group heading, no question
  for i = #qs - 1, 1, -1 do
    local q, nxt = qs[i], qs[i + 1]
    local empty = true
    for _, u in ipairs(q.units) do
      if u.k ~= 'cell' and not (u.k == 'text' and trim(u.text) == '') then empty = false end
    end
    if empty and q.level < nxt.level then table.remove(qs, i) end
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
    if target then merge_parts(target, s) end
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

-- `<!-- -->` alone on a line: the separator pandoc writes between two lists (a Word key's
-- list broken by code), no text of the sheet's; its line is cut from a field.
local function separators_cut(t)
  if not t:find('<!--', 1, true) then return t end
  local kept = {}
  for _, l in ipairs(sheet.lines(t)) do
    if not l:match('^%s*<!%-%-%s*%-%->%s*$') then kept[#kept + 1] = l end
  end
  return (table.concat(kept, '\n'):gsub('\n\n\n+', '\n\n'))
end

local function joined(texts)
  local out = {}
  for _, t in ipairs(texts or {}) do
    t = separators_cut(t)
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

-- In the 'sections' layout, a section with no heading at the parts' level after the first
-- section that has them (`\section{Enthalpy}` with no `\subsection`, between or after numbered
-- sections whose subsections are parts) is a question of its own with no parts: its text the
-- main text. Before the first such section it is chrome (a welcome, instructions), as is one
-- with no text.
local function partless_question(q)
  for _, t in ipairs(q.main_texts) do
    if trim(t) ~= '' then return true end
  end
  return false
end

-- Each section heading above the asking level opens a question (its title the heading
-- text as printed); each asking heading (with `any_heading`, every heading at `level`: the
-- 'sections' layout) opens a part whose content starts with its heading; the text before
-- the first part is the main text. A section with no such heading is chrome (objectives,
-- downloads, instructions), except in the 'sections' layout after the first section that has
-- parts (:func:`partless_question`).
local function asking_questions(blocks, level, any_heading)
  local qs, cur, part = {}, nil, nil
  for _, b in ipairs(blocks) do
    if b.t == 'Header' and b.level < level then
      cur = { number = '', title = heading_text(b), main_texts = {}, parts = {} }
      qs[#qs + 1] = cur
      part = nil
    elseif cur and b.t == 'Header' and b.level == level and (any_heading or asks(b)) then
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
    if #q.parts > 0 or (any_heading and #out > 0 and partless_question(q)) then out[#out + 1] = q end
  end
  return out
end

-- The whole document as one question (a sheet with no question marker at all): its text
-- the main text, its part labels (`(a)`, lists) its parts.
local function whole(blocks)
  local q = new_question({}, '', '', 0)
  html_capture = nil
  for _, b in ipairs(blocks) do block_units(b, q.units) end
  html_capture = nil
  assemble(q)
  return { q }
end

local function has_text(qs)
  for _, q in ipairs(qs) do
    if #q.main_texts > 0 or #q.parts > 0 then return true end
  end
  return false
end

-- A question set in a fenced div that its own heading opens (R Markdown's and Quarto's
-- `::: {.question}` over `#### Question 3`, an `.exercise` or `.problem` box): the div only
-- frames the question, so its blocks are read where it stands, the heading a marker like any
-- other. Answer divs and part divs keep their meaning; a div opening with no heading is left.
local function framed_questions_opened(blocks)
  local out = {}
  for _, b in ipairs(blocks) do
    if b.t == 'Div' and not is_answer_class(b.classes) and not has_part_class(b.classes)
        and b.content[1] and b.content[1].t == 'Header' then
      for _, c in ipairs(b.content) do out[#out + 1] = c end
    else
      out[#out + 1] = b
    end
  end
  return out
end

-- A bullet list each of whose items opens with a bold question marker (`- **Q1**. Report …`,
-- one list per question when an answer slot stands between them): the items are the
-- questions, written as bullets; their blocks are read as if at the top level.
local function marked_bullets_lifted(blocks)
  local out = {}
  for _, b in ipairs(blocks) do
    local lift = b.t == 'BulletList' and #b.content > 0
    if lift then
      for _, item in ipairs(b.content) do
        if not (item[1] and bold_marker(item[1])) then lift = false; break end
      end
    end
    if lift then
      for _, item in ipairs(b.content) do
        for _, c in ipairs(item) do out[#out + 1] = c end
      end
    else
      out[#out + 1] = b
    end
  end
  return pandoc.Blocks(out)
end

-- A heading marker's number restated as a one-item numbered list right under it (`### Question
-- 3 (fpp10)` ⏎ `3.  The data contains …`: a template whose headings and list items both count):
-- the item is the question's text, no part (nor question) of its own; its blocks stand in the
-- list's place. Not when a later list under the same heading goes on counting from it (`1.`,
-- a code chunk, `2.`: parts split by code), where the item is the first of the parts.
local function restated_numbers_unwrapped(blocks)
  local out, heading_num = {}, nil
  for bi, b in ipairs(blocks) do
    local style = b.t == 'OrderedList' and b.listAttributes.style
    local restated = heading_num and (style == 'Decimal' or style == 'DefaultStyle') and #b.content == 1
      and tostring(b.listAttributes.start or 1) == heading_num
    if restated then
      for k = bi + 1, #blocks do
        local c = blocks[k]
        if c.t == 'Header' then break end
        if c.t == 'OrderedList' and (c.listAttributes.start or 1) == (b.listAttributes.start or 1) + 1
            and c.listAttributes.style == style then
          restated = false; break
        end
      end
    end
    if restated then
      for _, c in ipairs(b.content[1]) do out[#out + 1] = c end
    else
      out[#out + 1] = b
    end
    heading_num = nil
    if b.t == 'Header' then
      local num = marker_of(heading_text(b))
      if num and num:match('^%d+$') then heading_num = num end
    end
  end
  return pandoc.Blocks(out)
end

-- The compound numbers the headings count in sequence (:data:`COMPOUND`): a word and prefix
-- whose headings, two or more, number on by one (`#05-01`, `#05-02`, …), Divs entered.
local function discover_compounds(blocks)
  local seen = {}
  local function walk(list)
    for _, b in ipairs(list) do
      if b.t == 'Header' then
        local w, p, n = compound_of(heading_text(b))
        if w then
          local key = w:lower() .. ' ' .. p
          seen[key] = seen[key] or {}
          table.insert(seen[key], n)
        end
      elseif b.t == 'Div' then
        walk(b.content)
      end
    end
  end
  walk(blocks)
  for key, ns in pairs(seen) do
    local ok = #ns >= 2
    for i = 2, #ns do if ns[i] ~= ns[i - 1] + 1 then ok = false end end
    if ok then COMPOUND[key] = true end
  end
end

-- A paragraph heading a list of answers: short, ending in a colon, an answer word among its
-- first two words (`Solutions:`, `Some answers:`, `**Answers to the questions above:**`).
local function answers_lead(b)
  if b.t ~= 'Para' and b.t ~= 'Plain' then return false end
  -- (a no-break space and a line break before it are layout: ` \` on the line above)
  local t = trim((pandoc.utils.stringify(b):gsub('\u{A0}', ' ')))
  if #t > 80 or not t:match(':$') then return false end
  local n = 0
  for w in t:lower():gmatch('[%a\128-\255]+') do
    n = n + 1
    if n > 2 then break end
    if ANSWER_WORDS[w] then return true end
  end
  return false
end

local function blank_para(b)
  return (b.t == 'Para' or b.t == 'Plain') and trim((pandoc.utils.stringify(b):gsub('\u{A0}', ' '))) == ''
end

-- Lists of answers after lists of questions: a numbered list headed by an answers paragraph
-- (:func:`answers_lead`) with as many items as the last numbered list before it in the same
-- section (no heading nor part label between) answers that list item by item, in order (a block of tasks,
-- its output, then `Solutions:` and the answers). Each answer goes into its item as a
-- solution div, and the heading paragraph and the answers' list leave the sequence of blocks;
-- an answers list whose length differs from the list before it is left as it stands.
-- The lists since the last key that one key answers by number: numbered lists of one kind
-- whose numbers run on from list to list (`1.`-`3.`, a paragraph, `4.`-`5.`), the first
-- starting at the key's first number and as many items in all as the key has; nil otherwise.
local function run_answered(out, pending, sols)
  if #pending < 2 then return nil end
  local at, kind, n = sols.listAttributes.start or 1, nil, 0
  for _, k in ipairs(pending) do
    local l = out[k]
    if (kind and list_kind(l) ~= kind) or (l.listAttributes.start or 1) ~= at then return nil end
    kind = list_kind(l)
    at = at + #l.content
    n = n + #l.content
  end
  if n ~= #sols.content then return nil end
  local items = {}
  for _, k in ipairs(pending) do
    for _, item in ipairs(out[k].content) do items[#items + 1] = item end
  end
  return items
end

local function answered_lists(blocks)
  local out, last, pending = {}, nil, {}
  local i = 1
  while i <= #blocks do
    local b = blocks[i]
    -- (a heading, or a paragraph opening a part label, `**(c)**`, between them: the answers
    -- are that part's, not the list's)
    if b.t == 'Header' or ((b.t == 'Para' or b.t == 'Plain')
        and line_label(trim(sheet.lines(sheet.text_of(b))[1] or ''))) then last = nil; pending = {} end
    if last and answers_lead(b) then
      local j = i + 1
      while j <= #blocks and blank_para(blocks[j]) do j = j + 1 end
      local sols, asked = blocks[j], out[last]
      local items = nil
      if sols and sols.t == 'OrderedList' and #sols.content == #asked.content
        and (sols.listAttributes.start or 1) == (asked.listAttributes.start or 1) then
        items = asked.content
      elseif sols and sols.t == 'OrderedList' then
        -- (a key after lists whose numbers run on answers them all, by number)
        items = run_answered(out, pending, sols)
      end
      if items then
        for k, item in ipairs(items) do
          item[#item + 1] = pandoc.Div(sols.content[k], pandoc.Attr('', { 'solution', 'keyed' }))
        end
        last, pending = nil, {}
        i = j + 1
        goto next_block
      end
    end
    out[#out + 1] = b
    if b.t == 'OrderedList' then last = #out; pending[#pending + 1] = #out end
    i = i + 1
    ::next_block::
  end
  return out
end

-- ---------------------------------------------------------------------------
-- Items closed by a paragraph the sheet repeats (mode 'closing'; `LAYOUT.closing` holds the
-- paragraph's words, lower case, as tasks/read/discovery.py found them repeating: a quiz
-- bank's `Feedback` after each question and its options). The blocks since the last item
-- (or heading) are the question: its last block, when a list, its options; the block after
-- the closing paragraph is its answer: a list parallel to the options is per-option
-- feedback (its worked solution), the option whose line opens with the opening the sheet
-- gives once in each such list (`Right!`: :func:`closing_right`) correct; a paragraph is the
-- answer, unless it is short and the sheet gives it more than once (`None`: a placeholder).
-- Headings are chrome; a stem and options that a heading ends before any closing paragraph
-- are a question without an answer.

local function closing_key(b)
  if b.t ~= 'Para' and b.t ~= 'Plain' then return nil end
  return (trim(pandoc.utils.stringify(b)):gsub('[:%.]$', '')):lower()
end

local function is_list(b)
  return b and (b.t == 'BulletList' or b.t == 'OrderedList')
end

-- the opening word of a list item when it stands alone or ends in a stop (`Right!`), else nil
local function item_opening(item)
  local t = trim((sheet.text(item):gsub('\u{A0}', ' ')))
  local w = t:match('^(%S+)')
  if w and (w == t or w:match('[!%.,:;]$')) then return w end
  return nil
end

-- The opening that marks the correct option in per-option feedback: given exactly once in
-- two or more of the lists that follow a closing paragraph parallel to the options before
-- it, and in at least half of them; else nil.
local function closing_right(blocks, closers)
  local counts, lists = {}, 0
  for i = 2, #blocks - 1 do
    local b, before, after = blocks[i], blocks[i - 1], blocks[i + 1]
    if closers[closing_key(b) or ''] and is_list(before) and is_list(after)
        and #before.content == #after.content then
      lists = lists + 1
      local seen = {}
      for _, item in ipairs(after.content) do
        local w = item_opening(item)
        if w then seen[w] = (seen[w] or 0) + 1 end
      end
      for w, n in pairs(seen) do
        if n == 1 then counts[w] = (counts[w] or 0) + 1 end
      end
    end
  end
  local best, most = nil, 1
  for w, n in pairs(counts) do
    if n > most and n * 2 >= lists then best, most = w, n end
  end
  return best
end

local function closed_items(blocks, closers)
  local qs, stem = {}, {}
  local right = closing_right(blocks, closers)
  -- a short paragraph the sheet gives more than once (`None` after a closer, in an empty
  -- section) is a placeholder, no answer
  local given = {}
  for _, b in ipairs(blocks) do
    if b.t == 'Para' or b.t == 'Plain' then
      local t = trim(sheet.text_of(b))
      if words_in(t) <= 3 then given[t] = (given[t] or 0) + 1 end
    end
  end
  local function item(answer)
    local q = new_question(qs, '', '', 99)
    local options = is_list(stem[#stem]) and #stem > 1 and options_unit(stem[#stem]) or nil
    for k, sb in ipairs(stem) do
      if options and k == #stem then q.units[#q.units + 1] = options else block_units(sb, q.units) end
    end
    if answer and is_list(answer) and options and #answer.content == #options.options then
      local only_marks = true
      for k, it in ipairs(answer.content) do
        local w = item_opening(it)
        if right and w == right then options.correct[#options.correct + 1] = k - 1 end
        if trim(sheet.text(it)) ~= right then only_marks = false end
      end
      if not only_marks then q.units[#q.units + 1] = { k = 'sol', answer = '', ws = trim(sheet.text_of(answer)) } end
    elseif answer then
      local t = trim(sheet.text_of(answer))
      if is_list(answer) then
        q.units[#q.units + 1] = { k = 'sol', answer = '', ws = t }
      elseif (given[t] or 0) < 2 and t ~= '' then
        q.units[#q.units + 1] = { k = 'sol', answer = t, ws = '' }
      end
    end
    stem = {}
  end
  html_capture = nil
  local i = 1
  while i <= #blocks do
    local b = blocks[i]
    if b.t == 'Header' then
      if #stem > 1 and is_list(stem[#stem]) then item(nil) end
      stem = {}
    elseif closers[closing_key(b) or ''] then
      local nb = blocks[i + 1]
      if nb and nb.t ~= 'Header' and not closers[closing_key(nb) or ''] then i = i + 1 else nb = nil end
      if #stem > 0 then item(nb) end
    elseif not blank_para(b) then
      stem[#stem + 1] = b
    end
    i = i + 1
  end
  if #stem > 1 and is_list(stem[#stem]) then item(nil) end
  html_capture = nil
  for _, q in ipairs(qs) do assemble(q) end
  return qs
end

function Pandoc(doc)
  doc.blocks = answered_lists(doc.blocks)
  ROLE = sheet.role(doc)
  doc.blocks = restated_numbers_unwrapped(marked_bullets_lifted(framed_questions_opened(doc.blocks)))
  discover_compounds(doc.blocks)
  PART_WORDS = discover_part_words(doc.blocks)
  GENERATED = discover_generated(doc.blocks)
  SLOTS = find_slots(doc.blocks)
  BLANK_RUNS = find_blank_runs(doc.blocks)
  LABEL_PARTS = find_label_parts(doc.blocks)
  discover_point_units(doc.blocks)
  discover_pointed_level(doc.blocks)
  if LAYOUT.mode == 'whole' then return emit_questions(whole(doc.blocks)) end
  if LAYOUT.mode == 'closing' and LAYOUT.closing then
    local closers = {}
    for _, w in ipairs(LAYOUT.closing) do closers[tostring(w):lower()] = true end
    return emit_questions(closed_items(doc.blocks, closers))
  end
  if LAYOUT.mode == 'sections' and LAYOUT.level then
    -- sections holding sub-headings: each sub-heading (at `level`) opens a part
    return emit_questions(asking_questions(doc.blocks, LAYOUT.level, true))
  end
  local asking = (LAYOUT.mode == nil or LAYOUT.mode == 'asking') and asking_level(doc.blocks)
  if asking then
    local qs = asking_questions(doc.blocks, asking)
    if #qs > 0 then return emit_questions(qs) end
  end
  local qs, answers = segment(doc.blocks)
  if not has_text(qs) and not answers then
    -- no marker read any question: the sheet is one question with its text
    local one = whole(doc.blocks)
    if has_text(one) then return emit_questions(one) end
  end
  if answers then
    local saved = ROLE
    ROLE = 'solutions'
    local sols = segment(answers)
    ROLE = saved
    merge_section(qs, sols)
  end
  return emit_questions(qs)
end
