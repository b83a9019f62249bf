// node --test tests/js/: frontend/static/frontend/overlap.js against the shared
// cases in tests/cases/overlap.json, plus hand-computed checks.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  DEFAULT_RULES,
  checkOverlap,
  normalizeRules,
  overlapTokens,
  renderHighlighted,
  wordCount,
} from "../../frontend/static/frontend/overlap.js";

const root = new URL("../../", import.meta.url);
const CASES = JSON.parse(readFileSync(new URL("tests/cases/overlap.json", root), "utf8"));
const STOPWORDS = readFileSync(new URL("annotation/data/stopwords.txt", root), "utf8")
  .split("\n")
  .map((line) => line.trim().toLowerCase())
  .filter(Boolean);
const BIRDS = "Birds of a feather flock together";

test("cases file uses the default rules", () => {
  assert.deepEqual(CASES.rules, { ...DEFAULT_RULES });
  assert.ok(CASES.cases.length >= 45);
});

for (const c of CASES.cases) {
  test(`case ${c.name}`, () => {
    // `repeat: n` joins n copies of the narrative with single spaces.
    const narrative = Array(c.repeat ?? 1).fill(c.narrative).join(" ");
    const rules = { ...CASES.rules, ...(c.rules ?? {}) };
    assert.deepStrictEqual(checkOverlap(c.proverb, narrative, rules, STOPWORDS), c.expected);
  });
}

test("birds of a feather, by hand", () => {
  const result = checkOverlap(BIRDS, "They were birds of a feather.", {}, STOPWORDS);
  assert.equal(result.word_count, 6);
  assert.deepEqual(result.highlights, [[10, 15], [16, 18], [19, 20], [21, 28]]);
  assert.deepEqual(result.overlap["1"], { shared: 4, proverb: 6, ratio: 0.6667 });
  assert.deepEqual(result.longest_shared_ngram, ["birds", "of", "a", "feather"]);
  assert.deepEqual(
    result.violations.map((violation) => violation.message),
    [
      'Your story repeats the phrase "birds of a feather" from the proverb. Rephrase it.',
      "Your story has 6 words; write at least 20.",
    ],
  );
  assert.equal(result.ok, false);
});

test("ratio rounds half up like the Python side", () => {
  const proverb = Array.from({ length: 32 }, (_, i) => `w${String(i + 1).padStart(2, "0")}`).join(" ");
  const result = checkOverlap(proverb, "w07", { min_words: 1 }, STOPWORDS);
  assert.equal(result.overlap["1"].ratio, 0.0313);
});

test("tokens and code-point offsets, by hand", () => {
  const text = "Don\u2019t stop-gap 'tis o'clock, CAF\u00c9 1,000 2nd \u{1F426} bird's";
  assert.deepEqual(overlapTokens(text), [
    { text: "Don\u2019t", norm: "don't", start: 0, end: 5 },
    { text: "stop", norm: "stop", start: 6, end: 10 },
    { text: "gap", norm: "gap", start: 11, end: 14 },
    { text: "tis", norm: "tis", start: 16, end: 19 },
    { text: "o'clock", norm: "o'clock", start: 20, end: 27 },
    { text: "CAF\u00c9", norm: "caf\u00e9", start: 29, end: 33 },
    { text: "1", norm: "1", start: 34, end: 35 },
    { text: "000", norm: "000", start: 36, end: 39 },
    { text: "2nd", norm: "2nd", start: 40, end: 43 },
    { text: "bird's", norm: "bird's", start: 46, end: 52 },
  ]);
  assert.equal(wordCount(text), 10);
  assert.equal(wordCount(" \n\t"), 0);
});

test("rules: defaults fill in, invalid values throw clear errors", () => {
  assert.deepEqual(normalizeRules({ max_shared_ngram: 3 }), { ...DEFAULT_RULES, max_shared_ngram: 3 });
  assert.deepEqual(normalizeRules(undefined), DEFAULT_RULES);
  assert.throws(() => normalizeRules({ min_words: "20" }), /min_words must be an integer/);
  assert.throws(() => normalizeRules({ max_words: 1.5 }), /max_words must be an integer/);
  assert.throws(() => normalizeRules({ max_shared_ngram: -1 }), /must not be negative/);
  assert.throws(() => normalizeRules({ min_words: 30, max_words: 20 }), /must not exceed/);
  assert.throws(() => normalizeRules({ max_ngram: 3 }), /Unknown overlap rule: max_ngram/);
  assert.throws(() => checkOverlap(BIRDS, "x", {}), /stopword list/);
});

test("stopwords may be a Set", () => {
  const result = checkOverlap(BIRDS, "birds of a kind", { min_words: 1 }, new Set(["birds"]));
  assert.deepEqual(result.shared_content_words, ["of", "a"]);
});

