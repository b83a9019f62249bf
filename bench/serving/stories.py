"""Proverbs and realistic ~120-word stories for the serving benchmark's write batch.

The proverbs are built from nature images (25,000 distinct texts); the stories are
everyday scenes that share no phrase and at most two content words with them, so that
each one passes the write task's default overlap rules. `PassingStories` checks that with
the server's own check (annotation.text.check_overlap) rather than assuming it.
"""

from __future__ import annotations

import itertools

SUBJECTS = [
    "A patient heron",
    "The quiet river",
    "An old oak",
    "A hungry fox",
    "The morning tide",
    "A lone wolf",
    "The highest mountain",
    "A small spark",
    "The winter frost",
    "A restless wind",
    "The golden wheat",
    "A sleeping lion",
    "The swift hawk",
    "A broken bough",
    "The silver moon",
    "A wandering goose",
    "The deep well",
    "A proud peacock",
    "The falling leaf",
    "A stubborn mule",
    "The bright comet",
    "A thirsty camel",
    "The hidden spring",
    "A crooked pine",
    "The rolling thunder",
]
VERBS = [
    "never fears",
    "always finds",
    "soon forgets",
    "seldom catches",
    "slowly shapes",
    "quietly outlasts",
    "cannot outrun",
    "gladly shares",
    "rarely sees",
    "patiently waits for",
]
OBJECTS = [
    "the storm",
    "its own shadow",
    "the distant shore",
    "the first frost",
    "the valley floor",
    "the evening star",
    "the summer rain",
    "the open field",
    "the northern snow",
    "the muddy bank",
]

STORIES = [
    "Priya had worked at the bakery on Elm Street for six years when the owner announced "
    "he was retiring. Everyone assumed the business would close. Instead, Priya spent "
    "three weekends going through the accounts with her cousin, an accountant who "
    "explained every column twice. She asked the regular customers what they loved and "
    "what they missed, wrote the answers in a notebook, and took a loan that frightened "
    "her. The first month was hard: the oven broke, a supplier raised prices, and she "
    "slept four hours a night. By spring, though, the queue reached the corner every "
    "Saturday, and the old owner came by each week to buy the same cinnamon roll.",
    "Marcus was the new teacher at a school where the math scores had been low for years. "
    "His colleagues warned him that nothing would change, that the kids simply did not "
    "care. He stayed after class every Tuesday and Thursday anyway, handing out worksheets "
    "and cold pizza to anyone who showed up. At first only two students came. Then five, "
    "then a dozen, because word spread that he explained things without making anyone feel "
    "stupid. He kept a chart on the wall of every problem they solved together. At the end "
    "of the year the scores had risen, and the principal asked him to train the others.",
    "When Hannah moved into the apartment above the laundromat, her neighbor Mr. Okafor "
    "greeted her with a plate of jollof rice and a list of rules about the shared hallway. "
    "She found him strict and a little nosy. A month later her pipes burst during a night "
    "shift at the hospital, and it was Mr. Okafor who noticed the water under her door, "
    "called the landlord, and carried her boxes of books upstairs to his dry living room. "
    "When she came home at dawn, exhausted, he had already dried the books with a hair "
    "dryer and stacked them by the window. Now they share dinner every Sunday.",
    "Leo spent the whole summer saving for a used bicycle, mowing lawns and washing cars "
    "in the neighborhood. His older brother laughed and said he could just borrow the "
    "family car when he turned sixteen. Leo kept a jar on his desk and counted the coins "
    "every Friday night. In August he finally bought a dented blue bike from a retired "
    "mail carrier, who threw in a repair kit and a lesson on fixing a flat tire. That "
    "autumn, when the family car broke down for three weeks, Leo was the only one who "
    "still got to school on time, and his brother asked to borrow the bike twice.",
    "The office printer had jammed every morning for a year, and every morning someone "
    "kicked it, swore, and walked away. Dana, the newest intern, decided to read the "
    "manual during her lunch break. She discovered that the paper tray was installed "
    "backwards and that a small plastic tab had snapped off long ago. She ordered the "
    "part for eleven dollars, fixed the tray, and taped a note with instructions beside "
    "the machine. Nobody said anything for a week. Then the manager noticed that the "
    "complaints had stopped, asked who had solved it, and put Dana in charge of the "
    "equipment budget for the whole floor.",
    "Grandpa Tomas insisted on planting tomatoes in the tiny yard behind the townhouse, "
    "even though everyone told him the soil was too poor and the yard too dark. He "
    "mixed coffee grounds and eggshells into the dirt, built a trellis from old curtain "
    "rods, and moved the pots three times a day to follow the light. His grandchildren "
    "teased him about the daily ritual. By July the plants were taller than the fence, "
    "and by August the family had more tomatoes than they could eat. The children began "
    "carrying baskets to the neighbors, and the neighbors began asking Tomas for advice.",
]


# Places that make 25,000 proverbs out of the 2,500 images, for large batches.
PLACES = [
    "beyond the salt marsh",
    "under a copper sky",
    "past the tollgate",
    "near the lighthouse",
    "by the millpond",
    "after the monsoon",
    "before the thaw",
    "across the tundra",
    "beside the quarry",
    "along the causeway",
]


def proverb_texts(count: int) -> list[str]:
    """`count` distinct proverb-like texts (at most 25,000): the 2,500 images first, then
    the same images set in a place."""
    combos = itertools.product(SUBJECTS, VERBS, OBJECTS)
    texts = [f"{subject} {verb} {obj}" for subject, verb, obj in combos]
    texts += [f"{text} {place}" for place in PLACES for text in texts]
    if count > len(texts):
        raise ValueError(f"At most {len(texts):,} proverbs can be made.")
    return texts[:count]


class PassingStories(dict):
    """For each proverb asked, the stories that pass the default write rules (the server's
    check, annotation.text.check_overlap), checked on first use: a batch of 25,000 items
    is checked only for the proverbs the benchmark is served."""

    def __missing__(self, proverb: str) -> list[str]:
        from annotation.text import OverlapRules, check_overlap

        rules = OverlapRules()
        passing = [story for story in STORIES if check_overlap(proverb, story, rules)["ok"]]
        if not passing:
            raise LookupError(f"No story passes the write rules for {proverb!r}.")
        self[proverb] = passing
        return passing
