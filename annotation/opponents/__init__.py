"""Model-in-the-loop writing rounds (Dynabench, ANLI): a write batch's round and opponent
model, the page's "does the model find the proverb?" checks, each story's outcome, its
validation by a choose batch, the fooled-model bonus, and the rounds' figures.

annotation never imports modeling: the model side (which finished runs can oppose, and
ranking a study's proverbs for story texts) is an `OpponentBackend` that modeling
registers from its ready() (`backend.opponent_backend_register`).
"""
