"""Whether a URL points at this machine (no Django here: the stand-in uses it too). Prolific
requires https:// of the addresses it calls; a loopback http:// address is taken for trials
against the local stand-in, which runs on this machine."""

import ipaddress
from urllib.parse import urlsplit


def loopback_url(url: str) -> bool:
    """Whether the URL's host is this machine (localhost or a loopback address)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
