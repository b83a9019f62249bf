// The "rate quality" page: one 1-5 scale per criterion; Submit stays disabled, and the page
// says what is missing, until every criterion is rated. The choices are kept in
// localStorage until the submit succeeds. Keys: 1-5 rate the highlighted criterion and
// move to the next one unrated, Enter submits; clicking a criterion highlights it.
import { showStatus, taskPage } from "../../frontend/page.js";
import { onTaskKeys } from "../../frontend/hotkeys.js";

const page = taskPage();
const { config, draft, draftState, submitter } = page;
const form = document.getElementById("rating-form");
const button = document.getElementById("submit");
const missingLine = document.getElementById("missing");
let done = false;

function ratings() {
  const values = {};
  for (const { key } of config.criteria) {
    const checked = form.querySelector(`input[name="${CSS.escape(key)}"]:checked`);
    if (checked) values[key] = Number(checked.value);
  }
  return values;
}

function missing(values) {
  return config.criteria.filter(({ key }) => !(key in values)).map(({ label }) => label);
}

function update() {
  const left = missing(ratings());
  missingLine.textContent = left.length ? `Still to rate: ${left.join(", ")}.` : "";
  button.disabled = done || submitter.busy || left.length > 0;
}

function onChange() {
  update();
  if (draft.save(ratings())) draftState.textContent = "Saved in this browser.";
}

function setDisabled(disabled) {
  for (const input of form.querySelectorAll("input")) input.disabled = disabled;
}

async function submit() {
  const values = ratings();
  const left = missing(values);
  if (done || left.length) {
    showStatus(`Rate every criterion first: ${left.join(", ")}.`, "error");
    return;
  }
  button.disabled = true;
  setDisabled(true);
  showStatus("Sending…");
  const outcome = await submitter.submit({ ratings: values });
  if (outcome.ok) {
    done = true;
    page.stored(outcome.data, "Thank you: your ratings are stored. ");
    return;
  }
  setDisabled(false);
  showStatus(outcome.message, "error");
  update();
}

const saved = draft.load();
if (saved && typeof saved === "object") {
  for (const { key } of config.criteria) {
    const input = form.querySelector(
      `input[name="${CSS.escape(key)}"][value="${CSS.escape(String(saved[key]))}"]`,
    );
    if (input) input.checked = true;
  }
  if (Object.keys(saved).length) draftState.textContent = "Your saved ratings were restored.";
}
form.addEventListener("change", onChange);
form.addEventListener("submit", (event) => event.preventDefault());
button.addEventListener("click", submit);

const fieldsets = [...form.querySelectorAll("fieldset.criterion")];
let current = 0;

function highlight(index) {
  current = index;
  fieldsets.forEach((fieldset, position) => {
    fieldset.classList.toggle("current", position === index);
  });
}

function nextUnrated(after) {
  const values = ratings();
  for (let step = 1; step <= fieldsets.length; step += 1) {
    const index = (after + step) % fieldsets.length;
    if (!(fieldsets[index].dataset.key in values)) return index;
  }
  return after;
}

for (const [index, fieldset] of fieldsets.entries()) {
  fieldset.addEventListener("focusin", () => highlight(index));
  fieldset.addEventListener("click", () => highlight(index));
}
onTaskKeys({
  number(n) {
    const fieldset = fieldsets[current];
    const input = fieldset && fieldset.querySelector(`input[value="${n}"]`);
    if (!input || input.disabled) return false;
    input.checked = true;
    onChange();
    highlight(nextUnrated(current));
    return true;
  },
  enter() {
    if (!button.disabled) submit();
  },
});
highlight(fieldsets.length ? nextUnrated(fieldsets.length - 1) : 0);
update();
page.ready();
