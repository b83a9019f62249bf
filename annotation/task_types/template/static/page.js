// The page around a HIT template's sandboxed frame (frames.py): the frame's one channel.
// Messages are taken from that frame only. "ready": the frame is loaded; it gets the draft
// kept in this browser, once (the frame may load before this module runs, so this page
// says "hello" and the frame answers "ready" again). "draft": a new draft to keep. "height": the frame's content height.
// "focus": the frame gained or lost focus. "submit": the form's fields and writing records,
// which are sent for this page's own assignment, once (submit.js: one key per assignment;
// the server answers a replay with what it stored). The page also counts how often and how
// long the worker left it: tab switches (hidden) and the window out of focus (the frame's
// focus is the page's: document.hasFocus() counts it in).
import { showStatus, taskPage } from "../../frontend/page.js";

const page = taskPage();
const { draft, draftState, submitter } = page;
const frame = document.getElementById("hit-frame");
const saved = draft.load() || {};
const away = { tab_switches: 0, hidden_ms: 0, blurs: 0, blurred_ms: 0, ...(saved.away || {}) };
let hiddenSince = document.visibilityState === "hidden" ? Date.now() : null;
let blurredSince = null;
let done = false;
let restored = false;

function tell(message) {
  frame.contentWindow.postMessage({ parable: "template", ...message }, "*");
}

function awayNow() {
  const now = Date.now();
  const record = { ...away };
  if (hiddenSince !== null) record.hidden_ms += now - hiddenSince;
  if (blurredSince !== null) record.blurred_ms += now - blurredSince;
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Math.round(value)]));
}

function keep(frameDraft) {
  const kept = { ...(draft.load() || {}), away: awayNow() };
  if (frameDraft) Object.assign(kept, { fields: frameDraft.fields, writing: frameDraft.writing });
  if (draft.save(kept) && frameDraft) draftState.textContent = "Draft saved in this browser.";
}

function focusChanged() {
  setTimeout(() => {
    const present = document.hasFocus() || document.visibilityState === "hidden";
    if (!present && blurredSince === null) {
      away.blurs += 1;
      blurredSince = Date.now();
    } else if (present && blurredSince !== null) {
      away.blurred_ms += Date.now() - blurredSince;
      blurredSince = null;
    }
  }, 0);
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") {
    away.tab_switches += 1;
    hiddenSince = Date.now();
    keep(null);
  } else if (hiddenSince !== null) {
    away.hidden_ms += Date.now() - hiddenSince;
    hiddenSince = null;
  }
  focusChanged();
});
window.addEventListener("blur", focusChanged);
window.addEventListener("focus", focusChanged);

async function submit(message) {
  if (done) return;
  showStatus("Sending…");
  const outcome = await submitter.submit({
    fields: message.fields,
    writing: message.writing,
    away: awayNow(),
  });
  if (outcome.ok) {
    done = true;
    tell({ type: "stored" });
    page.stored(outcome.data, "Thank you: your answer is stored. ");
    return;
  }
  tell({ type: "refused" });
  showStatus(outcome.message, "error");
}

window.addEventListener("message", (event) => {
  const message = event.data;
  if (event.source !== frame.contentWindow || !message || message.parable !== "template") return;
  if (message.type === "ready") {
    if (restored) return;
    restored = true;
    tell({ type: "restore", draft: { fields: saved.fields, writing: saved.writing } });
    if (saved.fields) draftState.textContent = "Your draft was restored.";
  } else if (message.type === "draft" && !done) keep(message.draft);
  else if (message.type === "height") {
    frame.style.height = `${Math.min(Math.max(Number(message.height) || 0, 200), 20000) + 4}px`;
  } else if (message.type === "focus") focusChanged();
  else if (message.type === "submit") submit(message);
});

tell({ type: "hello" });
page.ready();
