"""Model-in-the-loop writing rounds (Dynabench, ANLI): a write batch's round and opponent, the
page's "does the model find the proverb?" checks, each story's outcome, validation and
bonus, and the rounds' figures. annotation never imports modeling: the model side is an
`OpponentBackend` that modeling registers from its ready().
"""
