"use strict";
// The review page: one flag at a time. Every URL is relative: the page lives under its token.

const state = { overview: null, n: 0, view: null, doc: 0, busy: false, seq: 0 };
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  let response;
  try {
    response = await fetch(path, opts);
  } catch (e) {
    return { ok: false, said: "the review page's server is not answering (was the review finished?)" };
  }
  try {
    return await response.json();
  } catch (e) {
    return { ok: false, said: `the server answered ${response.status}` };
  }
}

function say(text, ok) {
  const s = $("status");
  s.textContent = text || "";
  s.className = ok === undefined ? "" : ok ? "ok" : "refused";
}

function setBusy(busy) {
  state.busy = busy;
  document.body.classList.toggle("busy", busy);
  for (const b of document.querySelectorAll("#choices button")) b.disabled = busy;
}

async function load(n) {
  const seq = state.seq;  // a flag the person opens while the overview loads is not taken back
  const o = await api("api/overview");
  if (!o.flags) { say(o.said || "this run cannot be reviewed", false); return; }
  state.overview = o;
  $("set-name").textContent = o.set_name;
  drawDocuments();
  drawStrip();
  if (!o.flags.length) {
    $("counter").textContent = "no flags";
    $("reason").textContent = "This run has no flags: nothing to review. The set can be downloaded as it is.";
    return;
  }
  if (seq === state.seq) await show(n || o.first);  // else the flag the person opened stays, its strip drawn
}

function drawStrip() {
  const o = state.overview, strip = $("strip");
  strip.replaceChildren();
  for (const f of o.flags) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = f.n;
    b.className = (f.choice ? "decided" : "open") + (f.n === state.n ? " current" : "");
    b.title = `flag ${f.n}: ${f.field} (${f.kind})` + (f.choice ? `: ${f.choice}` : ": open");
    b.addEventListener("click", () => show(f.n));
    strip.appendChild(b);
  }
  const open = o.flags.filter((f) => !f.choice).length;
  $("progress").textContent = `${o.flags.length - open} settled · ${open} open`;
  const banner = $("done-banner");
  banner.hidden = open > 0 || !o.flags.length;
  banner.textContent = "";
  if (!banner.hidden) {
    banner.append("Every flag is settled. ");
    const a = document.createElement("a");
    a.href = "set.zip"; a.download = ""; a.textContent = "Download the rebuilt set (.zip)";
    banner.append(a, ", then press Finish.");
  }
}

function drawDocuments() {
  const docs = $("docs");
  docs.replaceChildren();
  state.overview.documents.forEach((d, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = d.name;
    b.addEventListener("click", () => { state.doc = i; drawLines(); });
    docs.appendChild(b);
  });
  drawLines();
}

function drawLines() {
  const doc = state.overview.documents[state.doc];
  const place = state.view && state.view.place;
  const hits = new Set(), also = new Set();
  if (place && place.document === state.doc) {
    for (const [a, b] of place.lines) for (let i = a; i <= b; i++) hits.add(i);
    for (const [a, b] of state.view.also || []) for (let i = a; i <= b; i++) if (!hits.has(i)) also.add(i);
  }
  document.querySelectorAll("#docs button").forEach((b, i) => b.classList.toggle("current", i === state.doc));
  const pre = $("lines");
  pre.replaceChildren();
  let first = null;
  doc.lines.forEach((text, i) => {
    const line = document.createElement("span");
    line.className = "line" + (hits.has(i + 1) ? " hit" : also.has(i + 1) ? " also" : "");
    line.dataset.n = i + 1;
    line.textContent = text + "\n";
    pre.appendChild(line);
    if (hits.has(i + 1) && !first) first = line;
  });
  if (first) {
    pre.scrollTop = Math.max(0, first.offsetTop - pre.offsetTop - pre.clientHeight / 3);
  }
}

function fill(id, html) {
  $(id).innerHTML = html || '<p class="empty">(nothing)</p>';
}

async function show(n) {
  const o = state.overview;
  if (!o || n < 1 || n > o.flags.length) return;
  const seq = ++state.seq;  // a later show() wins: an answer to an earlier one is dropped
  const v = await api(`api/flag/${n}`);
  if (seq !== state.seq) return;
  if (!v.field) { say(v.said, false); return; }
  state.n = n; state.view = v;
  $("counter").textContent = `flag ${v.n} of ${v.total}`;
  $("kind").textContent = v.kind.replace("_", " ");
  $("field").textContent = v.field;
  $("decided").textContent = v.decided ? `decided: ${v.decided.choice}` : "open";
  $("decided").className = v.decided ? "decided" : "open";
  $("reason").textContent = v.reason;
  $("hint").textContent = v.hint;
  $("shown-what").textContent = v.shown_what;
  fill("shown", v.shown);
  $("shown").hidden = !v.shown;
  $("routes").hidden = !v.routes;
  if (v.routes) { fill("route-a", v.routes.a); fill("route-b", v.routes.b); }
  $("passage-box").hidden = !v.passage;
  if (v.passage) fill("passage", v.passage);
  $("readings").hidden = !v.readings;
  if (v.readings) {
    $("ocr-reading").textContent = v.readings.ocr;
    $("page-reading").textContent = v.readings.page;
    $("page-number").textContent = v.readings.page_number ? `(page ${v.readings.page_number} of the ${v.readings.document} PDF)` : "";
  }
  $("crop-box").hidden = !v.crop;
  if (v.crop) {
    $("crop").src = v.crop;
    $("crop-caption").textContent = `Page ${v.readings.page_number} of the ${v.readings.document} PDF, around the finding (boxed in red when it was located)`;
  } else {
    $("crop").removeAttribute("src");
  }
  drawChoices();
  closeNote();
  if (v.place) {
    state.doc = v.place.document;
    const name = o.documents[v.place.document].name;
    const spans = v.place.lines.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
    $("where").textContent = `${name}, line${v.place.lines.length > 1 || v.place.lines[0][0] !== v.place.lines[0][1] ? "s" : ""} ${spans}` +
      (v.place.whole ? "" : " (nearest match)") + (v.also && v.also.length ? " · blue: only in the other reading" : "");
  } else {
    $("where").textContent = "not found in the sheet";
  }
  drawLines();
  drawStrip();
  $("prev").disabled = n <= 1;
  $("next").disabled = n >= o.flags.length;
}

