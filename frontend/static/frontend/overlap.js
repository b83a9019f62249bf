// The live lexical-overlap check of the "write a narrative" task page.
// Mirrors check_overlap in annotation/text.py exactly (tokenization notes are
// there); tests/cases/overlap.json is checked against both. No dependencies.

export const DEFAULT_RULES = Object.freeze({
  max_shared_ngram: 2,
  max_shared_content_words: 2,
  min_words: 20,
  max_words: 150,
});

const TOKEN_RE = /[\p{L}\p{N}\p{M}]+(?:['\u2018\u2019\u201A\u201B\u2032][\p{L}\p{N}\p{M}]+)*/gu;
const CURLY_APOSTROPHES = /[\u2018\u2019\u201A\u201B\u2032]/g;
const NON_ASCII = /[^\x00-\x7F]/;
const SURROGATE = /[\uD800-\uDFFF]/;
const KEY_SEPARATOR = "\x1f";

function norm(tokenText) {
  if (!NON_ASCII.test(tokenText)) return tokenText.toLowerCase();
  return tokenText.replace(CURLY_APOSTROPHES, "'").normalize("NFKC").toLowerCase();
}

// Code points in text[from, to) (UTF-16 indices); a lone surrogate counts as one.
function codePointsBetween(text, from, to) {
  let count = 0;
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < to) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

// Visit each token: visit(written, start, end) with code-point offsets.
function scanTokens(text, visit) {
  const astral = SURROGATE.test(text);
  let unitPos = 0;
  let pointPos = 0;
  TOKEN_RE.lastIndex = 0;
  let match;
  while ((match = TOKEN_RE.exec(text)) !== null) {
    const written = match[0];
    let start = match.index;
    let end = start + written.length;
    if (astral) {
      pointPos += codePointsBetween(text, unitPos, start);
      start = pointPos;
      pointPos += codePointsBetween(text, match.index, end);
      unitPos = end;
      end = pointPos;
    }
    visit(written, start, end);
  }
}

/** Tokens {text, norm, start, end}; start/end are code-point offsets, as in Python. */
export function overlapTokens(text) {
  const tokens = [];
  scanTokens(text, (written, start, end) => {
    tokens.push({ text: written, norm: norm(written), start, end });
  });
  return tokens;
}

export function wordCount(text) {
  let count = 0;
  scanTokens(text, () => count++);
  return count;
}

/** Rules with defaults filled in; throws on unknown keys, non-integers, negatives. */
export function normalizeRules(rules) {
  if (rules == null) return DEFAULT_RULES;
  const merged = { ...DEFAULT_RULES };
  for (const [key, value] of Object.entries(rules)) {
    if (!(key in DEFAULT_RULES)) throw new Error(`Unknown overlap rule: ${key}.`);
    if (!Number.isInteger(value)) {
      throw new Error(`Overlap rule ${key} must be an integer, got ${JSON.stringify(value)}.`);
    }
    if (value < 0) throw new Error(`Overlap rule ${key} must not be negative, got ${value}.`);
    merged[key] = value;
  }
  if (merged.min_words > merged.max_words) {
    throw new Error(
      `Overlap rule min_words (${merged.min_words}) must not exceed ` +
        `max_words (${merged.max_words}).`,
    );
  }
  return merged;
}

function ngramKey(norms, start, n) {
  let key = norms[start];
  for (let i = start + 1; i < start + n; i++) key += KEY_SEPARATOR + norms[i];
  return key;
}

function ngramKeys(norms, n) {
  const keys = new Set();
  for (let i = 0; i + n <= norms.length; i++) keys.add(ngramKey(norms, i, n));
  return keys;
}

// The page checks the same proverb on every keystroke: keep its n-gram sets.
const proverbProfiles = new Map();
function proverbProfile(proverb) {
  let profile = proverbProfiles.get(proverb);
  if (profile === undefined) {
    const norms = overlapTokens(proverb).map((token) => token.norm);
    const byLength = [new Set()];
    for (let n = 1; n <= norms.length; n++) byLength.push(ngramKeys(norms, n));
    profile = { words: byLength[1] ?? new Set(), byLength };
    if (proverbProfiles.size >= 64) proverbProfiles.clear();
    proverbProfiles.set(proverb, profile);
  }
  return profile;
}

const stopwordSets = new WeakMap();
function asStopwordSet(stopwords) {
  if (stopwords instanceof Set) return stopwords;
  let set = stopwordSets.get(stopwords);
  if (set === undefined) {
    set = new Set(stopwords);
    stopwordSets.set(stopwords, set);
  }
  return set;
}

// Integer round-half-up to 4 decimals, as _ratio in annotation/text.py.
function ratio(shared, total) {
  return total ? Math.floor((shared * 20000 + total) / (2 * total)) / 10000 : 0;
}

function plural(count, noun) {
  return count === 1 ? `${count} ${noun}` : `${count} ${noun}s`;
}

/**
 * Check a narrative against its proverb. rules: {max_shared_ngram,
 * max_shared_content_words, min_words, max_words} (missing keys default);
 * stopwords: a Set or an array of lowercase words (annotation/data/stopwords.txt,
 * which the page receives through json_script). Returns the same object as
 * check_overlap in annotation/text.py.
 */
export function checkOverlap(proverb, narrative, rules, stopwords) {
  if (stopwords == null) throw new TypeError("checkOverlap needs the stopword list.");
  const limits = normalizeRules(rules);
  const stop = asStopwordSet(stopwords);
  const profile = proverbProfile(proverb);
  const proverbWords = profile.words;
  const norms = [];
  const found = []; // [token index, start, end] of the tokens whose norm is in the proverb
  const sharedSet = new Set();
  scanTokens(narrative, (written, start, end) => {
    const word = norm(written);
    if (proverbWords.has(word)) {
      sharedSet.add(word);
      found.push([norms.length, start, end]);
    }
    norms.push(word);
  });
  const sharedWords = [...sharedSet];
  const sharedContentWords = sharedWords.filter((word) => !stop.has(word));
  // Highlighted: what a rule counts. A shared content word, or a word of a run of two or
  // more proverb words (the phrase rule's); a lone small word ("the") counts for neither.
  const pairs = profile.byLength[2] ?? new Set();
  const inSharedRun = (index) =>
    (index > 0 && pairs.has(ngramKey(norms, index - 1, 2))) ||
    (index + 1 < norms.length && pairs.has(ngramKey(norms, index, 2)));
  const highlights = found
    .filter(([index]) => !stop.has(norms[index]) || inSharedRun(index))
    .map(([, start, end]) => [start, end]);

  // An n-gram shared with the proverb starts with a proverb word: only those
  // starts are looked at, for the counts and for the longest shared n-gram.
  const overlap = {};
  for (const n of [1, 2, 3]) {
    const proverbGrams = profile.byLength[n] ?? new Set();
    const shared = new Set();
    if (proverbGrams.size > 0) {
      for (let i = 0; i + n <= norms.length; i++) {
        if (!proverbWords.has(norms[i])) continue;
        const key = ngramKey(norms, i, n);
        if (proverbGrams.has(key)) shared.add(key);
      }
    }
    const total = proverbGrams.size;
    overlap[String(n)] = { shared: shared.size, proverb: total, ratio: ratio(shared.size, total) };
  }

  // Every prefix of a shared n-gram is shared: extend from each start.
  let longestStart = 0;
  let longestLength = 0;
  const maxLength = profile.byLength.length - 1;
  for (let start = 0; start < norms.length; start++) {
    if (!proverbWords.has(norms[start])) continue;
    let length = 1;
    let key = norms[start];
    while (length < maxLength && start + length < norms.length) {
      const longer = key + KEY_SEPARATOR + norms[start + length];
      if (!profile.byLength[length + 1].has(longer)) break;
      key = longer;
      length++;
    }
    if (length > longestLength) {
      longestStart = start;
      longestLength = length;
    }
  }
  const longest = norms.slice(longestStart, longestStart + longestLength);

  const violations = [];
  if (longest.length > limits.max_shared_ngram) {
    const phrase = longest.join(" ");
    violations.push({
      rule: "ngram",
      message: `Your story repeats the phrase "${phrase}" from the proverb. Rephrase it.`,
      words: longest,
    });
  }
  if (sharedContentWords.length > limits.max_shared_content_words) {
    const allowed = limits.max_shared_content_words;
    const verb = allowed === 1 ? "is" : "are";
    violations.push({
      rule: "content_words",
      message:
        `Your story shares ${plural(sharedContentWords.length, "word")} with the proverb ` +
        `(${sharedContentWords.join(", ")}); at most ${allowed} ${verb} allowed.`,
      words: sharedContentWords,
    });
  }
  const count = norms.length;
  if (count < limits.min_words) {
    violations.push({
      rule: "too_short",
      message: `Your story has ${plural(count, "word")}; write at least ${limits.min_words}.`,
      words: [],
    });
  }
  if (count > limits.max_words) {
    violations.push({
      rule: "too_long",
      message: `Your story has ${plural(count, "word")}; write at most ${limits.max_words}.`,
      words: [],
    });
  }

  return {
    word_count: count,
    shared_words: sharedWords,
    shared_content_words: sharedContentWords,
    highlights,
    overlap,
    longest_shared_ngram: longest,
    violations,
    ok: violations.length === 0,
  };
}

// UTF-16 index of each code-point offset in ascending `offsets`.
function toCodeUnits(text, offsets) {
  const units = [];
  let unit = 0;
  let point = 0;
  for (const offset of offsets) {
    while (point < offset && unit < text.length) {
      const code = text.charCodeAt(unit);
      const next = text.charCodeAt(unit + 1);
      unit += code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
      point++;
    }
    units.push(unit);
  }
  return units;
}

/**
 * Show text in element with each highlight ([start, end] code-point offsets,
 * ascending, as checkOverlap returns them) wrapped in <mark>. Only text nodes
 * and textContent are used, so the worker's text is never parsed as HTML.
 * Children that already match are kept: typing one character rewrites one
 * node, so the browser re-lays out little of the preview.
 */
export function renderHighlighted(element, text, highlights) {
  const doc = element.ownerDocument;
  let bounds = highlights.flat();
  if (SURROGATE.test(text)) bounds = toCodeUnits(text, bounds);
  const segments = []; // [text, marked]
  let position = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    if (bounds[i] > position) segments.push([text.slice(position, bounds[i]), false]);
    segments.push([text.slice(bounds[i], bounds[i + 1]), true]);
    position = bounds[i + 1];
  }
  if (position < text.length) segments.push([text.slice(position), false]);

  const nodes = element.childNodes;
  segments.forEach(([segment, marked], index) => {
    const node = nodes[index];
    if (node !== undefined && node.nodeName === (marked ? "MARK" : "#text")) {
      if (node.textContent !== segment) node.textContent = segment;
      return;
    }
    let fresh;
    if (marked) {
      fresh = doc.createElement("mark");
      fresh.textContent = segment;
    } else {
      fresh = doc.createTextNode(segment);
    }
    if (node === undefined) element.appendChild(fresh);
    else element.replaceChild(fresh, node);
  });
  while (nodes.length > segments.length) element.removeChild(element.lastChild);
}
