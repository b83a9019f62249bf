// The review queue: loads one submission at a time as JSON, posts each decision, and
// moves on without reloading the page. Keys: A approve, R reject, B block, P approve and
// pay a bonus, X approve and exclude, S skip; in the message box 1-9 pick an offered text
// (a rejection's saved messages, a bonus's earlier reasons), Enter confirms, Escape cancels.
// Worker text is data: it is only ever written with textContent.

const root = document.getElementById("review-queue");
const card = document.getElementById("submission");
const reasonForm = document.getElementById("reason");
const reasonText = document.getElementById("reason-text");
const reasonLabel = document.getElementById("reason-label");
const bonusField = document.getElementById("bonus-field");
const approveButton = root.querySelector("[data-decision=approve]");
const bonusAmount = document.getElementById("bonus-amount");
const status = document.getElementById("queue-status");
const csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;

const skipped = [];
let current = null;
let pending = null; // "reject", "block", "bonus" or "exclude" while the message box is open
let busy = false;

function el(tag, { text, className, style } = {}, children = []) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  if (style) Object.assign(node.style, style);
  for (const child of children) node.append(child);
  return node;
}

function say(message, { error = false } = {}) {
  status.textContent = message;
  status.classList.toggle("error", error);
}

// Text pieces: {text, mark} (words shared with the proverb) or {text, colour} (a pair).
function pieces(list, className) {
  const container = el("p", { className });
  for (const piece of list) {
    if (piece.mark) container.append(el("mark", { text: piece.text }));
    else if (piece.colour) {
      container.append(
        el("span", { text: piece.text, style: { background: piece.colour, borderRadius: "3px" } }),
      );
    } else container.append(document.createTextNode(piece.text));
  }
  return container;
}

function alignment(drawing) {
  const list = el("ol");
  for (const pair of drawing.pairs) {
    list.append(
      el("li", {}, [
        el("span", { className: "swatch", style: { background: pair.colour } }),
        document.createTextNode(` “${pair.proverb}” ↔ “${pair.narrative}”`),
      ]),
    );
  }
  return [pieces(drawing.proverb, "proverb"), pieces(drawing.narrative, "story"), list];
}

function goldLine(gold) {
  if (gold === null || gold === undefined) return [];
  return [el("p", { text: gold ? "Gold item: answered right." : "Gold item: answered wrong." })];
}

const displays = {
  write: (d) => [
    el("p", { className: "proverb", text: d.proverb }),
    pieces(d.pieces, "story"),
    el("div", { className: "figures" }, [
      el("span", { text: `${d.word_count} words` }),
      ...d.overlap.map((line) => el("span", { text: line })),
    ]),
    // A story of a model-in-the-loop round: its opponent's answer, checks, validation, bonus.
    ...(d.opponent && d.opponent.length
      ? [el("div", { className: "figures opponent" }, d.opponent.map((line) => el("span", { text: line })))]
      : []),
  ],
  align: (d) => alignment(d),
  rate: (d) => [
    ...(d.alignment
      ? alignment(d.alignment)
      : [el("p", { className: "proverb", text: d.proverb }), el("p", { className: "story", text: d.narrative })]),
    el("ul", {}, d.ratings.map((r) => el("li", { text: `${r.label}: ${r.value}` }))),
    ...goldLine(d.gold),
  ],
  choose: (d) => [
    el("p", { className: "story", text: d.narrative }),
    el(
      "ol",
      {},
      d.options.map((o) =>
        el("li", {
          text: `${o.correct ? "✔" : "·"} ${o.chosen ? "● chosen" : "○"} ${o.text}`,
        }),
      ),
    ),
    el("p", { text: d.is_correct ? "Answered right." : "Answered wrong." }),
    ...goldLine(d.gold),
  ],
  result: (d) => [el("dl", {}, d.fields.flatMap(([key, value]) => [el("dt", { text: key }), el("dd", { text: value })]))],
  // Someone else's page (a HIT template): in a sandboxed frame of its own origin, read-only,
  // beside its fields as a table.
  frame: (d) => {
    const shown = [];
    if (d.frame_url) {
      const frame = el("iframe", { className: "answer-frame" });
      frame.setAttribute("sandbox", d.sandbox);
      frame.setAttribute("title", "The answer in the template's layout");
      frame.dataset.testid = "answer-frame";
      frame.src = d.frame_url;
      shown.push(frame);
    }
    const rows = d.fields.map(([key, value]) => el("tr", {}, [el("th", { text: key }), el("td", { text: value })]));
    const table = el("table", { className: "answer-fields" }, [el("tbody", {}, rows)]);
    table.dataset.testid = "answer-fields";
    shown.push(table, el("div", { className: "figures" }, d.notes.map((line) => el("span", { text: line }))));
    return [el("div", { className: "answer-side-by-side" }, shown)];
  },
};

