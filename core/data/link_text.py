"""A learner's setting as short text for a link: a few bytes behind a version tag, written in base64url (the
characters an address carries as they are), with a CRC-32 so that text edited by hand or cut short is caught before
anything reads it.

    <tag>.<base64url of: payload, then the CRC-32 of tag and payload (4 bytes, big-endian)>

The tag says what the text is and in which version (``c1``: a learner's classes, ``s1``: a split), so a link written
by a later version is refused, not misread. Text from a link is hostile until checked: it is measured before it is
decoded, and every failure is one ``ValueError`` sentence saying what was wrong, never echoing the text itself.
"""

from __future__ import annotations

import base64
import binascii
import string
import zlib

import numpy as np

LINK_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")  # base64url, without its "=" padding
CHECK_BYTES = 4  # the CRC-32


def sealed(tag: str, payload: bytes) -> str:
    """``payload`` as link text under ``tag``."""
    check = zlib.crc32(tag.encode() + payload).to_bytes(CHECK_BYTES, "big")
    return f"{tag}." + base64.urlsafe_b64encode(payload + check).decode().rstrip("=")


def unsealed(tag: str, text: object, what: str, limit: int) -> bytes:
    """The payload ``sealed(tag, ...)`` wrote, or a ValueError saying why ``text`` is not one; ``what`` names the text
    in the sentence ("this link's classes"); ``limit``: the most characters such a text may have."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be text, got {type(text).__name__}")
    if len(text) > limit:
        raise ValueError(f"{what} is {len(text):,} characters long, more than the {limit:,} a link of the lab holds")
    head, dot, packed = text.partition(".")
    if not dot or head != tag:
        raise ValueError(f"{what} does not start with {tag}.: it was edited by hand, or made by another version of "
                         "the lab")
    if not set(packed) <= LINK_ALPHABET:
        raise ValueError(f"{what} holds characters a link of the lab never has: it was edited by hand")
    try:
        raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
    except (binascii.Error, ValueError):  # a length no base64 text has: a character lost or added
        raw = b""
    payload, check = raw[:-CHECK_BYTES], raw[-CHECK_BYTES:]
    if (len(raw) < CHECK_BYTES or zlib.crc32(tag.encode() + payload).to_bytes(CHECK_BYTES, "big") != check
            or sealed(tag, payload) != text):  # the last: spare bits of the last character changed by hand
        raise ValueError(f"{what} fails its check: the link was cut short or edited by hand; copy it again")
    return payload


class LinkReader:
    """A payload read front to back; reading past its end, or leaving bytes unread, is a malformed text (one that
    passed its check, so made on purpose: said as such)."""

    def __init__(self, payload: bytes, what: str):
        self.data, self.at, self.what = payload, 0, what

    def malformed(self, why: str) -> ValueError:
        return ValueError(f"{self.what} passed its check but is malformed ({why}): it was not made by the lab")

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise self.malformed("it ends too early")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def byte(self) -> int:
        return self.take(1)[0]

    def bits(self, n: int) -> np.ndarray:
        """``n`` bits packed as ``packed_bits`` packs them (the spare bits of the last byte must be 0)."""
        raw = self.take((n + 7) // 8)
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8))
        if bits[n:].any():
            raise self.malformed("spare bits are set")
        return bits[:n].astype(bool)

    def finish(self) -> None:
        if self.at != len(self.data):
            raise self.malformed(f"{len(self.data) - self.at} bytes left over")


def packed_bits(bits: np.ndarray) -> bytes:
    """Booleans, first bit the highest of its byte, the last byte filled with 0."""
    return np.packbits(np.asarray(bits, dtype=bool).ravel()).tobytes()
