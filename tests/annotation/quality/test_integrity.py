"""Writing integrity, pure: the writing record's checks and each flag with its explanation."""

import pytest

from annotation.quality.canary import canary_flags, canary_found
from annotation.quality.integrity import (
    MAX_TELEMETRY_BYTES,
    IntegritySettings,
    TelemetryError,
    process_flags,
    similarity_flags,
    telemetry_clean,
    telemetry_summary,
)
from tests.factories import writing_record

DEFAULTS = IntegritySettings()


def codes(record, length=160, settings=DEFAULTS):
    return [
        flag.code
        for flag in process_flags(telemetry_clean(record), text_length=length, settings=settings)
    ]


def test_typed_story_gets_no_flag():
    assert codes(writing_record()) == []


def test_story_mostly_pasted_from_outside_is_flagged_with_its_share():
    record = writing_record(typed=10, pasted=150, paste_events=1)
    flags = process_flags(telemetry_clean(record), text_length=160, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["pasted"]
    assert flags[0].explanation.startswith("150 of the story's 160 characters were pasted")
    assert flags[0].details == {"characters": 150, "share": 0.938}


def test_paste_of_the_pages_own_text_is_not_a_paste_from_outside():
    assert codes(writing_record(typed=40, pasted_internal=120)) == []


def test_text_without_keystrokes_is_flagged():
    assert codes(writing_record(typed=20, keys=20, inserted_without_keys=140)) == ["no_keystrokes"]
    assert codes(writing_record(typed=20, keys=20, unexplained=140)) == ["no_keystrokes"]


def test_typing_faster_than_a_person_is_flagged():
    record = writing_record(burst_interval_ms_sum=10 * 161, burst_intervals=161)
    flags = process_flags(telemetry_clean(record), text_length=160, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["too_fast"]
    assert "10 ms apart" in flags[0].explanation


def test_few_fast_keys_are_not_enough_for_the_speed_flag():
    assert codes(writing_record(burst_interval_ms_sum=10 * 5, burst_intervals=5)) == []


def test_long_hidden_stretch_then_a_large_insertion_is_flagged():
    record = writing_record(hidden_returns=[[5_000, 300], [120_000, 150], [90_000, 10]])
    flags = process_flags(telemetry_clean(record), text_length=160, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["hidden_then_inserted"]
    assert flags[0].details == {"hidden_seconds": 120, "characters": 150}


def test_synthetic_events_are_flagged():
    assert codes(writing_record(synthetic_events=1, synthetic=160)) == ["synthetic"]


def test_synthetic_flag_counts_what_is_in_the_submitted_story_not_what_was_deleted():
    record = writing_record(version=2, synthetic_events=3, synthetic=900, synthetic_kept=40)
    [flag] = process_flags(telemetry_clean(record), text_length=160, settings=DEFAULTS)
    assert flag.details == {"events": 3, "characters": 40}
    assert "40 of the story's 160 characters came with them" in flag.explanation
    # An older page's record counted deleted characters too: at most the story is cited.
    old = writing_record(synthetic_events=3, synthetic=900)
    [flag] = process_flags(telemetry_clean(old), text_length=160, settings=DEFAULTS)
    assert flag.details["characters"] == 160


def test_steady_typing_without_revisions_or_pauses_is_transcription():
    assert codes(writing_record(deleted=0, pauses=0)) == ["transcription"]
    assert codes(writing_record(deleted=0, pauses=1)) == []


def test_missing_record_is_flagged_as_unknown():
    flags = process_flags(None, text_length=160, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["no_record"]


def test_batch_thresholds_change_what_is_flagged():
    record = writing_record(typed=100, pasted=60)
    assert codes(record) == []
    assert codes(record, settings=IntegritySettings(max_pasted_share=0.25)) == ["pasted"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "must be an object"),
        ({"typed": -1}, "'typed' is out of range"),
        ({"typed": "many"}, "'typed' must be a number"),
        ({"keystrokes": [1, 2]}, "Unknown key(s) in the writing record: keystrokes"),
        ({"intervals": [1, 2]}, "'intervals' must be 8 counts"),
        ({"hidden_returns": [[1, 2, 3]]}, "Each of 'hidden_returns'"),
        ({"typed": 1, "pasted": "x" * MAX_TELEMETRY_BYTES}, "larger than 4096 bytes"),
    ],
)
def test_malformed_record_is_refused_with_the_reason(record, message):
    with pytest.raises(TelemetryError, match=message.replace("(", r"\(").replace(")", r"\)")):
        telemetry_clean(record)


def test_clean_record_fills_missing_counts_with_zero():
    cleaned = telemetry_clean({"typed": 12.0})
    assert cleaned["typed"] == 12 and cleaned["pasted"] == 0
    assert cleaned["intervals"] == [0] * 8 and cleaned["hidden_returns"] == []


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"max_pasted_share": 2}, "between 0 and 1"),
        ({"refuse_paste": "yes"}, "true or false"),
        ({"hidden_seconds": -5}, "must not be negative"),
        ({"paste": True}, "Unknown integrity setting"),
        ({"canary_word": 3}, "must be a text"),
        ({"canary_instruction": "Use a word."}, "needs the canary word"),
    ],
)
def test_bad_settings_are_refused(values, message):
    with pytest.raises(ValueError, match=message):
        IntegritySettings.from_dict(values)