function render(submission) {
  card.replaceChildren();
  current = submission;
  if (!submission) {
    card.append(
      el("p", {
        text: skipped.length
          ? `Nothing else awaits review; ${skipped.length} skipped submission(s) remain. Reload the page to see them again.`
          : "Nothing awaits review in this batch.",
      }),
    );
    card.dataset.assignment = "";
    return;
  }
  card.dataset.assignment = submission.assignment;
  const worker = submission.worker;
  const rate = worker.approval_rate === null ? "not reviewed yet" : `${Math.round(worker.approval_rate * 100)}% approved`;
  const gold = worker.gold_total ? `gold ${worker.gold_correct}/${worker.gold_total}` : "no gold answers";
  const state = submission.provider_state;
  if (state) {
    card.append(el("p", { className: state.approvable ? "provider-state" : "provider-state errornote", text: state.label }));
  }
  approveButton.disabled = Boolean(state && !state.approvable);
  if (submission.flags.length) {
    card.append(el("ul", { className: "flags" }, submission.flags.map(flagItem)));
  }
  if (submission.writing) card.append(writingScore(submission.writing));
  card.append(...(displays[submission.display.kind] || displays.result)(submission.display));
  card.append(
    el("div", { className: "figures" }, [
      el("span", { text: submission.pledge.text, className: "pledge" }),
      el("span", { text: `Worker ${worker.name}: ${rate} (${worker.approved} approved, ${worker.rejected} rejected), ${gold}` }),
      el("span", { text: `Time taken ${submission.time_taken}` }),
      el("span", { text: `Submission ${submission.assignment}${submission.gold_item ? " (gold item)" : ""}` }),
    ]),
  );
}

// The writing-process score with its meaning and source: it informs, it decides nothing.
function writingScore(writing) {
  const label = writing.pilot_label ? ` · pilot label: ${writing.pilot_label}` : "";
  const box = el("div", { className: "writing-score" }, [
    el("strong", { text: `Writing-process score ${writing.value.toFixed(2)}` }),
    el("span", { text: ` (1 looks composed on the page, 0 transcribed or inserted)${label}` }),
    el("div", { className: "quiet", text: writing.source_text }),
    el("div", { className: "quiet", text: writing.meaning }),
  ]);
  box.dataset.testid = "writing-score";
  return box;
}

// A flag in words; a similarity flag also shows the story it matches, beside this one.
function flagItem(flag) {
  const item = el("li", { text: `⚑ ${flag.message}` });
  if (flag.match) {
    item.append(
      el("blockquote", { className: "flag-match", text: `Story #${flag.match.narrative} by ${flag.match.worker}: ${flag.match.text}` }),
    );
  }
  return item;
}

function showCounts(counts) {
  for (const [key, value] of Object.entries(counts)) {
    const node = root.querySelector(`[data-testid=${key}]`);
    if (node) node.textContent = value;
  }
}

async function loadNext() {
  const url = new URL(root.dataset.nextUrl, window.location.href);
  if (skipped.length) url.searchParams.set("skip", skipped.join(","));
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) {
    say(`Could not load the next submission (HTTP ${response.status}). Reload the page.`, { error: true });
    return;
  }
  const data = await response.json();
  showCounts(data.counts);
  render(data.submission);
  card.focus();
}

