"""`--arm-pattern` for the commands: the pattern and its labels are the engine's (engine/arms.py)."""

from citeledger.engine.arms import ARM_COLUMNS, arm_pattern, labelled, labels_of  # noqa: F401
