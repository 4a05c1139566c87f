"""Finished runs in Redis, shared by every replica and worker: the interface of ``archive.RunArchive``.

Each run is one hash, its result JSON and one field per model's weights (``torch.save`` bytes of a state dict:
never a pickle). Whoever else writes the Redis, a read is checked in full (``stored_run``): a run that is not
usable is deleted (``store.ResultStore`` logs it and reads a miss), and an expiry is renewed only for a run
that passed. Redis's
``maxmemory`` policy bounds the whole (README, *Hosting for a class*).
"""

from __future__ import annotations

import json

from redis import Redis

from core.engine.queue_redis import setting_id
from core.engine.run_config import GeneralizationConfig
from core.engine.run_result import RunResult
from core.engine.stored_run import UnusableRun, decode_run, max_result_bytes

RESULT_SECONDS = 7 * 24 * 3600  # a finished run stays this long after it was last read (and Redis's maxmemory)
WEIGHTS = b"w:"  # the prefix of a weights field: "w:model/seed"


class RedisArchive:
    def __init__(self, redis: Redis, fingerprint: str, ttl: int = RESULT_SECONDS):
        self.redis, self.fingerprint, self.ttl = redis, fingerprint, ttl

    def _key(self, cfg: GeneralizationConfig) -> str:
        return f"vitlab:run:{setting_id(cfg, self.fingerprint)}"

    def get(self, cfg: GeneralizationConfig) -> RunResult | None:
        """The shared run of ``cfg``, checked in full, or None; one that is not usable is deleted and
        ``UnusableRun`` raised (``store.ResultStore`` logs it and reads a miss)."""
        key = self._key(cfg)
        try:
            size = self.redis.hstrlen(key, "result")  # measured before it is read: a huge run never reaches memory
            if not size:
                if self.redis.exists(key):
                    raise UnusableRun("it has no result")
                return None
            if size > max_result_bytes(cfg):
                raise UnusableRun(f"its result is {size} bytes, over the {max_result_bytes(cfg)} a run of this "
                                  "setting can take")
            fields = self.redis.hgetall(key)
            weights = {}
            for name, data in fields.items():
                if name.startswith(WEIGHTS):
                    try:
                        weights[name[len(WEIGHTS):].decode()] = bytes(data)
                    except UnicodeDecodeError:
                        raise UnusableRun("a weights field's name is not text") from None
                elif name != b"result":
                    raise UnusableRun(f"it has a field {name[:40]!r} no run has")
            result = decode_run(cfg, fields.get(b"result", b""), weights)
        except UnusableRun:
            self.redis.delete(key)
            raise
        self.redis.expire(key, self.ttl)
        return result

    def put(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        if not result.complete:
            return
        fields = {"result": json.dumps(result.to_json(), separators=(",", ":"), allow_nan=False),
                  **{WEIGHTS.decode() + name: data for name, data in result.weights.items()}}
        key = self._key(cfg)
        with self.redis.pipeline(transaction=True) as p:  # all of it or nothing
            p.delete(key).hset(key, mapping=fields).expire(key, self.ttl).execute()
