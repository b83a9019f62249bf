// A one-choice task page (frontend/choice.html: the proverb a story illustrates, the
// continuation that makes sense): one choice among the options, in their stored order; the
// choice is kept in localStorage until the submit succeeds. Keys: 1-9 choose that option,
// Enter submits.
import {
  createSubmitter,
  draftStore,
  showNextLink,
  showStatus,
  startTimer,
  taskConfig,
} from "./submit.js";
import { onTaskKeys } from "./hotkeys.js";

const config = taskConfig();
const draft = draftStore(config.draft_key);
const submitter = createSubmitter(config);
const form = document.getElementById("choice-form");
const button = document.getElementById("submit");
const draftState = document.getElementById("draft-state");
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
    draft.clear();
    draftState.textContent = "";
    for (const input of form.querySelectorAll("input")) input.disabled = true;
    showStatus("Thank you: your answer is stored. ", "ok");
    showNextLink(outcome.data.next_url || config.next_url);
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
startTimer();
document.body.dataset.ready = "true";
