// The narrative cloze page: the answer is sent to the server's parser (config.check_url)
// once typing pauses, and the page says what the sentence is missing (a verb, a subject);
// Submit is enabled only for a full sentence, and the server checks again on submit.
import { showStatus, taskPage } from "../../frontend/page.js";

const CHECK_AFTER_MS = 300;
const page = taskPage();
const { config, draft, draftState, submitter } = page;
const answer = document.getElementById("answer");
const verdictLine = document.getElementById("sentence-check");
const button = document.getElementById("submit");
let verdict = { ok: false, text: null };
let timer = 0;
let asked = 0;
let done = false;

function showVerdict(message, kind) {
  verdictLine.textContent = message;
  verdictLine.className = kind ? `muted small ${kind}` : "muted small";
}

function update() {
  const current = answer.value.trim();
  button.disabled = done || submitter.busy || !(verdict.ok && verdict.text === current);
}

async function check() {
  timer = 0;
  const text = answer.value.trim();
  if (text === "") {
    verdict = { ok: false, text };
    showVerdict("", "");
    update();
    return;
  }
  const ticket = ++asked;
  let data;
  try {
    const csrf = document.querySelector("input[name=csrfmiddlewaretoken]");
    const response = await fetch(config.check_url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf ? csrf.value : "" },
      body: JSON.stringify({ text }),
    });
    data = await response.json();
  } catch {
    if (ticket === asked) showVerdict("Your sentence could not be checked; keep typing.", "bad");
    return;
  }
  if (ticket !== asked) return; // a later check is on its way
  verdict = { ok: data.ok === true, text };
  showVerdict(data.ok ? "A full sentence: you can submit it." : data.message, data.ok ? "good" : "bad");
  verdictLine.dataset.missing = (data.missing || []).join(" ");
  update();
}

function onInput() {
  verdict = { ok: false, text: null };
  update();
  clearTimeout(timer);
  timer = setTimeout(check, CHECK_AFTER_MS);
  if (draft.save(answer.value)) draftState.textContent = "Draft saved in this browser.";
}

async function submit() {
  if (done || !verdict.ok) return;
  button.disabled = true;
  answer.readOnly = true;
  showStatus("Sending…");
  const outcome = await submitter.submit({ text: answer.value });
  if (outcome.ok) {
    done = true;
    page.stored(outcome.data, "Thank you: your sentence is stored. ");
    return;
  }
  answer.readOnly = false;
  if (outcome.details && outcome.details.message) showVerdict(outcome.details.message, "bad");
  showStatus(outcome.message, "error");
  update();
}

const saved = draft.load();
if (typeof saved === "string" && saved !== "") {
  answer.value = saved;
  draftState.textContent = "Your draft was restored.";
  check();
}
answer.addEventListener("input", onInput);
button.addEventListener("click", submit);
answer.disabled = false;
update();
page.ready();