async function decide(decision, message = "", amount = "") {
  if (!current || busy) return;
  if (decision === "approve" && approveButton.disabled) {
    say(`Not approvable yet: ${current.provider_state.label}. Skip it (S) and come back later.`, { error: true });
    return;
  }
  busy = true;
  const body = new URLSearchParams({ decision, message });
  if (amount) body.set("amount", amount);
  const url = root.dataset.decideUrl.replace("/0/decide/", `/${current.assignment}/decide/`);
  try {
    const response = await fetch(url, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf, Accept: "application/json" },
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(data.error || `The server refused (HTTP ${response.status}).`, { error: true });
      return;
    }
    say(data.done);
    closeReason();
    await loadNext();
  } catch (error) {
    say(`No connection: nothing was changed (${error.message}). Try again.`, { error: true });
  } finally {
    busy = false;
  }
}

function openReason(decision) {
  if (!current) return;
  pending = decision;
  const labels = {
    block: "Why this worker is blocked (shown to them)",
    bonus: "Reason for the bonus (shown to them; paid once per reason and amount)",
    exclude: "Why this paid work is kept out of the dataset (not shown to them)",
  };
  reasonLabel.textContent = labels[decision] || "Message to the worker";
  bonusField.hidden = decision !== "bonus";
  // Each decision is offered its own texts: rejections the saved review messages, bonuses
  // the batch's earlier bonus reasons, blocks and exclusions none.
  for (const offered of reasonForm.querySelectorAll("[data-offered], [data-offered-note]")) {
    offered.hidden = (offered.dataset.offered ?? offered.dataset.offeredNote) !== decision;
  }
  // A rejection starts from a message naming the flags' evidence, to edit or send as is.
  if (decision === "reject" && !reasonText.value) reasonText.value = current.evidence_message;
  reasonForm.hidden = false;
  if (decision === "bonus") {
    bonusAmount.focus();
  } else {
    reasonText.focus();
    reasonText.select(); // typing replaces the offered message; Enter sends it
  }
}

function closeReason() {
  pending = null;
  reasonForm.hidden = true;
  reasonText.value = "";
  bonusAmount.value = "";
  bonusField.hidden = true;
  card.focus();
}

function skip() {
  if (!current) return;
  skipped.push(current.assignment);
  say(`Skipped submission ${current.assignment}.`);
  loadNext();
}

function pickSaved(number) {
  const list = reasonForm.querySelector(`[data-offered="${pending}"]`);
  const button = list && list.querySelector(`[data-saved="${number}"] span`);
  if (button) reasonText.value = button.textContent;
}

reasonForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const message = reasonText.value.trim();
  if (!message) {
    say("Write a message, or pick an offered one with its number.", { error: true });
    return;
  }
  if (pending === "bonus" && !(Number(bonusAmount.value) > 0)) {
    say(`Give the bonus as an amount (${bonusAmount.placeholder}), not in cents.`, { error: true });
    bonusAmount.focus();
    return;
  }
  decide(pending, message, pending === "bonus" ? bonusAmount.value : "");
});

reasonForm.addEventListener("click", (event) => {
  const saved = event.target.closest("[data-saved]");
  if (saved) {
    pickSaved(saved.dataset.saved);
    reasonText.focus();
  }
  if (event.target.closest("[data-cancel]")) closeReason();
});

reasonText.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    event.preventDefault();
    closeReason();
  } else if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    reasonForm.requestSubmit();
  } else if (/^[1-9]$/.test(event.key) && reasonText.value === "") {
    event.preventDefault();
    pickSaved(event.key);
  }
});

root.querySelector(".queue-actions").addEventListener("click", (event) => {
  const button = event.target.closest("[data-decision]");
  if (!button) return;
  const decision = button.dataset.decision;
  if (decision === "approve") decide("approve");
  else if (decision === "skip") skip();
  else openReason(decision);
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  if (pending) return;
  const actions = {
    a: () => decide("approve"),
    r: () => openReason("reject"),
    b: () => openReason("block"),
    p: () => openReason("bonus"),
    x: () => openReason("exclude"),
    s: skip,
  };
  const action = actions[event.key.toLowerCase()];
  if (action) {
    event.preventDefault();
    action();
  }
});

loadNext();
