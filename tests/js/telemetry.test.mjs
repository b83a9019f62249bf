// node --test tests/js/: frontend/static/frontend/telemetry.js with the browser's globals
// (localStorage, document, window) and the text box stood in for by small fakes; events
// are handed to the module's listeners as plain objects, trusted unless said otherwise.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { attachTelemetry, intervalBin } from "../../frontend/static/frontend/telemetry.js";

const KEY = "parable:draft:7:telemetry";
let storage;
let clock;
let documentListeners;
let box;

function target() {
  const listeners = {};
  return {
    listeners,
    addEventListener: (type, listener) => {
      (listeners[type] ??= []).push(listener);
    },
    fire(type, event = {}) {
      for (const listener of listeners[type] ?? []) {
        listener({ isTrusted: true, preventDefault() { this.defaultPrevented = true; }, ...event });
      }
    },
  };
}

beforeEach(() => {
  storage = new Map();
  clock = 1_000_000;
  const windowTarget = target();
  globalThis.window = {
    ...windowTarget,
    localStorage: {
      getItem: (key) => (storage.has(key) ? storage.get(key) : null),
      setItem: (key, value) => storage.set(key, String(value)),
      removeItem: (key) => storage.delete(key),
    },
  };
  documentListeners = target();
  globalThis.document = {
    ...documentListeners,
    visibilityState: "visible",
    activeElement: null,
    body: { innerText: "Birds of a feather flock together" },
    getSelection: () => "",
  };
  box = { ...target(), value: "", selectionStart: 0, selectionEnd: 0 };
});

const now = () => clock;

function typeKey(character, gap = 150) {
  clock += gap;
  box.fire("keydown", { key: character });
  box.fire("beforeinput", { inputType: "insertText" });
  box.value += character;
  box.selectionStart = box.selectionEnd = box.value.length;
  box.fire("input", { inputType: "insertText" });
}

function backspace(gap = 150) {
  clock += gap;
  box.fire("keydown", { key: "Backspace" });
  box.fire("beforeinput", { inputType: "deleteContentBackward" });
  box.value = box.value.slice(0, -1);
  box.fire("input", { inputType: "deleteContentBackward" });
}

function paste(text) {
  clock += 500;
  box.fire("paste", { clipboardData: { getData: () => text } });
  box.fire("beforeinput", { inputType: "insertFromPaste" });
  box.value += text;
  box.fire("input", { inputType: "insertFromPaste" });
}

test("typed keys are counted with their intervals and pauses", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  for (const character of "Maya") typeKey(character);
  typeKey("x", 3000);
  backspace();
  const record = telemetry.record();
  assert.equal(record.typed, 5);
  assert.equal(record.deleted, 1);
  assert.equal(record.keys, 6);
  assert.equal(record.pauses, 1);
  assert.equal(record.burst_intervals, 4);
  assert.equal(record.burst_interval_ms_sum, 600);
  assert.equal(record.intervals.reduce((a, b) => a + b), 5);
  assert.equal(record.pasted + record.synthetic_events + record.unexplained, 0);
});

test("a paste from outside counts as pasted, the page's own text as internal", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  paste("A story written elsewhere.");
  paste("flock together");
  const record = telemetry.record();
  assert.equal(record.pasted, "A story written elsewhere.".length);
  assert.equal(record.pasted_internal, "flock together".length);
  assert.equal(record.paste_events, 2);
});

test("a paste-refusing page blocks an outside paste and says so", () => {
  const refusals = [];
  attachTelemetry(box, { storageKey: KEY, now, refusePaste: true, onRefused: () => refusals.push(1) });
  const event = { clipboardData: { getData: () => "Elsewhere." } };
  box.fire("paste", event);
  assert.equal(refusals.length, 1);
});

test("text set by a script without events is unexplained; script events are synthetic", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  box.value = "Set by a script.";
  box.fire("input", { isTrusted: false });
  box.value += " And more, silently.";
  const record = telemetry.record();
  assert.equal(record.synthetic_events, 1);
  assert.equal(record.synthetic, "Set by a script.".length);
  assert.equal(record.unexplained, " And more, silently.".length);
});

test("an insertion without keystrokes after a long hidden stretch is kept with it", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  document.visibilityState = "hidden";
  documentListeners.fire("visibilitychange");
  clock += 120_000;
  document.visibilityState = "visible";
  documentListeners.fire("visibilitychange");
  clock += 1000;
  box.fire("beforeinput", { inputType: "insertText" });
  box.value = "x".repeat(300);
  box.fire("input", { inputType: "insertText" });
  const record = telemetry.record();
  assert.equal(record.hidden_ms, 120_000);
  assert.deepEqual(record.hidden_returns, [[120_000, 300]]);
  assert.equal(record.inserted_without_keys, 300);
});

