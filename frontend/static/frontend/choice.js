// A one-choice task page (frontend/choice.html: the proverb a story illustrates, the
// continuation that makes sense): one choice among the options, in their stored order; the
// choice is kept in localStorage until the submit succeeds. Keys: 1-9 choose that option,
// Enter submits.
import { showStatus, taskPage } from "./page.js";
import { onTaskKeys } from "./hotkeys.js";

const page = taskPage();
const { config, draft, draftState, submitter } = page;
const form = document.getElementById("choice-form");
const button = document.getElementById("submit");
let done = false;

function chosen() {
  const checked = form.querySelector("input[name=chosen]:checked");
  return checked ? Number(checked.value) : null;
}

function update() {
  button.disabled = done || submitter.busy || chosen() === null;
}

async function submit() {
  const choice = chosen();
  if (done || choice === null) {
    showStatus("Choose one of the proverbs first.", "error");
    return;
  }
  button.disabled = true;
  showStatus("Sending…");
  const outcome = await submitter.submit({ chosen: choice });
  if (outcome.ok) {
    done = true;
    for (const input of form.querySelectorAll("input")) input.disabled = true;
    page.stored(outcome.data, "Thank you: your answer is stored. ");
    return;
  }
  showStatus(outcome.message, "error");
  update();
}

const saved = draft.load();
if (Number.isInteger(saved) && config.options.includes(saved)) {
  const input = form.querySelector(`input[name=chosen][value="${saved}"]`);
  if (input) {
    input.checked = true;
    draftState.textContent = "Your saved choice was restored.";
  }
}
form.addEventListener("change", () => {
  update();
  if (draft.save(chosen())) draftState.textContent = "Saved in this browser.";
});
form.addEventListener("submit", (event) => event.preventDefault());
button.addEventListener("click", submit);
onTaskKeys({
  number(n) {
    const input = form.querySelectorAll("input[name=chosen]")[n - 1];
    if (!input || input.disabled) return false;
    input.checked = true;
    input.focus();
    form.dispatchEvent(new Event("change"));
    return true;
  },
  enter() {
    if (!button.disabled) submit();
  },
});
update();
page.ready();
