// The opponent of a write page in a model-in-the-loop round: once the story follows the
// writing rules, "Does the model find the proverb?" POSTs it to config.check_url; the server
// queues the model (a Celery worker, or the embedded default's background thread after the
// response) and the page polls the check until the model answers. The server counts the
// checks (config.opponent.max_checks per task) and keeps them in the story's record.
// In "require" mode Submit waits for the exact text that the model did not find.
// Text is only ever written with textContent.
//
//   attachOpponent({ config, textarea, onAnswer }) -> { update(rulesOk), allowsSubmit(text) }
//       config.opponent null (no opponent) or no check button (a preview): a no-op that
//       allows any submit. onAnswer() runs when a verdict arrives (the page updates Submit).

const POLL_AFTER_MS = [250, 250, 500, 500, 1000];
const GIVE_UP_MS = 90_000;

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function ask(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`status ${response.status}`);
  return response.json();
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function verdictText(state) {
  if (state.found) {
    return `The model found the proverb: it ranked it first of ${state.candidates}.`;
  }
  return (
    `The model did not find the proverb: it ranked it ${state.rank} of ${state.candidates}. ` +
    "Your story fools the model."
  );
}

export function attachOpponent({ config, textarea, onAnswer = () => {} }) {
  const opponent = config.opponent;
  const button = document.getElementById("opponent-check");
  if (!opponent || !button) return { update() {}, allowsSubmit: () => true };
  const verdict = document.getElementById("opponent-verdict");
  const guesses = document.getElementById("opponent-guesses");
  const left = document.getElementById("opponent-left");
  let checksLeft = opponent.max_checks - opponent.checks_used;
  let rulesOk = false;
  let busy = false;
  let answer = null; // {text, found}: the last verdict, for that exact text

  function say(message, kind = "") {
    verdict.textContent = message;
    verdict.className = kind ? `opponent-verdict ${kind}` : "opponent-verdict";
  }

  function showGuesses(list) {
    guesses.replaceChildren(
      ...(list || []).map((guess) => {
        const item = document.createElement("li");
        item.textContent = `${guess.proverb} (${guess.score.toFixed(2)})`;
        return item;
      }),
    );
    guesses.hidden = !(list && list.length);
  }

  function update(ok) {
    rulesOk = ok;
    const text = textarea.value.trim();
    const same = answer !== null && answer.text === text;
    button.disabled = busy || !rulesOk || checksLeft <= 0 || same;
    left.textContent = `${checksLeft} of ${opponent.max_checks} checks left`;
    verdict.dataset.stale = String(answer !== null && !same);
  }

  async function poll(state) {
    const started = Date.now();
    let step = 0;
    while (state.status === "pending" && Date.now() - started < GIVE_UP_MS) {
      await wait(POLL_AFTER_MS[Math.min(step, POLL_AFTER_MS.length - 1)]);
      step += 1;
      state = await ask(config.check_url, { opponent: "poll", check: state.check });
    }
    return state;
  }

  async function check() {
    const text = textarea.value.trim();
    busy = true;
    update(rulesOk);
    say("Asking the model…");
    showGuesses([]);
    try {
      const state = await poll(await ask(config.check_url, { opponent: "check", text }));
      if (typeof state.checks_left === "number") checksLeft = state.checks_left;
      if (state.status === "answered") {
        answer = { text, found: state.found };
        say(verdictText(state), state.found ? "bad" : "good");
        showGuesses(state.guesses);
      } else if (state.status === "pending") {
        say("The model has not answered yet; ask again in a moment.", "bad");
      } else {
        say(state.message || "The model could not answer; ask again.", "bad");
      }
    } catch {
      say("The model could not be reached; check your connection and ask again.", "bad");
    } finally {
      busy = false;
      update(rulesOk);
      onAnswer();
    }
  }

  button.addEventListener("click", check);
  return {
    update,
    allowsSubmit(text) {
      if (opponent.mode !== "require") return true;
      return answer !== null && !answer.found && answer.text === text.trim();
    },
  };
}
