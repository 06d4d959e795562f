"""Masks credentials (tokens, keys, URL passwords) before text is printed or sent anywhere."""

from __future__ import annotations

import re

_PATTERNS = (
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), "hf_***"),  # Hugging Face tokens
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "AKIA***"),  # AWS access key ids
    (re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*['\"]?)[A-Za-z0-9/+=]{40}"), r"\1***"),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*"), r"\1***"),  # bearer tokens
    (re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(?!bearer)[^\s'\"]{8,}"), r"\1***"),
    (re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)"), r"\1***\2"),  # URL pw
    (re.compile(r"(?i)\b((?:api[_-]?key|token|password|passwd|secret)\s*[=:]\s*['\"]?)"
                r"(?!\*\*\*)[^\s'\",}]{6,}"), r"\1***"),
)


def mask(text: str) -> str:
    """Replace tokens, keys and URL passwords by ``***``.

    Example:
        >>> mask("push with hf_abcdefghijklmnopqrstuvwxyz12 to https://bob:hunter22@host/x")
        'push with hf_*** to https://bob:***@host/x'
        >>> mask("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc")
        'Authorization: Bearer ***'
    """
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
