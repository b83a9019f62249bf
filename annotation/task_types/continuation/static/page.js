// The "write continuations" page: two sentences checked live against the meaning with
// overlap.js's checkOverlap (the server's check_overlap rules), the words of the meaning
// marked behind each box, a literal-use flag, the draft kept in this browser, submit.
// The messages match continuation_check in annotation/task_types/continuation/task.py.
import { checkOverlap, overlapTokens, renderHighlighted } from "../../frontend/overlap.js";
import { showStatus, taskPage } from "../../frontend/page.js";

const FIELDS = ["plausible", "implausible"];
const page = taskPage();
const { config, draft, draftState, submitter } = page;
const stopwords = new Set(config.stopwords);
const button = document.getElementById("submit");
const literal = document.getElementById("literal-use");
const violationsList = document.getElementById("violations");
const boxes = Object.fromEntries(FIELDS.map((field) => [field, document.getElementById(field)]));
let problems = [];
let done = false;

function message(violation, which) {
  if (violation.rule === "ngram") {
    return `Your ${which} sentence repeats "${violation.words.join(" ")}" from the meaning.`;
  }
  if (violation.rule === "content_words") {
    return `Your ${which} sentence uses words of the meaning (${violation.words.join(", ")}): rephrase it.`;
  }
  return `Your ${which} sentence ${violation.message.replace(/^Your story /, "")}`;
}

function norms(text) {
  return overlapTokens(text).map((token) => token.norm).join(" ");
}

function check() {
  const found = [];
  for (const field of FIELDS) {
    const text = boxes[field].value;
    const result = checkOverlap(config.meaning, text, config.rules, stopwords);
    renderHighlighted(document.getElementById(`${field}-backdrop`), text, result.highlights);
    document.getElementById(`${field}-count`).textContent = String(result.word_count);
    document.getElementById(`${field}-shared`).textContent = result.shared_content_words.length
      ? result.shared_content_words.join(", ")
      : "none";
    if (text.trim() === "") {
      found.push({ field, rule: "empty", message: `Write the ${field} sentence.`, shown: false });
      continue;
    }
    for (const violation of result.violations) {
      found.push({ field, rule: violation.rule, message: message(violation, field), shown: true });
    }
  }
  const [first, second] = FIELDS.map((field) => boxes[field].value);
  if (first.trim() !== "" && norms(first) === norms(second)) {
    found.push({
      field: "implausible",
      rule: "same",
      message: "The two sentences are the same: make the implausible one different.",
      shown: true,
    });
  }
  return found;
}

function showProblems(list) {
  violationsList.replaceChildren(
    ...list.map((problem) => {
      const item = document.createElement("li");
      item.dataset.rule = problem.rule;
      item.dataset.field = problem.field;
      item.textContent = problem.message;
      return item;
    }),
  );
}

function update() {
  problems = check();
  const flagged = literal.checked;
  showProblems(flagged ? [] : problems.filter((problem) => problem.shown));
  button.disabled = done || submitter.busy || (!flagged && problems.length > 0);
}

function saveDraft() {
  if (done) return;
  const value = { literal_use: literal.checked };
  for (const field of FIELDS) value[field] = boxes[field].value;
  if (draft.save(value)) draftState.textContent = "Draft saved in this browser.";
}

async function submit() {
  if (done) return;
  update();
  if (!literal.checked && problems.length > 0) return;
  saveDraft();
  button.disabled = true;
  showStatus("Sending…");
  const payload = { literal_use: literal.checked };
  for (const field of FIELDS) payload[field] = boxes[field].value;
  const outcome = await submitter.submit(payload);
  if (outcome.ok) {
    done = true;
    for (const field of FIELDS) boxes[field].readOnly = true;
    literal.disabled = true;
    page.stored(outcome.data, "Thank you: your work is stored. ");
    return;
  }
  if (outcome.details && Array.isArray(outcome.details.violations)) {
    showProblems(outcome.details.violations);
  }
  showStatus(outcome.message, "error");
  button.disabled = false;
}

const saved = draft.load();
if (saved && typeof saved === "object") {
  for (const field of FIELDS) {
    if (typeof saved[field] === "string") boxes[field].value = saved[field];
  }
  literal.checked = saved.literal_use === true;
  draftState.textContent = "Your draft was restored.";
}
for (const field of FIELDS) {
  boxes[field].addEventListener("input", () => {
    update();
    saveDraft();
  });
  boxes[field].disabled = false;
}
literal.addEventListener("change", () => {
  update();
  saveDraft();
});
literal.disabled = false;
button.addEventListener("click", submit);
window.addEventListener("pagehide", saveDraft);
update();
page.ready();
