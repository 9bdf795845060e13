"""The metric plugins' figures of one transcript, for the commands that show them."""

from __future__ import annotations


def measured(transcript, args) -> dict:
    """Every installed metric's record of `transcript`, by name (--window-tokens / CG_WINDOW_TOKENS applied)."""
    from citeledger.engine.measures import measured as measure

    return measure(transcript, getattr(args, "window_tokens", None))
