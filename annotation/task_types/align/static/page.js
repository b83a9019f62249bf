// The "align spans" page: select a span of the proverb and a span of the story, pair them.
// Texts are drawn token by token from the server's token offsets (code points, the same
// tokens the server checks against), so a selection always snaps to whole words. Mouse:
// drag across words (Shift+click extends). Touch (pointer events; the texts refuse the
// browser's panning so a drag is not cancelled): drag a finger across words, or tap the
// first word and then the last. Keyboard: arrows move, Shift+arrows extend,
// Space selects the word under the cursor, Enter pairs, Escape clears. Pairs and the
// current selection are kept in localStorage until the submit succeeds.
import { showStatus, taskPage } from "../../frontend/page.js";

const page = taskPage();
const { config, draft, draftState, submitter } = page;
const SIDES = ["proverb", "narrative"];
const palette = config.palette;
const maxPairs = config.max_pairs;
const minPairs = config.min_pairs;

const texts = {};
for (const side of SIDES) {
  const chars = Array.from(config[side].text); // code points, like the server's offsets
  texts[side] = {
    chars,
    tokens: config[side].tokens,
    element: document.getElementById(`${side}-text`),
    cells: [],
    gaps: [],
  };
}

const state = {
  pairs: [], // {slot, proverb: [first, last], narrative: [first, last]}: token indices
  selection: { proverb: null, narrative: null }, // [anchor, head] token indices
  cursor: { proverb: 0, narrative: 0 },
};
let dragging = null;
// Per side: the selection is one word put down by a tap, so the next tap extends it.
const tapAnchor = { proverb: false, narrative: false };
let done = Boolean(config.submitted);

const pairButton = document.getElementById("pair");
const submitButton = document.getElementById("submit");
const pairList = document.getElementById("pair-list");
const pairCount = document.getElementById("pair-count");
const selectionState = document.getElementById("selection-state");

function slice(side, start, end) {
  return texts[side].chars.slice(start, end).join("");
}

function span(side, range) {
  const [first, last] = range[0] <= range[1] ? range : [range[1], range[0]];
  const tokens = texts[side].tokens;
  const start = tokens[first][0];
  const end = tokens[last][1];
  return { start, end, text: slice(side, start, end) };
}

function ordered(range) {
  return range[0] <= range[1] ? [range[0], range[1]] : [range[1], range[0]];
}

function gapNode(side, start, end, after) {
  // Text between token `after` and the next: coloured when both belong to one pair.
  const gap = document.createElement("span");
  gap.className = "gap";
  gap.dataset.after = String(after);
  gap.textContent = slice(side, start, end);
  return gap;
}

function draw(side) {
  const { tokens, element } = texts[side];
  const cells = [];
  const pieces = [];
  let position = 0;
  tokens.forEach(([start, end], index) => {
    if (start > position) pieces.push(gapNode(side, position, start, index - 1));
    const cell = document.createElement("span");
    cell.className = "tok";
    cell.dataset.i = String(index);
    cell.textContent = slice(side, start, end);
    cells.push(cell);
    pieces.push(cell);
    position = end;
  });
  if (position < texts[side].chars.length) {
    pieces.push(gapNode(side, position, texts[side].chars.length, tokens.length - 1));
  }
  element.replaceChildren(...pieces);
  texts[side].cells = cells;
  texts[side].gaps = Array.from(element.querySelectorAll(".gap"));
}

function colourOf(slots) {
  if (slots.length === 0) return "";
  if (slots.length === 1) return palette[slots[0]];
  const step = 100 / slots.length;
  const stops = slots.map((slot, i) => `${palette[slot]} ${i * step}% ${(i + 1) * step}%`);
  return `linear-gradient(to bottom, ${stops.join(", ")})`;
}

function covering(side, index) {
  return state.pairs
    .filter((pair) => {
      const [first, last] = ordered(pair[side]);
      return first <= index && index <= last;
    })
    .map((pair) => pair.slot)
    .sort((a, b) => a - b);
}

function paintTokens() {
  for (const side of SIDES) {
    const selection = state.selection[side] && ordered(state.selection[side]);
    const focused = document.activeElement === texts[side].element;
    texts[side].cells.forEach((cell, index) => {
      const slots = covering(side, index);
      cell.dataset.pairs = slots.map((slot) => slot + 1).join(" ");
      cell.classList.toggle("paired", slots.length > 0);
      cell.style.background = colourOf(slots);
      cell.classList.toggle(
        "selected",
        Boolean(selection) && selection[0] <= index && index <= selection[1],
      );
      cell.classList.toggle("cursor", focused && !done && state.cursor[side] === index);
    });
    for (const gap of texts[side].gaps) {
      const after = Number(gap.dataset.after);
      const next = new Set(after + 1 < texts[side].cells.length ? covering(side, after + 1) : []);
      const slots = after < 0 ? [] : covering(side, after).filter((slot) => next.has(slot));
      gap.style.background = colourOf(slots);
    }
  }
}

