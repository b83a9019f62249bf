// The dataset dashboard: while a fresh analysis is queued or running, poll its progress
// and show it; when it is done, reload the page to show the new result. Polling stops
// after an hour or on an error.

const job = document.getElementById("analysis-job");
const initial = job.dataset.status;
const INTERVAL_MS = 1000;
const MAX_POLLS = 3600;

function show(state) {
  const line = job.querySelector("[data-job-progress]");
  const bar = line.querySelector("progress");
  const stage = line.querySelector("[data-job-stage]");
  line.hidden = !["queued", "running"].includes(state.status);
  bar.max = Math.max(state.total, 1);
  bar.value = state.done;
  stage.textContent = state.status === "queued" ? "Waiting for a worker…" : `${state.stage} ${state.done} of ${state.total}`;
  job.dataset.status = state.status;
}

async function poll(count) {
  if (count > MAX_POLLS) return;
  let state;
  try {
    const response = await fetch(job.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return;
    state = await response.json();
  } catch {
    setTimeout(() => poll(count + 1), INTERVAL_MS * 5);
    return;
  }
  show(state);
  if (state.status === "idle" && state.fresh && job.dataset.fresh !== "true") {
    window.location.reload();
    return;
  }
  if (state.status === "failed" && initial !== "failed") {
    window.location.reload();
    return;
  }
  if (["queued", "running"].includes(state.status)) setTimeout(() => poll(count + 1), INTERVAL_MS);
}

if (["queued", "running"].includes(job.dataset.status) || job.dataset.fresh !== "true") poll(0);
