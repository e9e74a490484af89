"""Bash twin: scripts/lib/replay-render.sh (+ snapshot-render.awk, resume-render.awk).

The one replay renderer (spec §4).

The bilingual block lives once, in scripts/lib/text/replay-instructions.txt,
read by both implementations (the wheel carries a copy).
"""

from __future__ import annotations

from ._texts import text_bytes


def render_replay_prompt(recommended_cta: bytes, body: bytes) -> bytes:
    """The CTA line, a blank line, the bilingual block, a blank line, "done before:", the body."""
    block = text_bytes("replay-instructions.txt")
    return recommended_cta + b"\n\n" + block + b"\ndone before:\n" + body
