"""What every settings module reads from: the environment (django-environ), with .env beside
the checkout, and the folders the project keeps its files in."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
VAR_DIR = Path(env.str("PARABLE_VAR_DIR", default=str(BASE_DIR / "var")))
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