test("the record survives a reload with its draft, and is gone once cleared", () => {
  const first = attachTelemetry(box, { storageKey: KEY, now });
  for (const character of "Maya") typeKey(character);
  first.save();
  box = { ...target(), value: "Maya", selectionStart: 4, selectionEnd: 4 };
  const second = attachTelemetry(box, { storageKey: KEY, now });
  typeKey("!");
  const record = second.record();
  assert.equal(record.typed, 5);
  assert.equal(record.unexplained, 0);
  second.clear();
  second.save();
  assert.equal(storage.has(KEY), false);
});

test("a draft restored without a record counts as unexplained", () => {
  box.value = "Restored from an old draft.";
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  assert.equal(telemetry.record().unexplained, box.value.length);
});

test("interval bins have open upper ends", () => {
  assert.equal(intervalBin(10), 0);
  assert.equal(intervalBin(50), 1);
  assert.equal(intervalBin(1999), 5);
  assert.equal(intervalBin(60_000), 7);
});

test("pauses before a sentence and before a word are counted apart", async () => {
  const { pauseBoundary } = await import("../../frontend/static/frontend/telemetry.js");
  assert.equal(pauseBoundary("", 0), "sentence");
  assert.equal(pauseBoundary("It rained. ", 11), "sentence");
  assert.equal(pauseBoundary("It rained!”", 11), "sentence");
  assert.equal(pauseBoundary("It rained ", 10), "word");
  assert.equal(pauseBoundary("It rai", 6), "inside");
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  typeKey("A", 3000); // the first key has no interval
  typeKey(".");
  typeKey(" ");
  typeKey("B", 2500); // before a sentence
  typeKey(" ");
  typeKey("c", 2500); // before a word
  typeKey("d", 2500); // inside a word
  const record = telemetry.record();
  assert.equal(record.pauses, 3);
  assert.equal(record.sentence_pauses, 1);
  assert.equal(record.word_pauses, 1);
});

test("synthetic_kept counts script-inserted characters still in the text", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  for (const character of "Hi ") typeKey(character);
  box.value += "generated";
  box.fire("input", { isTrusted: false, inputType: "insertText" });
  for (let index = 0; index < 4; index += 1) backspace();
  typeKey("!");
  const record = telemetry.record();
  assert.equal(record.version, 3);
  assert.equal(record.synthetic, "generated".length);
  assert.equal(record.synthetic_kept, "gener".length);
});

test("what script-inserted text remains survives a reload with the draft", () => {
  const first = attachTelemetry(box, { storageKey: KEY, now });
  box.value = "typed generated";
  box.fire("input", { isTrusted: false, inputType: "insertText" });
  first.save();
  const again = attachTelemetry(box, { storageKey: KEY, now });
  assert.equal(again.record().synthetic_kept, "typed generated".length);
});

test("editRange finds the replaced middle of a text", async () => {
  const { editRange } = await import("../../frontend/static/frontend/telemetry.js");
  assert.deepEqual(editRange("abcdef", "abXYef"), { start: 2, removed: 2, inserted: 2 });
  assert.deepEqual(editRange("abc", "abc!"), { start: 3, removed: 0, inserted: 1 });
  assert.deepEqual(editRange("aaa", "aa"), { start: 2, removed: 1, inserted: 0 });
});

test("leaving the page is counted: tab switches, lost focus and the time out of focus", () => {
  const telemetry = attachTelemetry(box, { storageKey: KEY, now });
  clock += 1000;
  window.fire("blur"); // another window, the page still in view
  clock += 4000;
  window.fire("focus");
  window.fire("blur"); // then another tab: the page goes hidden
  document.visibilityState = "hidden";
  documentListeners.fire("visibilitychange");
  clock += 30000;
  document.visibilityState = "visible";
  documentListeners.fire("visibilitychange");
  window.fire("focus");
  const record = telemetry.record();
  assert.equal(record.version, 3);
  assert.equal(record.tab_switches, 1);
  assert.equal(record.blurs, 2);
  assert.equal(record.blurred_ms, 4000); // the hidden stretch is hidden time, not blurred
  assert.equal(record.hidden_ms, 30000);
});

test("a page that counts the time away itself leaves it out of the field's record", () => {
  const saved = [];
  const store = { load: () => null, save: (state) => saved.push(state), clear() {} };
  const telemetry = attachTelemetry(box, { store, away: false, now });
  window.fire("blur");
  typeKey("a");
  telemetry.save();
  const record = telemetry.record();
  assert.equal(record.version, 2);
  assert.equal("blurs" in record, false);
  assert.equal(storage.size, 0); // kept in the given store, not in localStorage
  assert.equal(saved.length, 1);
});