def test_near_duplicate_beats_homogeneity_and_names_the_story():
    similarity = {
        "proverb": {"narrative": 7, "similarity": 0.97},
        "own": {"narrative": 3, "similarity": 0.85},
    }
    flags = similarity_flags(similarity, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["near_duplicate"]
    assert "another story #7" in flags[0].explanation
    assert flags[0].details == {"narrative": 7, "similarity": 0.97}


def test_workers_story_much_like_their_earlier_one_is_homogeneous():
    similarity = {
        "proverb": {"narrative": 7, "similarity": 0.4},
        "own": {"narrative": 3, "similarity": 0.82},
    }
    flags = similarity_flags(similarity, settings=DEFAULTS)
    assert [flag.code for flag in flags] == ["homogeneous"]
    assert "earlier story #3" in flags[0].explanation


def test_unrelated_stories_get_no_similarity_flag():
    similarity = {"proverb": {"narrative": 7, "similarity": 0.5}, "own": None}
    assert similarity_flags(similarity, settings=DEFAULTS) == []
    assert similarity_flags({}, settings=DEFAULTS) == []


def test_summary_gives_shares_and_times_not_events():
    summary = telemetry_summary(
        telemetry_clean(writing_record(typed=120, pasted=40)), text_length=160
    )
    assert summary["typed_share"] == 0.75 and summary["pasted_share"] == 0.25
    assert summary["composition_seconds"] == 95 and summary["mean_key_interval_ms"] == 180.0
    assert "intervals" not in summary and "hidden_returns" not in summary


def test_canary_word_is_found_as_a_word_whatever_its_case():
    settings = IntegritySettings.from_dict({"canary_word": "Quixotic"})
    found = canary_found("Their QUIXOTIC plan failed.", settings=settings)
    assert found == {"word": "Quixotic", "instruction": settings.canary_text}
    assert "“Quixotic”" in settings.canary_text
    assert canary_found("Their quixotically bold plan.", settings=settings) is None
    assert canary_found("Anything.", settings=DEFAULTS) is None


def test_canary_flag_shows_the_word_and_the_instruction():
    settings = IntegritySettings.from_dict(
        {"canary_word": "zephyr", "canary_instruction": "Mention a zephyr."}
    )
    [flag] = canary_flags(canary_found("A zephyr blew.", settings=settings))
    assert flag.code == "canary"
    assert "“zephyr”" in flag.explanation and "Mention a zephyr." in flag.explanation
    assert canary_flags(None) == []


def test_a_version_3_record_keeps_the_times_away_and_an_older_one_leaves_them_unknown():
    newer = telemetry_clean(writing_record(version=3, tab_switches=2, blurs=3, blurred_ms=4_500))
    assert (newer["version"], newer["tab_switches"], newer["blurs"]) == (3, 2, 3)
    assert telemetry_summary(newer, text_length=160)["blurred_seconds"] == 4  # rounded
    older = telemetry_clean(writing_record(version=2))
    assert "blurs" not in older
    assert telemetry_summary(older, text_length=160)["tab_switches"] is None  # unknown, not 0


def test_the_record_of_time_away_is_checked():
    from annotation.quality.integrity import away_clean

    assert away_clean(None) is None
    record = {"tab_switches": 1, "hidden_ms": 20, "blurs": 2, "blurred_ms": 30.4}
    assert away_clean(record) == {"tab_switches": 1, "hidden_ms": 20, "blurs": 2, "blurred_ms": 30}
    with pytest.raises(TelemetryError):
        away_clean({"tab_switches": -1})
    with pytest.raises(TelemetryError):
        away_clean({"keys_pressed": 1})
