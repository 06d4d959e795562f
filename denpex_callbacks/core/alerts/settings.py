"""Where alerts go and when: config options first, then the environment, then defaults.

A cluster job script turns alerts on without touching code::

    export DENPEX_ALERT_WEBHOOK=https://hooks.slack.com/services/...   # never printed
    export DENPEX_ALERT_LEVEL=warning        # default: error
    export DENPEX_ALERT_WANDB=0              # no wandb.alert (default: on when a run is active)
    export DENPEX_ALERT_TIMEOUT=10           # seconds per webhook request (default: 5)
    export DENPEX_RUN_NAME=llama-7b-sweep-3  # the run name alerts carry (see payload.run_name)

A bad environment value never stops a run: it is logged once (without the URL) and the
default is used. A bad config value raises ValueError when the config is built, before
training starts.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from denpex_callbacks.core.severity import Severity

ENV_WEBHOOK = "DENPEX_ALERT_WEBHOOK"
ENV_LEVEL = "DENPEX_ALERT_LEVEL"
ENV_WANDB = "DENPEX_ALERT_WANDB"
ENV_TIMEOUT = "DENPEX_ALERT_TIMEOUT"
ALERT_LEVELS = ("warning", "error")
DEFAULT_TIMEOUT_S = 5.0
_OFF = frozenset({"0", "false", "no", "off"})
_ON = frozenset({"1", "true", "yes", "on"})


def is_webhook_url(url: str) -> bool:
    """True for an absolute http(s) URL with a host.

    Example:
        >>> is_webhook_url("https://hooks.example.com/T0/B0/x"), is_webhook_url("hooks/x")
        (True, False)
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def check_alert_options(webhook: str | None, level: str | None, timeout_s: float | None) -> None:
    """Validate the ``alert_*`` config options (messages never quote the URL).

    Raises:
        ValueError: On a webhook that is not an http(s) URL, an unknown level, a timeout <= 0.

    Example:
        >>> check_alert_options("https://example.com/hook", "warning", 2.0)
        >>> check_alert_options("example.com/hook", None, None)
        Traceback (most recent call last):
        ValueError: alert_webhook must be an http:// or https:// URL (value not shown)
    """
    if webhook is not None and not is_webhook_url(webhook):
        raise ValueError("alert_webhook must be an http:// or https:// URL (value not shown)")
    if level is not None and level not in ALERT_LEVELS:
        raise ValueError(f"alert_level must be 'warning' or 'error', not {level!r}")
    if timeout_s is not None and not timeout_s > 0:
        raise ValueError(f"alert_timeout_s must be > 0, not {timeout_s!r}")


@dataclass(frozen=True)
class AlertSettings:
    """Resolved alert options.

    Attributes:
        webhook: The URL to POST to (None: no webhook). Left out of the repr.
        level: Lowest severity alerted.
        wandb: Raise ``wandb.alert`` when a wandb run is active.
        timeout_s: Seconds one webhook request may take (connect, send, each read).

    Example:
        >>> AlertSettings(webhook="https://example.com/secret-token")
        AlertSettings(webhook=<set>, level='error', wandb=True, timeout_s=5.0)
    """

    webhook: str | None = field(default=None, repr=False)
    level: Severity = Severity.ERROR
    wandb: bool = True
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __repr__(self) -> str:
        hook = "<set>" if self.webhook else "None"
        return (f"AlertSettings(webhook={hook}, level={self.level.value!r}, wandb={self.wandb}, "
                f"timeout_s={self.timeout_s})")

    @property
    def enabled(self) -> bool:
        """Anything to send to: a webhook, or wandb alerts allowed."""
        return self.webhook is not None or self.wandb


def alert_settings(
    config: Any,
    environ: Mapping[str, str] | None = None,
    logger: logging.Logger | None = None,
) -> AlertSettings:
    """Resolve a MonitorConfig's ``alert_*`` options against the environment.

    Args:
        config: A MonitorConfig (its ``alert_*`` attributes; None means "not set").
        environ: The environment (default ``os.environ``).
        logger: Where a bad environment value is reported (default ``denpex_callbacks``).

    Example:
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> env = {"DENPEX_ALERT_WEBHOOK": "https://example.com/h", "DENPEX_ALERT_LEVEL": "warning"}
        >>> alert_settings(MonitorConfig(alert_level="error"), env)
        AlertSettings(webhook=<set>, level='error', wandb=True, timeout_s=5.0)
    """
    env = os.environ if environ is None else environ
    log = logger or logging.getLogger("denpex_callbacks")
    webhook = config.alert_webhook
    if webhook is None and (raw := env.get(ENV_WEBHOOK, "").strip()):
        if is_webhook_url(raw):
            webhook = raw
        else:
            log.warning("denpex: %s is not an http:// or https:// URL (value not shown); "
                        "webhook alerts are off", ENV_WEBHOOK)
    level = config.alert_level or _env_choice(env, ENV_LEVEL, ALERT_LEVELS, log) or "error"
    wandb = config.alert_wandb
    if wandb is None:
        wandb = _env_flag(env, ENV_WANDB, log)
    timeout = config.alert_timeout_s or _env_timeout(env, log) or DEFAULT_TIMEOUT_S
    return AlertSettings(webhook, Severity(level), wandb, float(timeout))


def _env_choice(
    env: Mapping[str, str], name: str, choices: tuple[str, ...], log: logging.Logger
) -> str | None:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return None
    if raw in choices:
        return raw
    log.warning("denpex: %s=%r is not one of %s; using the default", name, raw,
                ", ".join(choices))
    return None


def _env_flag(env: Mapping[str, str], name: str, log: logging.Logger) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in _OFF:
        return False
    if raw and raw not in _ON:
        log.warning("denpex: %s=%r is not 0/1; wandb alerts stay on", name, raw)
    return True


def _env_timeout(env: Mapping[str, str], log: logging.Logger) -> float | None:
    raw = env.get(ENV_TIMEOUT, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value > 0:
        return value
    log.warning("denpex: %s=%r is not a positive number of seconds; using %gs", ENV_TIMEOUT,
                raw, DEFAULT_TIMEOUT_S)
    return None
