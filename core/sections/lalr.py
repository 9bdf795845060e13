"""A lean run of a lark LALR parser: lark's own tables and lexers, less overhead.

lark's `parse` makes a Token object per token (with line and column
bookkeeping) and goes through a generic callback chain; a header with a long
render-tag note has fifty tokens, so that is most of the cost of a header.
This driver runs the same parse table with the same per-state scanners of the
contextual lexer, and applies the same Transformer methods on each reduce; it
gives the same result or the same failure, only faster. It supports what
header.lark uses (named terminals, `?rule` inlining, `*` helper rules) and
refuses any grammar that needs more (callbacks on terminals, ignored
terminals, aliases; at construction) or a rule without a Transformer method
(raised during the parse), so nothing is silently different.
"""

from __future__ import annotations

from lark.parsers.lalr_analysis import Shift


class Unsupported(Exception):
    """The parser uses a lark feature this driver does not reproduce."""


class Fail(Exception):
    """The text does not parse (lark raises UnexpectedInput here)."""


class Tok(str):
    """A token's text with its terminal name (what Transformer methods read)."""

    __slots__ = ("type",)


class _Splice(list):
    """The children of a helper rule (`__x_star_n`), spliced into its parent's."""

    __slots__ = ()


class LeanParser:
    def __init__(self, lark, transformer, start: str):
        frontend = lark.parser
        table = frontend.parser.parser.parse_table
        lexers = frontend.lexer.lexers
        if lark.options.lexer != "contextual" or frontend.lexer.root_lexer.ignore_types:
            raise Unsupported("only a contextual lexer without ignored terminals")
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        # Plain str keys: lark's are Token objects whose __eq__ runs in Python.
        # A shift is (True, state); a reduce (False, size, how, goto name);
        # the goto is looked up in the state the reduce uncovers.
        self.reducers = {}
        for rule in lark.rules:
            if rule.alias or rule.options.keep_all_tokens:
                raise Unsupported(f"rule options of {rule.origin.name}")
            name = rule.origin.name
            if name.startswith("_"):
                how = None  # spliced into the parent
            elif rule.options.expand1:
                how = "expand1"
            else:
                how = getattr(transformer, name, None) or "tree"  # lark would build a Tree: not done here
            self.reducers[rule] = (len(rule.expansion), how, str(name))
        self.states = {
            state: {
                str(kind): (True, arg) if action is Shift else (False,) + self.reducers[arg]
                for kind, (action, arg) in actions.items()
            }
            for state, actions in table.states.items()
        }
        self.scanners = {}
        for state, lexer in lexers.items():
            if lexer.user_callbacks or getattr(lexer, "callback", None):
                raise Unsupported("terminal callbacks")
            self.scanners[state] = lexer.scanner._mres

    def parse(self, text: str):
        states, scanners = self.states, self.scanners
        state_stack = [self.start_state]
        values: list = []
        pos, end = 0, len(text)
        while True:
            state = state_stack[-1]
            if pos < end:
                for mre in scanners[state]:
                    m = mre.match(text, pos)
                    if m:
                        break
                else:
                    raise Fail(pos)
                token = Tok(m.group(0))
                token.type = kind = m.lastgroup
                pos = m.end()
            else:
                token, kind = None, "$END"
            while True:
                action = states[state_stack[-1]].get(kind)
                if action is None:
                    raise Fail(pos)
                if action[0]:
                    state_stack.append(action[1])
                    values.append(token)
                    break
                _, size, how, goto = action
                if size:
                    children = values[-size:]
                    del state_stack[-size:]
                    del values[-size:]
                else:
                    children = []
                if _Splice in map(type, children):
                    flat = []
                    for c in children:
                        if type(c) is _Splice:
                            flat.extend(c)
                        else:
                            flat.append(c)
                    children = flat
                if how is None:
                    value = _Splice(children)
                elif how == "expand1":
                    if len(children) != 1:
                        raise Unsupported("an inlined rule with other than one child")
                    value = children[0]
                elif how == "tree":
                    raise Unsupported(f"no transformer method for {goto}")
                else:
                    value = how(children)
                state_stack.append(states[state_stack[-1]][goto][1])
                values.append(value)
                if kind == "$END" and state_stack[-1] == self.end_state:
                    return values[-1]
