"""Prolific's rule on time: the least maximum allowed time for an estimated completion time
(no Django here: the stand-in applies the same rule)."""

import math


def maximum_allowed_floor(estimated_minutes: float) -> int:
    """Prolific's least maximum allowed time for an estimate of X minutes: "Minimum Maximum
    Allowed Time = 2 + X + (2*sqrt(X))", in whole minutes, rounded up
    (https://participant-help.prolific.co/hc/en-gb/articles/360022342534-Timed-Out-Submissions)."""
    return math.ceil(2 + estimated_minutes + 2 * math.sqrt(estimated_minutes))
