// The gloss page: Submit is enabled for 1 to config.max_words words; the answer is sent
// through the shared submitter and the page then offers the next task.
import { createSubmitter, showNextLink, showStatus, startTimer, taskConfig } from "../../frontend/submit.js";

const config = taskConfig();
const submitter = createSubmitter(config);
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
    showStatus("Thank you: your gloss is stored. ", "ok");
    showNextLink(outcome.data.next_url || config.next_url);
    return;
  }
  showStatus(outcome.message, "error");
  update();
}

gloss.addEventListener("input", update);
button.addEventListener("click", submit);
gloss.disabled = false;
update();
startTimer();
document.body.dataset.ready = "true";
