"""The crowd providers: Prolific (docs/providers.md) and Amazon Mechanical Turk."""

from config.settings.env import env

# Prolific (docs/providers.md). The API URL points at the local stand-in for tests and trials.
PROLIFIC_API_URL = env.str("PROLIFIC_API_URL", default="https://api.prolific.com/api/v1/")
PROLIFIC_API_TOKEN = env.str("PROLIFIC_API_TOKEN", default="")
PROLIFIC_WORKSPACE_ID = env.str("PROLIFIC_WORKSPACE_ID", default="")
# The project (in PROLIFIC_WORKSPACE_ID) studies are created in.
PROLIFIC_PROJECT_ID = env.str("PROLIFIC_PROJECT_ID", default="")
PROLIFIC_WEBHOOK_SECRET = env.str("PROLIFIC_WEBHOOK_SECRET", default="")
PROLIFIC_COMPLETION_URL = env.str(
    "PROLIFIC_COMPLETION_URL", default="https://app.prolific.com/submissions/complete"
)
PROLIFIC_TIMEOUT_SECONDS = env.float("PROLIFIC_TIMEOUT_SECONDS", default=20.0)
PROLIFIC_RETRIES = env.int("PROLIFIC_RETRIES", default=4)
PROLIFIC_BACKOFF_SECONDS = env.float("PROLIFIC_BACKOFF_SECONDS", default=1.0)
PROLIFIC_REJECTION_CATEGORY = env.str("PROLIFIC_REJECTION_CATEGORY", default="LOW_EFFORT")
PROLIFIC_SYNC_SECONDS = env.int("PROLIFIC_SYNC_SECONDS", default=120)
# A bonus pay call with no answer is sent again only if Prolific still lists no such
# payment on the submission this long after the call (its payments land within minutes).
PROLIFIC_BONUS_SETTLE_SECONDS = env.int("PROLIFIC_BONUS_SETTLE_SECONDS", default=3600)
# Webhook deliveries signed more than this far from our clock are refused (and logged).
PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS = env.int("PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS", default=3600)
# The studies list warns when no verified webhook delivery came for this long.
PROLIFIC_WEBHOOK_SILENCE_HOURS = env.int("PROLIFIC_WEBHOOK_SILENCE_HOURS", default=24)
# A trial with the stand-in: a local PARABLE_PUBLIC_URL is taken while PROLIFIC_API_URL is local.
PROLIFIC_LOCAL_TRIAL = env.bool("PROLIFIC_LOCAL_TRIAL", default=False)

# Amazon Mechanical Turk (closed by AWS on 30 September 2026): the URL of a compatible
# endpoint such as the stand-in ("sandbox" and "production" name AWS's closed ones).
# Empty: the MTurk provider is off; importing past results still works.
MTURK_ENDPOINT = env.str("MTURK_ENDPOINT", default="")
MTURK_REGION = env.str("MTURK_REGION", default="us-east-1")
MTURK_MAX_ATTEMPTS = env.int("MTURK_MAX_ATTEMPTS", default=6)
MTURK_FRAME_HEIGHT = env.int("MTURK_FRAME_HEIGHT", default=900)
MTURK_SYNC_SECONDS = env.int("MTURK_SYNC_SECONDS", default=300)
