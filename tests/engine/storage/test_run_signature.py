"""core/engine/storage/run_signature.py: a stored run's HMAC over its canonical bytes, by a secret only the app and its
workers hold."""

import os

import pytest

from core.engine.storage.run_signature import (
    KEY_FILE,
    SECRET_VARIABLE,
    check_signature,
    local_secret,
    secret_from,
    signature,
)
from core.engine.storage.stored_run import UnusableRun

SECRET = b"a-secret-of-enough-length"
RUN = ("code", '{"a":1}', '{"rows":[]}', {"vit/0": b"w0", "cnn/0": b"w1"})


def test_a_run_s_signature_checks_and_any_change_of_its_bytes_breaks_it():
    signed = signature(SECRET, *RUN)
    check_signature(SECRET, *RUN, signed)
    fingerprint, config, result, weights = RUN
    for changed in (("other", config, result, weights), (fingerprint, '{"a":2}', result, weights),
                    (fingerprint, config, '{"rows":[1]}', weights), (fingerprint, config, result, {**weights, "vit/0": b"x"}),
                    (fingerprint, config, result, {"vit/0": b"w0"})):
        with pytest.raises(UnusableRun, match="does not match"):
            check_signature(SECRET, *changed, signed)
    with pytest.raises(UnusableRun, match="does not match"):
        check_signature(b"another-secret-entirely", *RUN, signed)
    with pytest.raises(UnusableRun, match="not signed"):
        check_signature(SECRET, *RUN, None)


def test_parts_are_length_prefixed_so_bytes_cannot_move_between_them():
    assert signature(SECRET, "ab", "c", "", {}) != signature(SECRET, "a", "bc", "", {})


def test_the_secret_setting_is_required_long_and_never_echoed(monkeypatch):
    with pytest.raises(ValueError, match=f"{SECRET_VARIABLE} is not set"):
        secret_from(None)
    with pytest.raises(ValueError, match="at least 16") as refused:
        secret_from("short-one")
    assert "short-one" not in str(refused.value)


def test_a_server_alone_makes_its_secret_once_and_keeps_it_for_its_user(tmp_path, monkeypatch):
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    first = local_secret(tmp_path)
    assert local_secret(tmp_path) == first and len(first) >= 32
    assert os.stat(tmp_path / KEY_FILE).st_mode & 0o077 == 0
    monkeypatch.setenv(SECRET_VARIABLE, "set-for-every-replica-0123")
    assert local_secret(tmp_path) == b"set-for-every-replica-0123"  # the setting wins where it is set
    monkeypatch.delenv(SECRET_VARIABLE)
    (tmp_path / KEY_FILE).write_text("x")
    with pytest.raises(OSError, match="does not hold a secret"):
        local_secret(tmp_path)
