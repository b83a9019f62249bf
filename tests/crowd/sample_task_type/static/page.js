// The gloss page: Submit is enabled for 1 to config.max_words words; the answer is sent
// through the shared task page (frontend/page.js), which then offers the next task.
import { showStatus, taskPage } from "../../frontend/page.js";

const page = taskPage();
const { config, submitter } = page;
const gloss = document.getElementById("gloss");
const button = document.getElementById("submit");

function words() {
  return gloss.value.trim().split(/\s+/).filter(Boolean).length;
}

function update() {
  button.disabled = submitter.busy || words() < 1 || words() > config.max_words;
}

async function submit() {
  button.disabled = true;
  const outcome = await submitter.submit({ gloss: gloss.value });
  if (outcome.ok) {
    gloss.readOnly = true;
    page.stored(outcome.data, "Thank you: your gloss is stored. ");
    return;
  }
  showStatus(outcome.message, "error");
  update();
}

gloss.addEventListener("input", update);
button.addEventListener("click", submit);
gloss.disabled = false;
update();
page.ready();
