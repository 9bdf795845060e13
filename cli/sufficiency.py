"""`--sufficiency` for the corpus commands: the option. Each session is judged where it is read
(engine/judged.py) and pooled by engine/sufficiency.py."""

from __future__ import annotations


def add_sufficiency_option(parser, per: str) -> None:
    parser.add_argument(
        "--sufficiency", action="store_true",
        help="add the reference's explore sufficiency pooled " + per + ": each answered explore call "
        "bucketed by the agent's next act, counted over every answered call (not averaged per run)",
    )
