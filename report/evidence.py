"""A credit's evidence as its channel renders it: the channel class's own `evidence_label` /
`evidence_spans` when it has one, else the plain forms (the text block's label, the HTML's
citation marks)."""

from __future__ import annotations

from citeledger.core import channels, find_evidence


def _channel_method(name: str, method: str):
    """A channel class's own rendering method, or None (the channel is not installed or has none)."""
    cls = channels().get(name)
    return getattr(cls, method, None) if cls is not None else None


def evidence_label(verdict) -> str:
    """How the text block labels a credit: the crediting channel's `evidence_label`, else
    "<channel> `<evidence>`". `verdict` has `channel` (not None) and `evidence` (a Verdict or a Finding)."""
    own = _channel_method(verdict.channel, "evidence_label")
    return own(verdict) if own is not None else default_evidence_label(verdict)


def default_evidence_label(verdict) -> str:
    return f"{verdict.channel} `{verdict.evidence}`"


def evidence_spans(channel: str, answer: str, evidence: str) -> list[tuple[int, int]]:
    """Where in `answer` the evidence of a `channel` credit stands (the HTML's citation marks):
    the channel's `evidence_spans`, else every occurrence (core.channel.find_evidence)."""
    own = _channel_method(channel, "evidence_spans")
    return list(own(answer, evidence)) if own is not None else find_evidence(answer, evidence)
