"""Bash twin: the dev-tools/*.sh entry points (`python -m datarim_snapshot <subcommand>`)."""

from ._cli import run

run()
