// The "write a narrative" page: live overlap meter, draft kept in the browser, submit, and
// in a model-in-the-loop round the opponent's check (opponent.js).
// The check is overlap.js's checkOverlap (the same rules as the server's check_overlap);
// every keystroke updates the word count, the marks behind the text and the rule messages.
import { attachOpponent } from "../../frontend/opponent.js";
import { checkOverlap, renderHighlighted } from "../../frontend/overlap.js";
import { showStatus, taskPage } from "../../frontend/page.js";
import { attachTelemetry } from "../../frontend/telemetry.js";

const page = taskPage();
const { config, draft, draftState, submitter } = page;
const stopwords = new Set(config.stopwords);
const rules = config.rules;

const textarea = document.getElementById("narrative");
const backdrop = document.getElementById("backdrop");
const button = document.getElementById("submit");
const violationsList = document.getElementById("violations");
const wordCount = document.getElementById("word-count");
const sharedWords = document.getElementById("shared-words");
const sharedCount = document.getElementById("shared-count");
const phraseLength = document.getElementById("phrase-length");
const autoGrow = !CSS.supports("field-sizing", "content");
const opponent = attachOpponent({ config, textarea, onAnswer: () => update() });

let result = null;
let shownViolations = "";
let done = false;

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

function showViolations(violations) {
  const key = violations.map((violation) => violation.message).join("\n");
  if (key === shownViolations) return;
  shownViolations = key;
  violationsList.replaceChildren(
    ...violations.map((violation) => {
      const item = document.createElement("li");
      item.dataset.rule = violation.rule;
      item.textContent = violation.message;
      return item;
    }),
  );
}

function update() {
  const text = textarea.value;
  result = checkOverlap(config.proverb, text, rules, stopwords);
  renderHighlighted(backdrop, text, result.highlights);
  if (autoGrow) {
    textarea.style.height = "auto";
    textarea.style.height = `${textarea.scrollHeight}px`;
  }
  const failed = new Set(result.violations.map((violation) => violation.rule));
  setText(wordCount, String(result.word_count));
  wordCount.classList.toggle("bad", failed.has("too_short") || failed.has("too_long"));
  // The meter shows what each rule counts: proverb words without the small ones, and the
  // longest run of proverb words (small ones included), beside the rule's limit.
  setText(sharedCount, String(result.shared_content_words.length));
  sharedCount.classList.toggle("bad", failed.has("content_words"));
  setText(phraseLength, String(result.longest_shared_ngram.length));
  phraseLength.classList.toggle("bad", failed.has("ngram"));
  const content = result.shared_content_words;
  setText(sharedWords, content.length ? content.join(", ") : "none");
  // An empty box is not an error yet: say nothing until the worker starts.
  showViolations(text.trim() === "" ? [] : result.violations);
  opponent.update(!done && result.ok);
  button.disabled = done || submitter.busy || !result.ok || !opponent.allowsSubmit(text);
}

// Writing to localStorage costs more than the check itself, so the draft is saved at
// most every DRAFT_EVERY_MS while typing, and at once when the page is hidden or left
// (reload, closed tab, another app): nothing typed is lost.
const DRAFT_EVERY_MS = 500;
let draftTimer = 0;

function saveDraft() {
  clearTimeout(draftTimer);
  draftTimer = 0;
  if (done) return;
  if (draft.save(textarea.value)) setText(draftState, "Draft saved in this browser.");
}

function onInput() {
  update();
  if (draftTimer === 0) draftTimer = setTimeout(saveDraft, DRAFT_EVERY_MS);
}

function finish(data) {
  done = true;
  clearTimeout(draftTimer);
  telemetry.clear();
  textarea.readOnly = true;
  button.disabled = true;
  showViolations([]);
  page.stored(data, "Thank you: your story is stored. ");
}

async function submit() {
  if (done || !result || !result.ok || !opponent.allowsSubmit(textarea.value)) return;
  saveDraft(); // the failure messages promise the text is saved in this browser
  button.disabled = true;
  textarea.readOnly = true;
  showStatus("Sending…");
  const outcome = await submitter.submit({ text: textarea.value, telemetry: telemetry.record() });
  if (outcome.ok) {
    finish(outcome.data);
    return;
  }
  textarea.readOnly = false;
  if (outcome.details && Array.isArray(outcome.details.violations)) {
    showViolations(outcome.details.violations);
  }
  showStatus(outcome.message, "error");
  button.disabled = !result.ok || !opponent.allowsSubmit(textarea.value);
}

const saved = draft.load();
if (typeof saved === "string" && saved !== "") {
  textarea.value = saved;
  setText(draftState, "Your draft was restored.");
}
// Attached after the draft is restored: the record restored with it accounts for that text.
const telemetry = attachTelemetry(textarea, {
  storageKey: `${config.draft_key}:telemetry`,
  refusePaste: config.refuse_paste,
  onRefused: () => showStatus(config.paste_refused, "error"),
});
textarea.addEventListener("input", onInput);
window.addEventListener("pagehide", saveDraft);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") saveDraft();
});
button.addEventListener("click", submit);
textarea.disabled = false;
update();
page.ready();
