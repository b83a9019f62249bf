// Parable's runtime inside a HIT template's sandboxed frame, first in its head, in one
// function scope with frontend/telemetry.js (frames.py runtime_code); its settings are
// window.parableFrame: {mode: "work" | "preview" | "review", free_text: [names], answers}.
//
// It supplies what MTurk's externalHIT_v1.js did (turkGetParam, turkGetSubmitToHost,
// turkSetAssignmentID; the parameters are in the frame's own address, as MTurk gave them),
// and it is the frame's one channel to the page around it (task_types/template/page.js):
// the form's submit (the Submit button, form.submit(), requestSubmit, Enter) is stopped
// after the template's own handlers ran (one that cancels it wins), and its fields go to the
// parent with postMessage, with the writing record of each free-text field. The parent
// stores them for its own assignment, once. Drafts are kept by the parent too (the frame's
// origin is opaque: no storage of its own) and restored into the form on reload. In review
// the worker's answer is shown in the template's own layout, read-only.
const frameConfig = window.parableFrame || {};
const frameParams = new URLSearchParams(window.location.search);
const mode = frameConfig.mode || "preview";

window.turkGetParam = (name, defaultValue) =>
  frameParams.has(name) ? frameParams.get(name) : defaultValue;
window.turkGetSubmitToHost = () => window.turkGetParam("turkSubmitTo", "");
window.turkSetAssignmentID = () => {
  const input = document.getElementById("assignmentId");
  if (input) input.value = window.turkGetParam("assignmentId", "");
};

function toParent(message) {
  window.parent.postMessage({ parable: "template", ...message }, "*");
}

function mainForm() {
  return document.forms.mturk_form || document.getElementById("mturk_form") || document.forms[0];
}

// The form's fields as a browser posts them, the submit button's own included; MTurk
// takes assignmentId for itself.
function formFields(form, submitter) {
  const data = submitter ? new FormData(form, submitter) : new FormData(form);
  return [...data].filter(([name, value]) => typeof value === "string" && name !== "assignmentId");
}

// Each named control's state, by its place in the form: what a draft restores.
function snapshot(form) {
  return [...form.elements].map((element) => {
    if (!element.name || element.type === "hidden" || element.type === "password") return null;
    if (element.type === "checkbox" || element.type === "radio") {
      return [element.name, element.checked];
    }
    if (element.multiple) {
      return [element.name, [...element.selectedOptions].map((option) => option.value)];
    }
    return [element.name, element.value];
  });
}

function restore(form, saved) {
  const elements = [...form.elements];
  saved.forEach((entry, index) => {
    const element = elements[index];
    if (!entry || !element || element.name !== entry[0]) return;
    if (element.type === "checkbox" || element.type === "radio") element.checked = entry[1] === true;
    else if (element.multiple && Array.isArray(entry[1])) {
      for (const option of element.options) option.selected = entry[1].includes(option.value);
    } else element.value = String(entry[1]);
    if (element.tagName === "SELECT" || element.type === "checkbox" || element.type === "radio") {
      element.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
}

// In review: the answer as MTurk recorded it (several values joined with "|"), read-only.
function showAnswer(form, answers) {
  for (const element of form.elements) {
    if (!element.name) continue;
    const recorded = answers[element.name];
    const values = recorded === undefined ? [] : String(recorded).split("|");
    if (element.type === "checkbox" || element.type === "radio") {
      element.checked = values.includes(element.value);
    } else if (element.tagName === "SELECT") {
      for (const option of element.options) option.selected = values.includes(option.value);
    } else if (element.type !== "hidden" && recorded !== undefined) {
      element.value = recorded;
    }
    element.disabled = true;
  }
}

const telemetries = new Map();
const writing = {};
let restoredWriting = {};
let sending = false;
let done = mode === "review";
let flushing = false;

// The draft goes to the parent at each change, with each field's writing record as it is now.
function sendDraft() {
  const form = mainForm();
  if (mode !== "work" || !form || done || flushing) return;
  flushing = true;
  for (const telemetry of telemetries.values()) telemetry.save();
  flushing = false;
  toParent({ type: "draft", draft: { fields: snapshot(form), writing } });
}

function attachWriting(form) {
  for (const name of frameConfig.free_text || []) {
    const element = [...form.elements].find(
      (candidate) =>
        candidate.name === name && (candidate.tagName === "TEXTAREA" || candidate.type === "text"),
    );
    if (!element || telemetries.has(name)) continue;
    const store = {
      load: () => restoredWriting[name] || null,
      save: (state) => {
        writing[name] = state;
        sendDraft();
      },
      clear: () => {},
    };
    telemetries.set(name, attachTelemetry(element, { store, away: false }));
  }
}

function submitted(form, submitter) {
  if (done || sending || mode === "review") return;
  sending = true;
  const records = {};
  for (const [name, telemetry] of telemetries) records[name] = telemetry.record();
  toParent({ type: "submit", fields: formFields(form, submitter), writing: records });
}

window.addEventListener("submit", (event) => {
  if (event.defaultPrevented) return; // the template's own check said no
  event.preventDefault();
  submitted(event.target, event.submitter);
});
HTMLFormElement.prototype.submit = function submit() {
  submitted(this, null);
};

window.addEventListener("message", (event) => {
  const message = event.data;
  if (event.source !== window.parent || !message || message.parable !== "template") return;
  const form = mainForm();
  if (message.type === "restore" && form) {
    const draft = message.draft || {};
    restoredWriting = draft.writing || {};
    flushing = true; // the restored draft is the parent's already
    if (Array.isArray(draft.fields)) restore(form, draft.fields);
    flushing = false;
    attachWriting(form);
  } else if (message.type === "stored" && form) {
    done = true;
    for (const element of form.elements) element.disabled = true;
  } else if (message.type === "refused") {
    sending = false;
  } else if (message.type === "hello" && mode === "work" && document.readyState !== "loading") {
    toParent({ type: "ready" }); // the parent's listener came after this frame's first "ready"
  }
});

// After the writing record's own listeners (they are on the field; this is on the window).
for (const kind of ["input", "change"]) window.addEventListener(kind, sendDraft);
for (const kind of ["focus", "blur"]) window.addEventListener(kind, () => toParent({ type: "focus" }));

function tellHeight() {
  toParent({ type: "height", height: document.documentElement.scrollHeight });
}

document.addEventListener("DOMContentLoaded", () => {
  window.turkSetAssignmentID();
  const form = mainForm();
  if (mode === "review" && form) showAnswer(form, frameConfig.answers || {});
  new ResizeObserver(tellHeight).observe(document.documentElement);
  if (mode === "work") toParent({ type: "ready" });
  else if (form && mode === "preview") attachWriting(form);
});