function paint() {
  paintTokens();
  renderList();
  renderControls();
}

function renderList() {
  const items = [...state.pairs]
    .sort((a, b) => a.slot - b.slot)
    .map((pair) => {
      const item = document.createElement("li");
      item.dataset.slot = String(pair.slot + 1);
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = palette[pair.slot];
      const words = document.createElement("span");
      words.className = "pair-words";
      words.textContent =
        `“${span("proverb", pair.proverb).text}” ↔ “${span("narrative", pair.narrative).text}”`;
      item.append(swatch, words);
      if (!done) {
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "link-button remove";
        remove.textContent = "Remove";
        remove.setAttribute("aria-label", `Remove pair ${pair.slot + 1}`);
        remove.addEventListener("click", () => removePair(pair.slot));
        item.append(" ", remove);
      }
      return item;
    });
  pairList.replaceChildren(...items);
  pairCount.textContent = `(${state.pairs.length} of ${maxPairs})`;
}

function describe(side) {
  const selection = state.selection[side];
  return selection ? `“${span(side, selection).text}”` : "nothing";
}

function renderControls() {
  if (done) return;
  const both = state.selection.proverb && state.selection.narrative;
  pairButton.disabled = !both;
  if (state.pairs.length >= maxPairs) {
    selectionState.textContent = `You have ${maxPairs} pairs, the most allowed: remove one to add another.`;
  } else {
    selectionState.textContent = `Proverb: ${describe("proverb")} · Story: ${describe("narrative")}`;
  }
  submitButton.disabled = submitter.busy || state.pairs.length < minPairs;
}

function save() {
  if (done) return;
  if (draft.save({ pairs: state.pairs, selection: state.selection })) {
    draftState.textContent = "Your pairs are saved in this browser.";
  }
}

function changed() {
  paint();
  save();
}

function freeSlot() {
  const used = new Set(state.pairs.map((pair) => pair.slot));
  for (let slot = 0; slot < maxPairs; slot += 1) if (!used.has(slot)) return slot;
  return -1;
}

function samePair(a, b) {
  return SIDES.every((side) => {
    const [x0, x1] = ordered(a[side]);
    const [y0, y1] = ordered(b[side]);
    return x0 === y0 && x1 === y1;
  });
}

function pairSpans() {
  if (done) return;
  const { proverb, narrative } = state.selection;
  if (!proverb || !narrative) {
    showStatus("Select words in both the proverb and the story first.", "error");
    return;
  }
  if (state.pairs.length >= maxPairs) {
    showStatus(`At most ${maxPairs} pairs are allowed: remove one to add another.`, "error");
    return;
  }
  const candidate = { slot: freeSlot(), proverb: ordered(proverb), narrative: ordered(narrative) };
  if (state.pairs.some((pair) => samePair(pair, candidate))) {
    showStatus("You already paired these two spans.", "error");
    return;
  }
  state.pairs.push(candidate);
  state.selection = { proverb: null, narrative: null };
  showStatus(`Pair ${candidate.slot + 1} added.`, "ok");
  changed();
}

function removePair(slot) {
  state.pairs = state.pairs.filter((pair) => pair.slot !== slot);
  showStatus(`Pair ${slot + 1} removed.`);
  changed();
}

function cellIndex(side, target) {
  const cell = target instanceof Element ? target.closest(".tok") : null;
  if (!cell || !texts[side].element.contains(cell)) return null;
  return Number(cell.dataset.i);
}

function onPointerDown(side, event) {
  if (done || event.button !== 0) return;
  const index = cellIndex(side, event.target);
  if (index === null) return;
  event.preventDefault();
  texts[side].element.focus({ preventScroll: true });
  const current = state.selection[side];
  const touch = event.pointerType === "touch" || event.pointerType === "pen";
  const extend = event.shiftKey || (touch && tapAnchor[side] && current && current[0] !== index);
  state.selection[side] = extend && current ? [current[0], index] : [index, index];
  tapAnchor[side] = touch && !extend;
  state.cursor[side] = index;
  dragging = side;
  paintTokens();
  renderControls();
}

function onPointerMove(event) {
  if (!dragging) return;
  const index = cellIndex(dragging, document.elementFromPoint(event.clientX, event.clientY));
  if (index === null || !state.selection[dragging]) return;
  if (state.selection[dragging][1] === index) return;
  state.selection[dragging] = [state.selection[dragging][0], index];
  state.cursor[dragging] = index;
  tapAnchor[dragging] = false;
  paintTokens();
  renderControls();
}

