"""Bash twin: the dev-tools/*.sh entry points (`python -m datarim_snapshot <subcommand>`)."""

from .cli import run

run()
