"""Finished runs in Redis, shared by every replica and worker: the interface of ``archive.RunArchive``.

Each run is one hash: its result JSON, its signature (``run_signature``: by the class's archive secret) and one
field per model's weights (``torch.save`` bytes of a state dict: never a pickle). Whoever else writes the
Redis, a read measures before it reads (the key's type, its number of fields, each field's length) and checks
in full what it read (the signature, then ``stored_run``): a run that is not usable is deleted
(``store.ResultStore`` logs it and reads a miss), and an expiry is renewed only for a run that passed. Redis's
``maxmemory`` policy bounds the whole (README, *Hosting for a class*).
"""

from __future__ import annotations

import json

from redis import Redis

from core.engine.queue.queue_redis import measured_read, setting_id
from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.setting.typed_json import plain
from core.engine.storage.archive import config_key
from core.engine.storage.run_signature import check_signature, signature
from core.engine.storage.stored_run import UnusableRun, decode_run, max_result_bytes, max_weights_bytes

RESULT_SECONDS = 7 * 24 * 3600  # a finished run stays this long after it was last read (and Redis's maxmemory)
WEIGHTS = b"w:"  # the prefix of a weights field: "w:model/seed"
SIGNATURE = b"sig"


class RedisArchive:
    def __init__(self, redis: Redis, fingerprint: str, secret: bytes, ttl: int = RESULT_SECONDS):
        self.redis, self.fingerprint, self.secret, self.ttl = redis, fingerprint, secret, ttl

    def _key(self, cfg: GeneralizationConfig) -> str:
        return f"vitlab:run:{setting_id(cfg, self.fingerprint)}"

    def get(self, cfg: GeneralizationConfig) -> RunResult | None:
        """The shared run of ``cfg``, signed and checked in full, or None; one that is not usable is deleted and
        ``UnusableRun`` raised (``store.ResultStore`` logs it and reads a miss)."""
        key = self._key(cfg)
        try:
            fields = self._read(key, cfg)
            if fields is None:
                return None
            text = fields.pop(b"result")
            signed = fields.pop(SIGNATURE)
            weights = {name[len(WEIGHTS):].decode(): bytes(data) for name, data in fields.items()}
            check_signature(self.secret, self.fingerprint, config_key(cfg), text, weights, signed)
            result = decode_run(cfg, text, weights)
        except UnusableRun:
            self.redis.delete(key)
            raise
        self.redis.expire(key, self.ttl)
        return result

    def _read(self, key: str, cfg: GeneralizationConfig) -> dict[bytes, bytes] | None:
        """Every field a run of ``cfg`` may have, read in one step that first measures each and counts the
        hash's fields (``queue_redis.measured_read``), or None where there is none."""
        bounds = {"result": max_result_bytes(cfg), SIGNATURE.decode(): 64}
        for seed, name in cfg.jobs:
            bounds[f"{WEIGHTS.decode()}{name}/{seed}"] = max_weights_bytes(cfg, f"{name}/{seed}")
        answer = measured_read(self.redis, key, bounds, len(bounds))
        if answer is None:
            return None
        what, values = answer
        if what != "ok":
            raise UnusableRun(f"it {plain(what, 120)}")
        fields = {name.encode(): v for name, v in zip(bounds, values, strict=True) if v is not None}
        if b"result" not in fields or SIGNATURE not in fields:
            raise UnusableRun("it has no result" if b"result" not in fields else "it is not signed")
        return fields

    def put(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        if not result.complete:
            return
        text = json.dumps(result.to_json(), separators=(",", ":"), allow_nan=False)
        fields = {"result": text, SIGNATURE.decode(): signature(self.secret, self.fingerprint, config_key(cfg), text,
                                                                result.weights),
                  **{WEIGHTS.decode() + name: data for name, data in result.weights.items()}}
        key = self._key(cfg)
        with self.redis.pipeline(transaction=True) as p:  # all of it or nothing
            p.delete(key).hset(key, mapping=fields).expire(key, self.ttl).execute()

