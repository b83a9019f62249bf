// The writing record of a free-text task page: how the text was written, never what.
// A plain ES module; a task page attaches it to its textarea with one call:
//
//   const telemetry = attachTelemetry(textarea, { storageKey, refusePaste, onRefused });
//   ... submit({ text: textarea.value, telemetry: telemetry.record() });
//   ... telemetry.clear() once the submission is stored.
//
// It counts characters typed, pasted (from outside the page, or from the page's own
// text), dropped, inserted without keystrokes, inserted by script (isTrusted false) and
// deleted, from InputEvent.inputType; bins the intervals between keystrokes, counting
// the pauses that come before a sentence or a word apart; and times
// focus, hidden stretches (visibilitychange) and composition, and how often and how long
// the worker left the page: tab switches (the page hidden) and the window losing focus
// while the page stays in view (`away: false` leaves these to the page around a frame).
// No keystroke, key name or text is kept: pasted text is compared with the page's own
// text and then forgotten. The record is saved in localStorage beside the draft (or in
// `store`, an object with load() and save(state)), so it survives a reload.
// The server checks it (annotation/quality/integrity.py telemetry_clean).
import { draftStore } from "./submit.js";

export const INTERVAL_BINS_MS = [50, 100, 200, 400, 800, 2000, 10000];
export const PAUSE_MS = 2000;
// A keystroke explains an insertion of at most this many characters (a key, Enter, an
// IME commit) if it came at most KEY_WINDOW_MS before.
const KEY_WINDOW_MS = 1000;
const KEY_INSERT_MAX = 4;
// Insertions this soon after the page comes back from hidden count as "on return".
const RETURN_WINDOW_MS = 10000;
const RETURN_MIN_HIDDEN_MS = 2000;
const MAX_HIDDEN_RETURNS = 20;
const SAVE_EVERY_MS = 500;

const COUNTS = [
  "typed",
  "pasted",
  "pasted_internal",
  "dropped",
  "inserted_without_keys",
  "deleted",
  "synthetic_events",
  "synthetic",
  "synthetic_kept",
  "unexplained",
  "keys",
  "pauses",
  "word_pauses",
  "sentence_pauses",
  "paste_events",
  "focused_ms",
  "hidden_ms",
  "composition_ms",
  "burst_interval_ms_sum",
  "burst_intervals",
];
// Version 3 records: the times the worker left the page, and for how long.
export const AWAY = ["tab_switches", "blurs", "blurred_ms"];

function freshState() {
  const state = { version: 3, length: 0, intervals: INTERVAL_BINS_MS.map(() => 0).concat(0) };
  for (const key of [...COUNTS, ...AWAY]) state[key] = 0;
  state.hidden_returns = [];
  return state;
}

function restored(saved) {
  const state = freshState();
  if (!saved || typeof saved !== "object") return null;
  for (const key of [...COUNTS, ...AWAY, "length"]) {
    if (Number.isFinite(saved[key]) && saved[key] >= 0) state[key] = saved[key];
  }
  if (Array.isArray(saved.intervals) && saved.intervals.length === state.intervals.length) {
    state.intervals = saved.intervals.map((value) => (Number.isFinite(value) ? value : 0));
  }
  if (Array.isArray(saved.hidden_returns)) {
    state.hidden_returns = saved.hidden_returns.filter(
      (pair) => Array.isArray(pair) && pair.length === 2,
    );
  }
  if (Array.isArray(saved.synthetic_runs)) {
    state.synthetic_runs = saved.synthetic_runs.filter(
      (run) => Array.isArray(run) && run.length === 2 && run.every(Number.isInteger),
    );
  }
  return state;
}

// Where a text changed: the common start and end are kept, the middle was replaced.
export function editRange(before, after) {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start += 1;
  let end = 0;
  while (
    end < shorter - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) {
    end += 1;
  }
  return { start, removed: before.length - start - end, inserted: after.length - start - end };
}

// Which characters came with script events, one 0/1 mark per character, saved as
// [start, length] runs beside the draft (never sent): the record's synthetic_kept counts
// those still in the text, however many were deleted since.
function marksOf(runs, length) {
  const marks = new Uint8Array(length);
  for (const [start, count] of runs) marks.fill(1, start, Math.min(length, start + count));
  return marks;
}

function runsOf(marks) {
  const runs = [];
  for (let index = 0; index < marks.length; index += 1) {
    if (!marks[index]) continue;
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === index) last[1] += 1;
    else runs.push([index, 1]);
  }
  return runs;
}

export function intervalBin(ms) {
  const index = INTERVAL_BINS_MS.findIndex((bound) => ms < bound);
  return index === -1 ? INTERVAL_BINS_MS.length : index;
}

