"""How a written narrative is shown for review: marked words and overlap figures in words."""

from annotation.task_parts.overlap_rules import marked_pieces, overlap_lines


def test_marked_pieces_mark_the_words_a_rule_counts_and_keep_the_text():
    text = "Two birds sang of spring, birds of a kind."
    pieces = marked_pieces("Birds of a feather", text)
    # The lone "of" counts for no rule; "birds of a" is a phrase of the proverb's.
    assert [piece["text"] for piece in pieces if piece["mark"]] == ["birds", "birds", "of", "a"]
    assert "".join(piece["text"] for piece in pieces) == text


def test_overlap_lines_say_what_the_rules_count():
    overlap = {
        "1": {"shared": 3, "proverb": 6},
        "shared_words": ["the", "birds", "a"],
        "shared_content_words": ["birds"],
        "longest_shared_ngram": ["the", "birds"],
    }
    assert overlap_lines(overlap)[1:] == [
        "Proverb words used (the rule's count, small words left out): 1 (birds)",
        "Longest phrase from the proverb: the birds",
        "All words in common, small ones included: the, birds, a",
    ]
