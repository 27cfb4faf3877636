"""The one text every hash of a run is taken of: JSON with sorted keys and no spaces, UTF-8 as it is."""

from __future__ import annotations

import hashlib
import json


def canonical_json(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def is_sha256_hex(value) -> bool:
    """Whether `value` is a sha-256 as the hashes here are written: 64 lowercase hex digits."""
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
