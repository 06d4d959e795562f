"""One webhook POST with a timeout and bounded retries, standard library only.

Failures become :class:`DeliveryError` whose reason never quotes the URL: urllib's own
messages can (``unknown url type: '...'``, ``nonnumeric port: '...'``), so only a status code,
an OS error text or an exception type name is kept.
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

TRIES = 3
RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
USER_AGENT = "denpex-callbacks-alerts/1"


class DeliveryError(Exception):
    """A webhook request failed.

    Attributes:
        reason: Why, without the URL (``HTTP 500``, ``timed out after 5s``, ...).
        retry: Whether trying again may help (timeouts, refused connections, 5xx, 429).
    """

    def __init__(self, reason: str, *, retry: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


def post_json(url: str, payload: Mapping[str, Any], timeout_s: float) -> int:
    """POST ``payload`` as JSON; returns the 2xx status.

    Raises:
        DeliveryError: On any failure (the reason never contains the URL).
    """
    body = json.dumps(payload, default=str).encode("utf-8")
    request = urllib.request.Request(
        url, data=body, method="POST",
        headers={"Content-Type": "application/json", "User-Agent": USER_AGENT},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            response.read(4096)  # a short answer ("ok"); never wait for an endless body
            return int(response.status)
    except urllib.error.HTTPError as exc:
        raise DeliveryError(f"HTTP {exc.code}", retry=exc.code in RETRY_STATUS) from None
    except urllib.error.URLError as exc:
        raise _from_os_error(exc.reason, timeout_s) from None
    except OSError as exc:  # TimeoutError while reading the answer, ConnectionResetError...
        raise _from_os_error(exc, timeout_s) from None
    except http.client.HTTPException as exc:  # e.g. RemoteDisconnected, InvalidURL
        retry = not isinstance(exc, http.client.InvalidURL)
        raise DeliveryError(type(exc).__name__, retry=retry) from None
    except ValueError:  # urllib's "unknown url type": quotes the URL, so say nothing of it
        raise DeliveryError("invalid URL", retry=False) from None


def send_with_retries(
    send: Callable[[], Any],
    *,
    tries: int = TRIES,
    backoff_s: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Call ``send`` until it succeeds, at most ``tries`` times, waiting ``backoff_s``,
    then twice that, ... between tries; a failure that retrying cannot help ends at once.

    Returns:
        The number of tries it took.

    Raises:
        DeliveryError: The last failure, its reason followed by the number of tries.

    Example:
        >>> answers = iter([DeliveryError("HTTP 503", retry=True), None])
        >>> def send():
        ...     if (a := next(answers)) is not None:
        ...         raise a
        >>> send_with_retries(send, sleep=lambda s: None)
        2
    """
    for attempt in range(1, tries + 1):
        try:
            send()
            return attempt
        except DeliveryError as exc:
            if not exc.retry or attempt == tries:
                tries_made = "1 try" if attempt == 1 else f"{attempt} tries"
                raise DeliveryError(f"{exc.reason} ({tries_made})", retry=False) from None
            sleep(backoff_s * 2 ** (attempt - 1))
    raise AssertionError("unreachable: tries >= 1")


def _from_os_error(reason: object, timeout_s: float) -> DeliveryError:
    if isinstance(reason, TimeoutError):
        return DeliveryError(f"timed out after {timeout_s:g}s", retry=True)
    if isinstance(reason, ssl.SSLError):  # its text can name the host: keep the code only
        return DeliveryError(f"TLS error {reason.reason or type(reason).__name__}", retry=False)
    if isinstance(reason, OSError) and reason.strerror:
        return DeliveryError(reason.strerror, retry=True)  # "Connection refused", DNS failures
    return DeliveryError(type(reason).__name__, retry=True)