function drawChoices() {
  const box = $("choices");
  box.replaceChildren();
  for (const c of state.view.choices) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.choice = c.key;
    const k = document.createElement("kbd");
    k.textContent = c.shortcut;
    b.append(k, " " + c.label);
    if (state.view.decided && state.view.decided.choice === c.key) b.classList.add("chosen");
    b.addEventListener("click", () => choose(c.key));
    box.appendChild(b);
  }
  const u = document.createElement("button");
  u.type = "button"; u.id = "undo";
  const k = document.createElement("kbd");
  k.textContent = "u";
  u.append(k, " Undo");
  u.title = "take back the last decision of this review";
  u.addEventListener("click", undo);
  box.appendChild(u);
}

function offered(key) {
  return state.view && state.view.choices.some((c) => c.key === key);
}

function selectedPassage() {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || !sel.rangeCount) return "";
  const pre = $("lines");
  const range = sel.getRangeAt(0);
  if (!pre.contains(range.commonAncestorContainer)) return "";
  return sel.toString().replace(/\n$/, "");
}

async function choose(key, extra) {
  if (state.busy) return;
  if (!offered(key)) { say(`${key} is not a choice for flag ${state.n}`, false); return; }
  const body = Object.assign({ choice: key, build: state.overview.build }, extra || {});  // refused if rebuilt since
  if (key === "source" && !body.passage) {
    body.passage = selectedPassage();
    if (!body.passage) { say("First select the passage in the sheet (drag across it), then press s.", false); return; }
  }
  if (key === "note" && !body.note) { openNote(); return; }
  setBusy(true);
  say(key === "note" ? "asking the model to correct the equation…" : "applying…");
  const r = await api(`api/flag/${state.n}/decide`, body);
  setBusy(false);
  say(r.said, r.ok);
  if (!r.ok) return;
  closeNote();
  window.getSelection().removeAllRanges();
  await load(nextOpen(r.n));
}

function nextOpen(n) {
  // the next flag after n still open in the overview as it was (the decided one counts as settled)
  const flags = state.overview.flags;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[(n + i) % flags.length];
    if (!f.choice && f.n !== n) return f.n;
  }
  return n;
}

async function undo() {
  if (state.busy) return;
  setBusy(true);
  const r = await api("api/undo", {});
  setBusy(false);
  say(r.said, r.ok);
  if (r.ok) await load(r.n);
}

function openNote() {
  const v = state.view;
  $("note-form").hidden = false;
  const sel = $("equation");
  sel.replaceChildren();
  for (let i = 1; i <= v.equations; i++) {
    const o = document.createElement("option");
    o.value = i; o.textContent = `${i} of ${v.equations}`;
    sel.appendChild(o);
  }
  $("equation-box").hidden = v.equations <= 1;
  $("note").focus();
}

function closeNote() {
  $("note-form").hidden = true;
  $("note").value = "";
}

function showSelection() {
  const p = selectedPassage();
  const box = $("selection");
  box.textContent = "";
  if (!p || !offered("source")) return;
  const short = p.length > 160 ? p.slice(0, 159) + "…" : p;
  box.append("Selected in the sheet: ");
  const q = document.createElement("q");
  q.textContent = short;
  box.append(q, " — press ");
  const k = document.createElement("kbd");
  k.textContent = "s";
  box.append(k, " to put it in the field.");
}

document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
    if (e.key === "Escape") closeNote();
    return;
  }
  if (e.altKey || e.metaKey) return;
  if (e.ctrlKey) { if (e.key === "z") { e.preventDefault(); undo(); } return; }
  const keys = { a: "A", b: "B", k: "keep", s: "source", n: "note", p: "page" };
  if (keys[e.key]) { e.preventDefault(); choose(keys[e.key]); }
  else if (e.key === "u") { e.preventDefault(); undo(); }
  else if (e.key === "ArrowLeft") { e.preventDefault(); show(state.n - 1); }
  else if (e.key === "ArrowRight") { e.preventDefault(); show(state.n + 1); }
  else if (e.key === "d") { e.preventDefault(); $("download").click(); }
});

document.addEventListener("selectionchange", showSelection);

window.addEventListener("DOMContentLoaded", () => {
  $("prev").addEventListener("click", () => show(state.n - 1));
  $("next").addEventListener("click", () => show(state.n + 1));
  $("note-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const note = $("note").value.trim();
    if (!note) { say("Write what is wrong with the equation first.", false); return; }
    const eq = state.view.equations > 1 ? Number($("equation").value) : null;
    choose("note", { note: note, equation: eq });
  });
  $("note-cancel").addEventListener("click", closeNote);
  $("finish").addEventListener("click", async () => {
    const r = await api("api/done", {});
    say(r.said, r.ok);
    document.body.classList.add("finished");
  });
  load(0);
});
