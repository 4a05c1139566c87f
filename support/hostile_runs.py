"""Stored runs as a hostile or broken writer leaves them: each a (result JSON, weights) pair that a shared
archive (the SQLite file, a Redis) may hand back, for the tests that show no page and no server is hurt."""

from __future__ import annotations

import io
import json
import pickle

import torch

from core.engine.results.run_result import RunResult


class Boom:
    """A pickle that would run code if it were ever unpickled without ``weights_only``."""

    def __reduce__(self):
        return (print, ("code ran from a stored run",))


def _json(result: RunResult, change) -> str:
    plain = result.to_json()
    change(plain)
    return json.dumps(plain)


def _set(path: str, value):
    def change(plain: dict) -> None:
        node = plain
        *parts, last = path.split(".")
        for p in parts:
            node = node[int(p)] if p.isdigit() else node[p]
        node[int(last) if last.isdigit() else last] = value
    return change


def hostile_rows(result: RunResult) -> dict[str, tuple[str, dict[str, bytes]]]:
    """What each case stores: the result's JSON text and its weights, from a real complete ``result``."""
    good = json.dumps(result.to_json())
    weights = dict(result.weights)
    first = next(iter(weights))
    pickled = io.BytesIO()
    torch.save({"evil": Boom()}, pickled)
    wrong_shape = io.BytesIO()
    torch.save({k: torch.zeros(3) for k in torch.load(io.BytesIO(weights[first]), weights_only=True)}, wrong_shape)
    nan = io.BytesIO()
    state = torch.load(io.BytesIO(weights[first]), weights_only=True)
    torch.save({k: torch.full_like(v, float("nan")) if v.is_floating_point() else v for k, v in state.items()}, nan)
    return {
        "test_acc a string": (_json(result, _set("rows.0.test_acc", "hacked")), weights),
        "test_acc null": (_json(result, _set("rows.0.test_acc", None)), weights),
        "test_acc 1e308": (_json(result, _set("rows.0.test_acc", 1e308)), weights),
        "test_acc NaN": (good.replace('"test_acc": ' + json.dumps(result.rows[0].test_acc), '"test_acc": NaN', 1),
                         weights),
        "a seed as a string": (_json(result, _set("rows.0.seed", "0")), weights),
        "a seed not in the setting": (_json(result, _set("rows.0.seed", 99)), weights),
        "seconds negative": (_json(result, _set("seconds", -1)), weights),
        "a prediction's probability 2": (_json(result, _set("test_predictions.0.p_circle", 2.0)), weights),
        "a map cell off the canvas": (_json(result, _set("position_map.0.cx", 999)), weights),
        "an unknown field": (_json(result, _set("rows.0.evil", "x")), weights),
        "another setting": (_json(result, _set("config.train.epochs", 999)), weights),
        "too many predictions": (_json(result, lambda p: p["test_predictions"].extend(p["test_predictions"] * 3)),
                                 weights),
        "truncated": (good[:len(good) // 2], weights),
        "not JSON": ("\x00\x01 not json", weights),
        "a list, not a result": ("[1, 2, 3]", weights),
        "huge": (good[:-1] + ', "pad": "' + "x" * (60 * 2**20) + '"}', weights),
        "pickled weights": (good, {**weights, first: pickled.getvalue()}),
        "pickle bytes as weights": (good, {**weights, first: pickle.dumps(Boom())}),
        "weights of another shape": (good, {**weights, first: wrong_shape.getvalue()}),
        "weights holding NaN": (good, {**weights, first: nan.getvalue()}),
        "weights for a model not in the setting": (good, {**weights, "vit/0": weights[first]}),
        "weights that are not bytes of torch": (good, {**weights, first: b"garbage" * 10}),
    }
