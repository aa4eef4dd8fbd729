"""`python -m tests.support.oscar_shop install | start [--variant V] [--currency GBP|EUR] [--port P] [--name N] |
stop [--name N]`."""

from __future__ import annotations

import argparse
import sys

from tests.support.oscar_shop.install import InstallFailed, install
from tests.support.oscar_shop.server import CURRENCIES, start, stop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/oscar_shop", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help="create .oscar/venv and build the shop's database (idempotent)")
    starting = commands.add_parser("start", help="start an instance in the background and print its URL")
    starting.add_argument("--variant", default="control", help="a live configuration (project/shopsite/variants.py)")
    starting.add_argument(
        "--currency",
        default=CURRENCIES[0],
        choices=CURRENCIES,
        help="the catalogue: in pounds (as built) or the euro catalogue, prices like 29,95 €",
    )
    starting.add_argument("--port", type=int, default=None, help="default: a free port")
    starting.add_argument("--name", default="shop", help="instance name, to run several at once")
    stopping = commands.add_parser("stop", help="stop an instance started with `start`")
    stopping.add_argument("--name", default="shop")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            spent = install()
            print(
                "oscar shop installed: "
                + ", ".join(f"{step} {'reused' if s == 0 else f'{s:.1f} s'}" for step, s in spent.items())
            )
        elif args.command == "start":
            instance = start(args.name, args.variant, args.port, currency=args.currency)
            print(instance.url)
        else:
            print("stopped" if stop(args.name) else f"no running instance named {args.name!r}")
    except (InstallFailed, RuntimeError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
