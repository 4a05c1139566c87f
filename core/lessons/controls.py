"""A lesson's controls, each declared once: the form's widget, its URL parameter, the config field it sets
and the command line's flag all come from one ``Control``.

The page draws the widget from it (``ui.form_controls``), under ``key``, which is also the URL's query
parameter; the config is built from the form's values by ``config_from``; the command line's option is
``flag`` and sets the same field. Its default is the lesson's value, so a link names only what differs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.engine.setting.run_config import GeneralizationConfig

Widget = Literal["slider", "select_slider", "selectbox", "radio", "multiselect"]


def _same(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _shown(value: Any) -> Any:
    return value


@dataclass(frozen=True, eq=False)
class Control:
    key: str  # the session-state key and the URL's query parameter
    field: str  # the config field it sets, as ``with_value`` names it ("data.n_train", "models")
    label: str
    widget: Widget
    options: tuple = ()  # the choices (every widget but the slider)
    bounds: tuple = ()  # the slider's (lo, hi) or (lo, hi, step)
    help: str | None = None
    format: Callable[[Any], str] | None = None  # how an option is shown
    to_config: Callable[[Any], Any] = _same  # the form's value -> the config's
    from_config: Callable[[Any], Any] = _shown  # the config's value -> the form's
    cli_nargs: int | str | None = None  # 2 for a range, "+" for a list
    cli_to_config: Callable[[Any], Any] | None = None  # the flag's value -> the config's (default: to_config)
    cli_help: str | None = None
    flag_name: str | None = None  # default: --key with "-" for "_"
    extra: dict = field(default_factory=dict)  # widget options that do not change the value (horizontal=True)

    @property
    def flag(self) -> str:
        return self.flag_name or "--" + self.key.replace("_", "-")

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    def value(self, cfg: GeneralizationConfig) -> Any:
        """The form's value for ``cfg``."""
        part = cfg
        for name in self.field.split("."):
            part = getattr(part, name)
        return self.from_config(part)

    def config_value(self, value: Any, from_cli: bool = False) -> Any:
        """The config's value for the form's ``value`` (or the command line's, ``from_cli``)."""
        return ((self.cli_to_config or self.to_config) if from_cli else self.to_config)(value)


def _with_values(base: GeneralizationConfig, values: dict[Control, Any], from_cli: bool) -> GeneralizationConfig:
    """``base`` with every control's value set at once, then validated once (one at a time, a range moved
    past another would be refused halfway)."""
    d = base.to_json()
    for c, value in values.items():
        *parts, name = c.field.split(".")
        part = d
        for p in parts:
            part = part[p]
        converted = c.config_value(value, from_cli)
        part[name] = list(converted) if isinstance(converted, tuple) else converted
    return GeneralizationConfig.from_json(d)


def config_from(base: GeneralizationConfig, controls: Sequence[Control], values: dict) -> GeneralizationConfig:
    """``base`` with each control's value from ``values`` (by key; a missing one keeps ``base``'s), as one
    validated config: a bad combination raises ``ValueError`` naming it."""
    return _with_values(base, {c: values[c.key] for c in controls if c.key in values}, from_cli=False)


def add_options(parser: argparse.ArgumentParser, controls: Sequence[Control]) -> None:
    """One command-line option per control, typed from the lesson's value; a flag declared twice is refused,
    naming it (argparse's own "conflicting option string" would break every subcommand at once)."""
    flags = [c.flag for c in controls]
    twice = sorted({f for f in flags if flags.count(f) > 1})
    if twice:
        raise ValueError(f"flags declared by more than one control: {twice}")
    for c in controls:
        sample = c.options[0] if c.options else c.bounds[0]
        kind = type(sample[0] if isinstance(sample, tuple) else sample)
        choices = list(c.options) if c.options and kind is str else None
        parser.add_argument(c.flag, dest=c.dest, type=kind, nargs=c.cli_nargs, choices=choices,
                            metavar=("LO", "HI") if c.cli_nargs == 2 else None, help=c.cli_help or c.label)


def config_from_args(base: GeneralizationConfig, controls: Sequence[Control], args: argparse.Namespace):
    """``base`` with every option given on the command line applied."""
    given = {c: v for c in controls if (v := getattr(args, c.dest, None)) is not None}
    return _with_values(base, given, from_cli=True)
