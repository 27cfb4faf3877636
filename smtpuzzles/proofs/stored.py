"""A proof as a run folder stores it: gzip-compressed, the same bytes for the same proof, and read
back no further than a cap."""

from __future__ import annotations

import gzip
import zlib

from smtpuzzles.proofs.budget import MAX_PROOF_BYTES
from smtpuzzles.proofs.prover import Proof
from smtpuzzles.trusted.dimacs import ProofError


def compress(proof: Proof | bytes) -> bytes:
    """The proof gzip-compressed, the same bytes for the same proof (no time stamp)."""
    data = proof.text if isinstance(proof, Proof) else proof
    return gzip.compress(data, compresslevel=6, mtime=0)


def read_proof_file(path, max_bytes: int = MAX_PROOF_BYTES) -> bytes:
    """A stored proof (gzip or plain), decompressed no further than `max_bytes`."""
    try:
        with open(path, "rb") as handle:
            magic = handle.read(2)
            handle.seek(0)
            reader = gzip.GzipFile(fileobj=handle) if magic == b"\x1f\x8b" else handle
            data = reader.read(max_bytes + 1)
    except FileNotFoundError:
        raise ProofError("proof file is missing", str(path)) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise ProofError(f"proof file is damaged ({exc})", str(path)) from None
    if len(data) > max_bytes:
        raise ProofError(f"proof is larger than the limit of {max_bytes:,} bytes", str(path))
    return data
