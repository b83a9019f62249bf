// What every task page's module opens and closes with, over submit.js (task pages:
// annotation/task_types/*/static/page.js and choice.js).
//   taskPage() -> { config, draft, submitter, draftState, stored(data, thanks), ready() }
//       config: taskConfig(); draft: draftStore(config.draft_key); submitter:
//       createSubmitter(config); draftState: the #draft-state line.
//       stored(data, thanks): the answer is stored: clears the draft and its line, then
//       says `thanks` with the next task's link (data.next_url, else config.next_url).
//       ready(): starts the timer and marks the page ready (body[data-ready="true"]).
import {
  createSubmitter,
  draftStore,
  showNextLink,
  showStatus,
  startTimer,
  taskConfig,
} from "./submit.js";

export { showStatus };

export function taskPage() {
  const config = taskConfig();
  const draft = draftStore(config.draft_key);
  const draftState = document.getElementById("draft-state");
  return {
    config,
    draft,
    draftState,
    submitter: createSubmitter(config),
    stored(data, thanks) {
      draft.clear();
      if (draftState && draftState.textContent !== "") draftState.textContent = "";
      showStatus(thanks, "ok");
      showNextLink(data.next_url || config.next_url);
    },
    ready() {
      startTimer();
      document.body.dataset.ready = "true";
    },
  };
}
