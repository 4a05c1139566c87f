"""``python -m core SUBCOMMAND``: every lesson's experiment from the command line, as text or JSON.

Bad input exits with status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys


def _print(obj: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(obj, indent=None, default=float))
    else:
        for key, value in obj.items():
            print(f"{key}: {value}")


def cmd_patchify(args: argparse.Namespace) -> dict:
    from core.patchify_demo import PatchifyConfig, run_patchify, summary

    config = PatchifyConfig(
        image=args.image, image_size=args.image_size, channels=args.channels, patch_size=args.patch_size,
        embed_dim=args.embed_dim, seed=args.seed, dtype=args.dtype,
        wrong_flatten_order=args.wrong_flatten_order, conv_stride=args.conv_stride,
    )
    upload = None
    if args.file:
        config = PatchifyConfig(**{**config.__dict__, "image": "upload"})
        with open(args.file, "rb") as fh:
            upload = fh.read()
    return summary(run_patchify(config, upload))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("patchify", help="conv vs flatten+linear patch embedding on one image",
                       description="Patchify an image and compare the strided-conv and flatten+linear embeddings.")
    p.add_argument("--image", default="plus", help="plus, circle, 'bright patch', gradient, checkerboard, noise")
    p.add_argument("--file", help="a PNG/JPEG to use instead of a synthetic image")
    p.add_argument("--image-size", type=int, default=16)
    p.add_argument("--patch-size", type=int, default=4)
    p.add_argument("--channels", type=int, default=3, choices=(1, 3))
    p.add_argument("--embed-dim", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", default="float64", choices=("float32", "float64"))
    p.add_argument("--wrong-flatten-order", action="store_true", help="break it: flatten pixels-then-channels")
    p.add_argument("--conv-stride", type=int, default=None, help="break it: a conv stride below the patch size")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_patchify)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _print(result, args.json)
    return 0
