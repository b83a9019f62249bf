// node --test tests/js/: frontend/static/frontend/submit.js with the browser's globals
// (localStorage, document, fetch) stood in for by small fakes.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createSubmitter, draftStore, taskConfig } from "../../frontend/static/frontend/submit.js";

const CONFIG = { submit_url: "/tasks/a/7/submit/", draft_key: "parable:draft:7" };
let storage;
let requests;
let replies;

beforeEach(() => {
  storage = new Map();
  requests = [];
  replies = [];
  globalThis.window = {
    localStorage: {
      getItem: (key) => (storage.has(key) ? storage.get(key) : null),
      setItem: (key, value) => storage.set(key, String(value)),
      removeItem: (key) => storage.delete(key),
    },
  };
  globalThis.document = {
    querySelector: (selector) =>
      selector === "input[name=csrfmiddlewaretoken]" ? { value: "csrf-token" } : null,
    getElementById: (id) =>
      id === "task-config" ? { textContent: JSON.stringify({ ...CONFIG, proverb: "P" }) } : null,
  };
  globalThis.fetch = (url, options) => {
    requests.push({ url, options, body: JSON.parse(options.body) });
    const reply = replies.shift();
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  };
});

function json(status, body) {
  return { ok: status >= 200 && status < 300, status, json: async () => body };
}

test("taskConfig reads the json_script block", () => {
  assert.deepEqual(taskConfig(), { ...CONFIG, proverb: "P" });
});

test("draftStore saves, loads and clears any JSON value", () => {
  const draft = draftStore("k");
  assert.equal(draft.load(), null);
  assert.equal(draft.save({ text: "Once upon a time" }), true);
  assert.deepEqual(draft.load(), { text: "Once upon a time" });
  draft.clear();
  assert.equal(draft.load(), null);
});

test("draftStore survives a storage that refuses", () => {
  window.localStorage.setItem = () => {
    throw new Error("QuotaExceededError");
  };
  assert.equal(draftStore("k").save("text"), false);
});

test("a double click sends one request and both get its outcome", async () => {
  replies.push(json(200, { status: "submitted", replayed: false, result: { narrative: 1 } }));
  const submitter = createSubmitter(CONFIG);
  const first = submitter.submit({ text: "A story" });
  const second = submitter.submit({ text: "A story" });
  assert.equal(first, second);
  assert.equal(submitter.busy, true);
  const outcome = await first;
  assert.equal(outcome.ok, true);
  assert.deepEqual(outcome.data.result, { narrative: 1 });
  assert.equal(requests.length, 1);
  assert.equal(submitter.busy, false);
  const { url, options, body } = requests[0];
  assert.equal(url, CONFIG.submit_url);
  assert.equal(options.headers["X-CSRFToken"], "csrf-token");
  assert.deepEqual(body.payload, { text: "A story" });
  assert.match(body.submission_key, /^[0-9a-f]{32}$/);
});

test("a retry after a network failure sends the same key, cleared once stored", async () => {
  replies.push(new TypeError("Failed to fetch"), json(200, { replayed: true, result: {} }));
  const submitter = createSubmitter(CONFIG);
  const failed = await submitter.submit({ text: "A story" });
  assert.equal(failed.ok, false);
  assert.equal(failed.kind, "network");
  assert.match(failed.message, /could not be reached/);
  // A reload in between: a fresh submitter finds the same key.
  const stored = await createSubmitter(CONFIG).submit({ text: "A story" });
  assert.equal(stored.ok, true);
  assert.equal(requests[0].body.submission_key, requests[1].body.submission_key);
  assert.equal(storage.has(`${CONFIG.draft_key}:submission-key`), false);
});

test("a refusal carries the server's message and details", async () => {
  const violations = [{ rule: "too_short", message: "Your story has 3 words; write at least 20." }];
  replies.push(json(400, { error: violations[0].message, field: "text", details: { violations } }));
  const outcome = await createSubmitter(CONFIG).submit({ text: "Too short now" });
  assert.deepEqual(outcome, {
    ok: false,
    kind: "refused",
    message: violations[0].message,
    details: { violations },
  });
});

test("a server error or a page that is not JSON keeps the work and says so", async () => {
  replies.push(
    { ok: false, status: 502, json: async () => Promise.reject(new SyntaxError("HTML")) },
    { ok: false, status: 403, json: async () => Promise.reject(new SyntaxError("HTML")) },
  );
  const submitter = createSubmitter(CONFIG);
  const server = await submitter.submit({ text: "A story" });
  assert.equal(server.kind, "server");
  assert.match(server.message, /did not store your work/);
  const forbidden = await submitter.submit({ text: "A story" });
  assert.equal(forbidden.kind, "refused");
  assert.match(forbidden.message, /error 403/);
});

function fakeForms() {
  const posted = [];
  document.createElement = (tag) => {
    const element = { tag, children: [], appendChild: (child) => element.children.push(child) };
    element.submit = () =>
      posted.push({
        method: element.method,
        action: element.action,
        fields: Object.fromEntries(element.children.map((input) => [input.name, input.value])),
      });
    return element;
  };
  document.body = { appendChild: () => {} };
  return posted;
}

test("a stored answer then posts the provider's form (MTurk's externalSubmit)", async () => {
  const posted = fakeForms();
  const external_submit = {
    url: "https://www.mturk.com/mturk/externalSubmit",
    fields: { assignmentId: "3ABC", parableAnswer: 7 },
  };
  replies.push(json(200, { status: "submitted", replayed: false, result: {} }));
  const outcome = await createSubmitter({ ...CONFIG, external_submit }).submit({ text: "A" });
  assert.equal(outcome.ok, true);
  assert.deepEqual(posted, [
    {
      method: "post",
      action: external_submit.url,
      fields: { assignmentId: "3ABC", parableAnswer: "7" },
    },
  ]);
});

test("a refused answer posts nothing to the provider", async () => {
  const posted = fakeForms();
  const external_submit = { url: "https://www.mturk.com/mturk/externalSubmit", fields: {} };
  replies.push(json(400, { error: "Too short." }));
  const outcome = await createSubmitter({ ...CONFIG, external_submit }).submit({ text: "A" });
  assert.equal(outcome.ok, false);
  assert.deepEqual(posted, []);
});

test("a stored submission hides the timer and the give-back form; a refusal keeps them", async () => {
  const elements = { "#timer": { hidden: false }, ".return-form": { hidden: false } };
  const base = globalThis.document.querySelector;
  globalThis.document.querySelector = (selector) => elements[selector] ?? base(selector);
  const submitter = createSubmitter(CONFIG);
  replies.push(json(400, { error: "Too short." }));
  await submitter.submit({ text: "x" });
  assert.equal(elements["#timer"].hidden, false);
  assert.equal(elements[".return-form"].hidden, false);
  replies.push(json(200, { status: "submitted", replayed: false, result: {} }));
  await submitter.submit({ text: "a story" });
  assert.equal(elements["#timer"].hidden, true);
  assert.equal(elements[".return-form"].hidden, true);
});
