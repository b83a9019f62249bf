// node --test tests/js/: frontend/static/frontend/page.js, the opening and closing every
// task page shares, with the browser's globals stood in for by small fakes.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { taskPage } from "../../frontend/static/frontend/page.js";

const CONFIG = { submit_url: "/tasks/a/7/submit/", draft_key: "parable:draft:7", next_url: "/n/" };
let storage;
let elements;

function element(extra = {}) {
  const children = [];
  return { textContent: "", className: "", dataset: {}, children, appendChild: (c) => children.push(c), ...extra };
}

beforeEach(() => {
  storage = new Map();
  elements = {
    "task-config": { textContent: JSON.stringify(CONFIG) },
    "draft-state": element(),
    status: element(),
    timer: element({ dataset: { secondsLeft: "90" }, classList: { add() {} } }),
  };
  globalThis.window = {
    localStorage: {
      getItem: (key) => (storage.has(key) ? storage.get(key) : null),
      setItem: (key, value) => storage.set(key, String(value)),
      removeItem: (key) => storage.delete(key),
    },
  };
  globalThis.document = {
    body: { dataset: {} },
    getElementById: (id) => elements[id] ?? null,
    querySelector: () => null,
    createElement: () => element(),
  };
});

test("the page opens with its settings, its draft and a submitter", () => {
  const page = taskPage();
  assert.deepEqual(page.config, CONFIG);
  page.draft.save("Once upon a time");
  assert.equal(storage.get(CONFIG.draft_key), JSON.stringify("Once upon a time"));
  assert.equal(page.draftState, elements["draft-state"]);
  assert.equal(page.submitter.busy, false);
});

test("a stored answer clears the draft, thanks the worker and links the next task", () => {
  const page = taskPage();
  page.draft.save("Once upon a time");
  elements["draft-state"].textContent = "Draft saved in this browser.";
  page.stored({ next_url: "/tasks/3/next/" }, "Thank you: your story is stored. ");
  assert.equal(storage.has(CONFIG.draft_key), false);
  assert.equal(elements["draft-state"].textContent, "");
  const status = elements.status;
  assert.equal(status.textContent, "Thank you: your story is stored. ");
  assert.equal(status.className, "status ok");
  assert.equal(status.children.length, 1);
  assert.equal(status.children[0].href, "/tasks/3/next/");
  assert.equal(status.children[0].dataset.testid, "next-link");
});

test("without a next URL from the server the page's own is linked", () => {
  const page = taskPage();
  page.stored({}, "Thank you: your answer is stored. ");
  assert.equal(elements.status.children[0].href, CONFIG.next_url);
});

test("ready starts the timer and marks the page ready", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  taskPage().ready();
  assert.equal(document.body.dataset.ready, "true");
  assert.equal(elements.timer.textContent, "1:30 left");
});