// A minimal stand-in for the DOM: just what renderHighlighted uses.
class FakeNode {
  constructor(nodeName, text = "") {
    this.nodeName = nodeName;
    this.childNodes = [];
    this.data = text;
  }
  appendChild(node) {
    this.childNodes.push(node);
    return node;
  }
  replaceChild(fresh, old) {
    this.childNodes[this.childNodes.indexOf(old)] = fresh;
    return old;
  }
  removeChild(node) {
    this.childNodes.splice(this.childNodes.indexOf(node), 1);
    return node;
  }
  get lastChild() {
    return this.childNodes.at(-1) ?? null;
  }
  set textContent(text) {
    if (this.nodeName === "#text") this.data = text;
    else this.childNodes = [new FakeNode("#text", text)];
  }
  get textContent() {
    return this.nodeName === "#text" ? this.data : this.childNodes.map((n) => n.textContent).join("");
  }
}
const fakeDocument = {
  createTextNode: (text) => new FakeNode("#text", text),
  createElement: (name) => new FakeNode(name.toUpperCase()),
};
function fakeElement() {
  const element = new FakeNode("DIV");
  element.ownerDocument = fakeDocument;
  element.appendChild(new FakeNode("EM", "<i>stale</i>"));
  return element;
}
const shape = (element) => element.childNodes.map((node) => [node.nodeName, node.textContent]);

test("renderHighlighted wraps highlights in <mark> as text only", () => {
  const text = "<b>Birds</b> & of a flock";
  const { highlights } = checkOverlap(BIRDS, text, { min_words: 1 }, STOPWORDS);
  const element = fakeElement();
  renderHighlighted(element, text, highlights);
  assert.deepEqual(shape(element), [
    ["#text", "<b>"],
    ["MARK", "Birds"],
    ["#text", "</b> & "],
    ["MARK", "of"],
    ["#text", " "],
    ["MARK", "a"],
    ["#text", " "],
    ["MARK", "flock"],
  ]);
  assert.equal(element.textContent, text);
});

test("a lone small word of the proverb is not marked: no rule counts it", () => {
  const text = "A flock of gulls and birds of a feather";
  const { highlights } = checkOverlap(BIRDS, text, { min_words: 1 }, STOPWORDS);
  const marked = highlights.map(([start, end]) => text.slice(start, end));
  assert.deepEqual(marked, ["flock", "birds", "of", "a", "feather"]);
});

test("renderHighlighted keeps unchanged children and drops extra ones", () => {
  const element = fakeElement();
  let text = "Birds flock of a gulls";
  renderHighlighted(element, text, checkOverlap(BIRDS, text, {}, STOPWORDS).highlights);
  const [firstMark, , flock] = element.childNodes;
  text = "Birds flock of a gul";
  renderHighlighted(element, text, checkOverlap(BIRDS, text, {}, STOPWORDS).highlights);
  assert.equal(element.childNodes[0], firstMark);
  assert.equal(element.childNodes[2], flock);
  assert.deepEqual(shape(element), [
    ["MARK", "Birds"],
    ["#text", " "],
    ["MARK", "flock"],
    ["#text", " "],
    ["MARK", "of"],
    ["#text", " "],
    ["MARK", "a"],
    ["#text", " gul"],
  ]);
  text = "Birds";
  renderHighlighted(element, text, checkOverlap(BIRDS, text, {}, STOPWORDS).highlights);
  assert.deepEqual(shape(element), [["MARK", "Birds"]]);
  assert.equal(element.childNodes[0], firstMark);
  text = "Plain";
  renderHighlighted(element, text, []);
  assert.deepEqual(shape(element), [["#text", "Plain"]]);
});

test("renderHighlighted maps code-point offsets past astral characters", () => {
  const text = "\u{1F426}\u{1F426} two flock \u{1F600} together \u{1F426}";
  const { highlights } = checkOverlap(BIRDS, text, { min_words: 1 }, STOPWORDS);
  assert.deepEqual(highlights, [[7, 12], [15, 23]]);
  const element = fakeElement();
  renderHighlighted(element, text, highlights);
  assert.deepEqual(shape(element), [
    ["#text", "\u{1F426}\u{1F426} two "],
    ["MARK", "flock"],
    ["#text", " \u{1F600} "],
    ["MARK", "together"],
    ["#text", " \u{1F426}"],
  ]);
});

test("renderHighlighted with no highlights leaves one text node; empty text leaves none", () => {
  const element = fakeElement();
  renderHighlighted(element, "plain", []);
  assert.deepEqual(shape(element), [["#text", "plain"]]);
  renderHighlighted(element, "", []);
  assert.deepEqual(shape(element), []);
});
