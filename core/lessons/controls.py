"""A lesson's controls, each declared once: the form's widget, its URL parameter, the config field it sets
and the command line's flag all come from one ``Control``.

The page draws the widget from it (``ui.form_controls``), under ``key``, which is also the URL's query
parameter; the config is built from the form's values by ``config_from``; the command line's option is
``flag`` and sets the same field. Its default is the lesson's value, so a link names only what differs.

Any frozen config works: lesson 3-5's ``GeneralizationConfig`` (fields named by path, "data.n_train") and a
flat dataclass such as lesson 1's ``PatchifyConfig``. A control whose choices depend on another's value (lesson
1's patch size divides the image size) declares ``choices`` and ``depends_on``; its widget's key holds that
value (``patch_32``), so a new image size starts from a choice that exists.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any, Literal

# "text": a value the page's own editor sets (a drawing's or a split's link text), linked but not drawn in the form
Widget = Literal["slider", "select_slider", "selectbox", "radio", "multiselect", "toggle", "number_input", "text"]


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
    options: tuple = ()  # the choices (the choosing widgets)
    bounds: tuple = ()  # the slider's or number input's (lo, hi) or (lo, hi, step)
    help: str | None = None
    format: Callable[[Any], str] | None = None  # how an option is shown
    to_config: Callable[[Any], Any] = _same  # the form's value -> the config's
    from_config: Callable[[Any], Any] = _shown  # the config's value -> the form's
    cli_nargs: int | str | None = None  # 2 for a range, "+" for a list
    cli_to_config: Callable[[Any], Any] | None = None  # the flag's value -> the config's (default: to_config)
    cli_help: str | None = None
    flag_name: str | None = None  # default: --key with "-" for "_"
    extra: dict = field(default_factory=dict)  # widget options that do not change the value (horizontal=True)
    choices: Callable[[Any], tuple] | None = None  # the choices, from the value of the control ``depends_on``
    depends_on: str | None = None  # that control's key
    cli_type: type | None = None  # the flag's type where no option or bound shows it (choices that depend)

    @property
    def flag(self) -> str:
        return self.flag_name or "--" + self.key.replace("_", "-")

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    def widget_key(self, values: dict) -> str:
        """The widget's key: ``key``, and for choices that depend on another control, that control's value too."""
        return f"{self.key}_{values[self.depends_on]}" if self.depends_on else self.key

    def options_for(self, values: dict) -> tuple:
        """The choices, given the values of the controls drawn before it (by key)."""
        return tuple(self.choices(values[self.depends_on])) if self.choices else self.options

    def value(self, cfg: Any) -> Any:
        """The form's value for ``cfg``."""
        part = cfg
        for name in self.field.split("."):
            part = getattr(part, name)
        return self.from_config(part)

    def config_value(self, value: Any, from_cli: bool = False) -> Any:
        """The config's value for the form's ``value`` (or the command line's, ``from_cli``)."""
        return ((self.cli_to_config or self.to_config) if from_cli else self.to_config)(value)


def _with_values(base: Any, values: dict[Control, Any], from_cli: bool) -> Any:
    """``base`` with every control's value set at once, then validated once (one at a time, a range moved
    past another would be refused halfway). A config with ``to_json``/``from_json`` goes through them (nested
    fields by path); a flat frozen dataclass through its own fields."""
    nested = hasattr(base, "to_json")
    d = base.to_json() if nested else {f.name: getattr(base, f.name) for f in dataclass_fields(base)}
    for c, value in values.items():
        *parts, name = c.field.split(".")
        part = d
        for p in parts:
            part = part[p]
        converted = c.config_value(value, from_cli)
        part[name] = list(converted) if isinstance(converted, tuple) and nested else converted
    return type(base).from_json(d) if nested else type(base)(**d)


def config_from(base: Any, controls: Sequence[Control], values: dict) -> Any:
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
        if c.widget == "toggle":  # a switch: given or not (None: the lesson's value stays)
            parser.add_argument(c.flag, dest=c.dest, action="store_true", default=None, help=c.cli_help or c.label)
            continue
        if c.cli_type is not None:
            kind = c.cli_type
        else:
            sample = c.options[0] if c.options else c.bounds[0]
            kind = type(sample[0] if isinstance(sample, tuple) else sample)
        choices = list(c.options) if c.options and kind is str else None
        parser.add_argument(c.flag, dest=c.dest, type=kind, nargs=c.cli_nargs, choices=choices,
                            metavar=("LO", "HI") if c.cli_nargs == 2 else None, help=c.cli_help or c.label)


def config_from_args(base: Any, controls: Sequence[Control], args: argparse.Namespace):
    """``base`` with every option given on the command line applied."""
    given = {c: v for c in controls if (v := getattr(args, c.dest, None)) is not None}
    return _with_values(base, given, from_cli=True)