function onPointerUp() {
  if (!dragging) return;
  dragging = null;
  changed();
}

function onKeyDown(side, event) {
  if (done) return;
  const last = texts[side].tokens.length - 1;
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (event.key in moves || event.key === "Home" || event.key === "End") {
    event.preventDefault();
    const current = state.selection[side];
    let target;
    if (event.key === "Home") target = 0;
    else if (event.key === "End") target = last;
    else if (!current && !event.shiftKey) target = state.cursor[side]; // first press: select here
    else target = state.cursor[side] + moves[event.key];
    target = Math.max(0, Math.min(last, target));
    if (event.shiftKey) {
      const anchor = current ? current[0] : state.cursor[side];
      state.selection[side] = [anchor, target];
    } else {
      state.selection[side] = [target, target];
    }
    state.cursor[side] = target;
    changed();
  } else if (event.key === " ") {
    event.preventDefault();
    state.selection[side] = [state.cursor[side], state.cursor[side]];
    changed();
  } else if (event.key === "Enter") {
    event.preventDefault();
    pairSpans();
  } else if (event.key === "Escape") {
    event.preventDefault();
    state.selection[side] = null;
    changed();
  }
}

function tokenRange(side, start, end) {
  const tokens = texts[side].tokens;
  const first = tokens.findIndex(([s, e]) => e > start);
  let last = first;
  tokens.forEach(([s], index) => {
    if (s < end) last = index;
  });
  return first < 0 ? null : [first, last];
}

function validRange(side, range) {
  const count = texts[side].tokens.length;
  return (
    Array.isArray(range) &&
    range.length === 2 &&
    range.every((value) => Number.isInteger(value) && value >= 0 && value < count)
  );
}

function restore() {
  const saved = draft.load();
  if (!saved || !Array.isArray(saved.pairs)) return;
  const slots = new Set();
  state.pairs = saved.pairs
    .filter(
      (pair) =>
        pair &&
        Number.isInteger(pair.slot) &&
        pair.slot >= 0 &&
        pair.slot < maxPairs &&
        SIDES.every((side) => validRange(side, pair[side])),
    )
    .filter((pair) => !slots.has(pair.slot) && slots.add(pair.slot))
    .slice(0, maxPairs);
  for (const side of SIDES) {
    const selection = saved.selection && saved.selection[side];
    state.selection[side] = validRange(side, selection) ? selection : null;
  }
  if (state.pairs.length) draftState.textContent = "Your saved pairs were restored.";
}

function finish(data) {
  done = true;
  page.stored(data, "Thank you: your pairs are stored. ");
  pairButton.disabled = true;
  submitButton.disabled = true;
  state.selection = { proverb: null, narrative: null };
  paint();
}

async function submit() {
  if (done || state.pairs.length < minPairs) return;
  submitButton.disabled = true;
  showStatus("Sending…");
  const pairs = [...state.pairs]
    .sort((a, b) => a.slot - b.slot)
    .map((pair) => ({ proverb: span("proverb", pair.proverb), narrative: span("narrative", pair.narrative) }));
  const outcome = await submitter.submit({ pairs });
  if (outcome.ok) {
    finish(outcome.data);
    return;
  }
  showStatus(outcome.message, "error");
  renderControls();
}

for (const side of SIDES) draw(side);

if (done) {
  const stored = (config.result && config.result.pairs) || [];
  state.pairs = stored
    .map((pair) => ({
      slot: pair.position - 1,
      proverb: tokenRange("proverb", pair.proverb.start, pair.proverb.end),
      narrative: tokenRange("narrative", pair.narrative.start, pair.narrative.end),
    }))
    .filter((pair) => pair.proverb && pair.narrative);
  paint();
} else {
  restore();
  for (const side of SIDES) {
    const element = texts[side].element;
    element.addEventListener("pointerdown", (event) => onPointerDown(side, event));
    element.addEventListener("keydown", (event) => onKeyDown(side, event));
    // Focus only moves the cursor mark: rebuilding the pair list here would replace a
    // Remove button between its mousedown and its click.
    element.addEventListener("focus", paintTokens);
    element.addEventListener("blur", paintTokens);
  }
  document.addEventListener("pointermove", onPointerMove);
  document.addEventListener("pointerup", onPointerUp);
  document.addEventListener("pointercancel", onPointerUp);
  pairButton.addEventListener("click", pairSpans);
  submitButton.addEventListener("click", submit);
  paint();
}
page.ready();
