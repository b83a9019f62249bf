// node --test tests/js/: what frontend/static/frontend/opponent.js tells the writer, and
// that a page without an opponent (or a preview, with no check button) allows any submit.
import assert from "node:assert/strict";
import { test } from "node:test";

import { attachOpponent, verdictText } from "../../frontend/static/frontend/opponent.js";

test("a found proverb is said to be ranked first", () => {
  assert.equal(
    verdictText({ found: true, rank: 1, candidates: 250 }),
    "The model found the proverb: it ranked it first of 250.",
  );
});

test("a story the model missed is said to fool it, with the proverb's rank", () => {
  assert.equal(
    verdictText({ found: false, rank: 7, candidates: 250 }),
    "The model did not find the proverb: it ranked it 7 of 250. Your story fools the model.",
  );
});

test("without an opponent or a check button the page allows any submit", () => {
  globalThis.document = { getElementById: () => null };
  for (const config of [{ opponent: null }, { opponent: { mode: "require", max_checks: 3 } }]) {
    const opponent = attachOpponent({ config, textarea: { value: "A story." } });
    opponent.update(true);
    assert.equal(opponent.allowsSubmit("A story."), true);
  }
  delete globalThis.document;
});
