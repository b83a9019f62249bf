"""Crowd providers by key; Prolific and MTurk register theirs from their apps."""

from crowd.providers.base import (
    ONCE,
    RECONCILE,
    RETRY,
    CallNotSent,
    CrowdProvider,
    ProviderError,
)
from crowd.providers.local import LocalProvider

_providers: dict[str, CrowdProvider] = {"local": LocalProvider()}


def register(provider: CrowdProvider) -> CrowdProvider:
    _providers[provider.key] = provider
    return provider


def get_provider(key: str) -> CrowdProvider:
    try:
        return _providers[key]
    except KeyError:
        raise ProviderError(f"The {key!r} provider is not configured.") from None


def batch_currency(batch) -> str:
    """The code of the currency a batch's amounts are in, from its provider ("": unknown)."""
    return get_provider(batch.provider).currency(batch=batch)


__all__ = [
    "ONCE",
    "RECONCILE",
    "RETRY",
    "CallNotSent",
    "CrowdProvider",
    "ProviderError",
    "batch_currency",
    "get_provider",
    "register",
]
