"""The one text every hash of a run is taken of: JSON with sorted keys and no spaces, UTF-8 as it is."""

from __future__ import annotations

import hashlib
import json


def canonical_json(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
