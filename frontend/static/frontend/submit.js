// Shared helpers of Parable's task pages: settings, drafts, submitting, status, timer.
// A plain ES module with no dependencies; every task page's module imports it.
//
//   taskConfig() -> object
//       The page's #task-config JSON (json_script). Common keys, set by the view:
//       assignment, submit_url, next_url, draft_key, submitted; the rest is the task type's.
//   draftStore(key) -> { load(), save(value), clear() }
//       The draft in localStorage under `key` (any JSON value). load() gives null when
//       there is none. Storage failures (private mode, full quota) are ignored: the
//       page keeps working, only without a saved draft.
//   createSubmitter(config) -> { submit(payload) -> Promise<outcome>, busy }
//       POSTs {payload, submission_key} as JSON to config.submit_url with the CSRF token.
//       The key is made once per assignment and kept in localStorage until the submit
//       succeeds, so a retry after a failure, a reload or a double click sends the same
//       key; while a request is in flight, submit() returns that request's promise.
//       The server stores one submission per assignment and answers a retry with it.
//       outcome: {ok: true, data}                          200: data.result, data.next_url
//                {ok: false, kind: "refused", message, details}   the server's reason (4xx)
//                {ok: false, kind: "network" | "server", message} nothing was stored
//       When config.external_submit is {url, fields} (a provider's own form, e.g. MTurk's
//       externalSubmit), a successful submit then posts those fields there as a form.
//   showStatus(message, kind = "") -> the #status line, kind "ok" | "error" | ""
//   showNextLink(url) -> appends a "Next task" link (data-testid next-link) to #status;
//       nothing when url is empty
//   startTimer() -> counts the #timer element down from its data-seconds-left
//   taskDone() -> stops the timer and hides it and "Give this task back" (called by the
//       submitter once a submission is stored)
// Text is only ever written with textContent: worker text is never parsed as HTML.

export function taskConfig(id = "task-config") {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent) : {};
}

export function draftStore(key) {
  return {
    load() {
      try {
        const stored = window.localStorage.getItem(key);
        return stored === null ? null : JSON.parse(stored);
      } catch {
        return null;
      }
    },
    save(value) {
      try {
        window.localStorage.setItem(key, JSON.stringify(value));
        return true;
      } catch {
        return false;
      }
    },
    clear() {
      try {
        window.localStorage.removeItem(key);
      } catch {
        // Nothing to clear when storage is unavailable.
      }
    },
  };
}

function randomKey() {
  // crypto.getRandomValues works on plain http too (randomUUID needs a secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

const NETWORK_MESSAGE =
  "Your work was not sent: the server could not be reached. It is still here and saved " +
  "in this browser; check your connection and submit again.";
const SERVER_MESSAGE =
  "The server had a problem and did not store your work. It is still here and saved in " +
  "this browser; submit again in a moment.";

async function post(url, body) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: JSON.stringify(body),
    });
  } catch {
    return { ok: false, kind: "network", message: NETWORK_MESSAGE };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (response.ok && data !== null) return { ok: true, data };
  if (response.status >= 400 && response.status < 500 && data && data.error) {
    return { ok: false, kind: "refused", message: data.error, details: data.details ?? null };
  }
  if (response.status >= 400 && response.status < 500) {
    return {
      ok: false,
      kind: "refused",
      message:
        `Your work was not accepted (error ${response.status}). It is still here; ` +
        "open your personal link again, then submit.",
      details: null,
    };
  }
  return { ok: false, kind: "server", message: SERVER_MESSAGE };
}

export function createSubmitter(config) {
  const keyStore = draftStore(`${config.draft_key}:submission-key`);
  let inFlight = null;
  const submitter = {
    busy: false,
    submit(payload) {
      if (inFlight !== null) return inFlight;
      let key = keyStore.load();
      if (typeof key !== "string" || key === "") {
        key = randomKey();
        keyStore.save(key);
      }
      submitter.busy = true;
      inFlight = post(config.submit_url, { payload, submission_key: key }).then((outcome) => {
        inFlight = null;
        submitter.busy = false;
        if (outcome.ok) {
          keyStore.clear();
          taskDone();
          if (config.external_submit) postForm(config.external_submit);
        }
        return outcome;
      });
      return inFlight;
    },
  };
  return submitter;
}

function postForm({ url, fields }) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = url;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = String(value);
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}

export function showStatus(message, kind = "") {
  const status = document.getElementById("status");
  if (!status) return;
  status.textContent = message;
  status.className = kind ? `status ${kind}` : "status";
}

export function showNextLink(url) {
  const status = document.getElementById("status");
  if (!status || !url) return;
  const next = document.createElement("a");
  next.href = url;
  next.textContent = "Next task";
  next.dataset.testid = "next-link";
  status.appendChild(next);
}

let stopTimer = () => {};

export function taskDone() {
  stopTimer();
  for (const selector of ["#timer", ".return-form"]) {
    const element = document.querySelector(selector);
    if (element) element.hidden = true;
  }
}

export function startTimer() {
  const timer = document.getElementById("timer");
  if (!timer) return;
  const deadline = Date.now() + Number(timer.dataset.secondsLeft || 0) * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    if (left === 0) {
      timer.textContent = "Time is up: submit now; your place may go to someone else.";
      timer.classList.add("late");
      return false;
    }
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    timer.textContent = `${minutes}:${seconds} left`;
    return true;
  };
  if (tick()) {
    const interval = setInterval(() => {
      if (!tick()) clearInterval(interval);
    }, 1000);
    stopTimer = () => clearInterval(interval);
  }
}