// Where a pause came: before a sentence (after . ! ? and spaces, or at the start), before
// a word (after a space), or inside a word. Only the kind is counted; no text is kept.
export function pauseBoundary(text, caret) {
  const before = text.slice(0, caret);
  if (/(^|[.!?]["”’)]?)\s*$/.test(before)) return "sentence";
  if (/\s$/.test(before)) return "word";
  return "inside";
}

function pageText(textarea) {
  const body = document.body ? document.body.innerText : "";
  return `${body}\n${textarea.value}`;
}

export function attachTelemetry(
  textarea,
  {
    storageKey,
    store = draftStore(storageKey),
    away = true,
    refusePaste = false,
    onRefused = () => {},
    now = () => Date.now(),
  } = {},
) {
  const state = restored(store.load()) || freshState();
  // Text present before the record (a draft restored without one) is not explained.
  if (textarea.value.length > state.length) {
    state.unexplained += textarea.value.length - state.length;
  }
  const runsFit = textarea.value.length === state.length;
  state.length = textarea.value.length;
  let text = textarea.value;
  let marks = marksOf(runsFit ? state.synthetic_runs || [] : [], text.length);

  // Follow the text's change since the last look; `synthetic` marks what came in.
  function track(synthetic) {
    const value = textarea.value;
    if (value === text) return;
    const { start, removed, inserted } = editRange(text, value);
    const next = new Uint8Array(value.length);
    next.set(marks.subarray(0, start), 0);
    next.fill(synthetic ? 1 : 0, start, start + inserted);
    next.set(marks.subarray(start + removed), start + inserted);
    marks = next;
    text = value;
  }

  let lastKeyAt = -Infinity;
  let lastChangeAt = null;
  let removing = 0;
  let pasteInternal = null;
  let dragFromPage = false;
  let copied = "";
  let focusSince = null;
  let hiddenSince = document.visibilityState === "hidden" ? now() : null;
  let returnUntil = -Infinity;
  let saveTimer = 0;
  let cleared = false;

  function save() {
    clearTimeout(saveTimer);
    saveTimer = 0;
    state.synthetic_runs = runsOf(marks);
    if (!cleared) store.save(state);
  }

  function scheduleSave() {
    if (saveTimer === 0) saveTimer = setTimeout(save, SAVE_EVERY_MS);
  }

  // Text can change with no event at all (a script setting .value): count what appeared.
  function catchUp() {
    track(false);
    const length = textarea.value.length;
    if (length > state.length) state.unexplained += length - state.length;
    state.length = length;
  }

  function onKeydown(event) {
    if (!event.isTrusted) {
      state.synthetic_events += 1;
      return;
    }
    const edits = event.key.length === 1 || ["Backspace", "Delete", "Enter"].includes(event.key);
    if (!edits || event.ctrlKey || event.metaKey || event.altKey) return;
    const at = now();
    if (lastKeyAt !== -Infinity) {
      const interval = at - lastKeyAt;
      state.intervals[intervalBin(interval)] += 1;
      if (interval >= PAUSE_MS) {
        state.pauses += 1;
        const boundary = pauseBoundary(textarea.value, textarea.selectionStart);
        if (boundary === "sentence") state.sentence_pauses += 1;
        else if (boundary === "word") state.word_pauses += 1;
      } else {
        state.burst_interval_ms_sum += interval;
        state.burst_intervals += 1;
      }
    }
    lastKeyAt = at;
  }

  function onBeforeInput(event) {
    catchUp();
    removing = event.isTrusted ? textarea.selectionEnd - textarea.selectionStart : 0;
  }

  function noteReturnInsertion(characters, at) {
    if (at > returnUntil || state.hidden_returns.length === 0) return;
    state.hidden_returns[state.hidden_returns.length - 1][1] += characters;
  }

  function onInput(event) {
    track(!event.isTrusted);
    const at = now();
    const length = textarea.value.length;
    const delta = length - state.length;
    state.length = length;
    if (lastChangeAt !== null) state.composition_ms += at - lastChangeAt;
    lastChangeAt = at;
    if (!event.isTrusted) {
      state.synthetic_events += 1;
      state.synthetic += Math.max(0, delta);
      noteReturnInsertion(Math.max(0, delta), at);
      scheduleSave();
      return;
    }
    const type = event.inputType || "";
    if (type.startsWith("delete")) {
      state.deleted += Math.max(0, -delta);
      if (at - lastKeyAt <= KEY_WINDOW_MS) state.keys += 1;
    } else {
      state.deleted += removing;
      const inserted = Math.max(0, delta + removing);
      if (type === "insertFromPaste" || type === "insertFromPasteAsQuotation") {
        if (pasteInternal) state.pasted_internal += inserted;
        else state.pasted += inserted;
        noteReturnInsertion(inserted, at);
      } else if (type === "insertFromDrop") {
        if (dragFromPage) state.pasted_internal += inserted;
        else state.dropped += inserted;
        noteReturnInsertion(inserted, at);
      } else if (at - lastKeyAt <= KEY_WINDOW_MS && inserted <= KEY_INSERT_MAX) {
        state.typed += inserted;
        state.keys += 1;
      } else {
        state.inserted_without_keys += inserted;
        noteReturnInsertion(inserted, at);
      }
    }
    removing = 0;
    pasteInternal = null;
    scheduleSave();
  }

  function onPaste(event) {
    if (!event.isTrusted) {
      state.synthetic_events += 1;
      return;
    }
    const text = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
    const internal = text !== "" && (text === copied || pageText(textarea).includes(text));
    if (refusePaste && !internal) {
      event.preventDefault();
      onRefused();
      return;
    }
    state.paste_events += 1;
    pasteInternal = internal;
  }

  function onDrop(event) {
    if (refusePaste && !dragFromPage) {
      event.preventDefault();
      onRefused();
    }
  }

  function onCopy() {
    const selection = document.getSelection ? String(document.getSelection()) : "";
    const inBox = textarea.value.slice(textarea.selectionStart, textarea.selectionEnd);
    copied = document.activeElement === textarea ? inBox : selection;
  }

  function focusStart() {
    if (focusSince === null && document.visibilityState !== "hidden") focusSince = now();
  }

  function focusStop() {
    if (focusSince !== null) state.focused_ms += now() - focusSince;
    focusSince = null;
  }

  // The window lost focus while the page stayed in view (another window, a second screen).
  let blurredSince = null;
  function onWindowBlur() {
    if (document.visibilityState === "hidden" || blurredSince !== null) return;
    state.blurs += 1;
    blurredSince = now();
  }
  function onWindowFocus() {
    if (blurredSince !== null) state.blurred_ms += now() - blurredSince;
    blurredSince = null;
  }

  function onVisibility() {
    const at = now();
    if (document.visibilityState === "hidden") {
      focusStop();
      onWindowFocus(); // from here on the page is hidden, not merely out of focus
      if (away) state.tab_switches += 1;
      hiddenSince = at;
      save();
      return;
    }
    if (hiddenSince !== null) {
      const hidden = at - hiddenSince;
      state.hidden_ms += hidden;
      hiddenSince = null;
      if (hidden >= RETURN_MIN_HIDDEN_MS) {
        state.hidden_returns.push([hidden, 0]);
        if (state.hidden_returns.length > MAX_HIDDEN_RETURNS) {
          const shortest = state.hidden_returns.reduce(
            (best, pair, index, pairs) => (pair[0] < pairs[best][0] ? index : best),
            0,
          );
          state.hidden_returns.splice(shortest, 1);
        }
        returnUntil = at + RETURN_WINDOW_MS;
      }
    }
    if (document.activeElement === textarea) focusStart();
  }

  textarea.addEventListener("keydown", onKeydown);
  textarea.addEventListener("beforeinput", onBeforeInput);
  textarea.addEventListener("input", onInput);
  textarea.addEventListener("paste", onPaste);
  textarea.addEventListener("drop", onDrop);
  textarea.addEventListener("focus", focusStart);
  textarea.addEventListener("blur", focusStop);
  document.addEventListener("copy", onCopy);
  document.addEventListener("cut", onCopy);
  document.addEventListener("dragstart", () => {
    dragFromPage = true;
  });
  document.addEventListener("dragend", () => {
    dragFromPage = false;
  });
  document.addEventListener("visibilitychange", onVisibility);
  if (away) {
    window.addEventListener("blur", onWindowBlur);
    window.addEventListener("focus", onWindowFocus);
  }
  window.addEventListener("pagehide", () => {
    focusStop();
    save();
  });
  if (document.activeElement === textarea) focusStart();

  return {
    // The record the server stores: counts and times only.
    record() {
      catchUp();
      if (focusSince !== null) {
        focusStop();
        focusStart();
      }
      state.synthetic_kept = marks.reduce((sum, mark) => sum + mark, 0);
      if (blurredSince !== null) {
        onWindowFocus();
        onWindowBlur();
        state.blurs -= 1; // the same time away, still going on
      }
      const record = { version: away ? 3 : 2 };
      for (const key of away ? [...COUNTS, ...AWAY] : COUNTS) record[key] = Math.round(state[key]);
      record.intervals = state.intervals.slice();
      record.hidden_returns = state.hidden_returns.map(([hidden, inserted]) => [
        Math.round(hidden),
        Math.round(inserted),
      ]);
      return record;
    },
    save,
    clear() {
      cleared = true;
      clearTimeout(saveTimer);
      saveTimer = 0;
      store.clear();
    },
  };
}
