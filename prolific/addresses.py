"""Whether a URL's host can be reached from elsewhere (no Django here: the stand-in uses it
too). Participants reach Parable from their own browsers, so an address on this machine
or a private network reaches none of them; it is taken only in trials with the stand-in."""

import ipaddress
import socket
from urllib.parse import urlsplit


def _addresses(url: str) -> list:
    """The addresses the URL's host resolves to; OSError when it names none."""
    host = urlsplit(url).hostname
    if not host:
        raise OSError("no host")
    found = {info[4][0].split("%")[0] for info in socket.getaddrinfo(host, None)}
    return [ipaddress.ip_address(address) for address in sorted(found)]


def unreachable_reason(url: str) -> str:
    """Why browsers elsewhere on the internet cannot reach the URL's host, by the addresses
    it resolves to ("" when every one is public)."""
    try:
        found = _addresses(url)
    except OSError:
        return f"names a host, {urlsplit(url).hostname or 'none'}, with no address"
    for ip in found:
        if not ip.is_global:
            kind = "loopback" if ip.is_loopback else "link-local" if ip.is_link_local else "private"
            return f"is a {kind} address ({ip}), which no one outside reaches"
    return ""


def local_url(url: str) -> bool:
    """Whether the URL's host resolves only to this machine's or private networks' addresses."""
    try:
        return not any(ip.is_global for ip in _addresses(url))
    except OSError:
        return False
