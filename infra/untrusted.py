"""A YAML or JSON document from an untrusted file, read within limits: the one loading that the
ruleset loader (rules/loader.py) and `check`'s spec loader (harness/check_spec.py) share.

What a colleague's file may not do, whichever the loader: be larger than the caller's byte
limit or anything but a regular file (a FIFO is never waited on); expand its aliases past
MAX_NODES nodes or MAX_CHARS characters (an alias bomb); nest deeper than MAX_DEPTH; write a
key twice in one mapping (the last would win silently: a failing fixture dropped, a gate
passed); hold a key that is not a string; hold a number of more digits than Python converts
(MAX_DIGITS). Each refusal is a `Refused` naming the file, the line (0: none) and the key.

Mappings come back as `Located` dicts: each remembers its file and each key's line, for the
caller's own errors.
"""

from __future__ import annotations

import json
import os
import stat

import yaml

MAX_NODES = 100_000  # YAML nodes after aliases are expanded (a ruleset: about 60)
MAX_CHARS = 16 << 20  # characters of the scalars after aliases are expanded (a ruleset: about 2,000)
MAX_DEPTH = 64  # nesting of mappings and lists
MAX_DIGITS = 4_300  # Python's int conversion limit (sys.int_info.default_max_str_digits)


class Refused(Exception):
    """A document refused: `file`, `line` (0: none), `key` ("" when none) and what is wrong."""

    def __init__(self, file: str, line: int, key: str, message: str):
        self.file, self.line, self.key, self.message = file, line, key, message
        super().__init__(f"{file}:{line}: {key + ': ' if key else ''}{message}")


class Located(dict):
    """A mapping that remembers its file and each key's line."""

    file: str = ""
    line: int = 0
    lines: dict

    def line_of(self, key) -> int:
        return getattr(self, "lines", {}).get(key, self.line)


def read_bytes(path: str, limit: int, what: str) -> bytes:
    """The file's bytes, at most `limit` of them; a Refused when it is larger, cannot be read or is
    not a regular file (opened without blocking, then checked: a FIFO is never waited on)."""
    try:
        with open(path, "rb", opener=regular_only) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise Refused(path, 0, "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise Refused(path, 0, "", f"larger than the {what} limit of {limit:,} bytes")
    return data


def regular_only(path, flags):
    """os.open that refuses anything but a regular file, without blocking on a FIFO."""
    fd = os.open(path, flags | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(0, "not a regular file")
    return fd


# libyaml's parser when PyYAML has it (a 4 MB file: 4 s in the pure-Python one).
BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(BASE_LOADER):
    def flatten_mapping(self, node):
        """Flatten `<<:` merges, remembering how many pairs each mapping took from them.

        Merged pairs come first in node.value afterwards; a key the mapping
        writes itself overrides them (YAML's merge key), and only a key it
        writes twice is a duplicate. PyYAML flattens merged mappings too, so
        the count is kept per node, on its first flattening.
        """
        merged = self.__dict__.setdefault("merged_pairs", {})
        if id(node) in merged:
            return
        explicit = sum(1 for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge")
        super().flatten_mapping(node)
        merged[id(node)] = len(node.value) - explicit


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    merged = loader.merged_pairs[id(node)]
    mapping = Located()
    mapping.file = loader.name
    mapping.line = node.start_mark.line + 1
    mapping.lines = {}
    written = set()
    for position, (key_node, value_node) in enumerate(node.value):
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode):  # never construct (or print) a collection key
            raise Refused(loader.name, line, "", "keys must be strings")
        key = _construct(loader, key_node, line, "")
        if not isinstance(key, str):
            raise Refused(loader.name, line, _excerpt(key), "keys must be strings")
        if position >= merged:
            if key in written:
                raise Refused(loader.name, line, key, "duplicate key")
            written.add(key)
        mapping[key] = _construct(loader, value_node, line, key)
        mapping.lines[key] = line
    return mapping


def _construct(loader, node, line: int, key: str):
    """A node's value; an integer too long for Python to convert is refused, not a crash."""
    try:
        return loader.construct_object(node, deep=True)
    except ValueError:
        raise Refused(loader.name, line, key, f"a number too long to read (more than {MAX_DIGITS:,} digits)") from None


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _excerpt(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_shape(text: str, name: str, limit: int = MAX_NODES) -> int:
    """Refuse, from the event stream and before anything is built, YAML whose aliases expand
    past `limit` nodes or MAX_CHARS characters, or whose nesting passes MAX_DEPTH; returns the
    number of nodes after aliases are expanded."""
    sizes: dict[str, tuple] = {}
    stack: list[list] = [[0, 0, None]]  # per open collection: nodes and characters so far, its anchor
    for event in yaml.parse(text, Loader=BASE_LOADER):
        line = event.start_mark.line + 1 if event.start_mark else 0
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            if len(stack) > MAX_DEPTH:
                raise Refused(name, line, "", f"nested deeper than {MAX_DEPTH} levels")
            stack.append([1, 0, event.anchor])
            continue
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            count, chars, anchor = stack.pop()
        elif isinstance(event, yaml.ScalarEvent):
            count, chars, anchor = 1, len(event.value), event.anchor
        elif isinstance(event, yaml.AliasEvent):
            (count, chars), anchor = sizes.get(event.anchor, (1, 0)), None
        else:
            continue
        if anchor is not None:
            sizes[anchor] = (count, chars)
        stack[-1][0] += count
        stack[-1][1] += chars
        _within(name, line, limit, stack[-1][0], stack[-1][1])
    return stack[0][0]


def _within(name: str, line: int, limit: int, nodes: int, chars: int) -> None:
    if nodes > limit:
        if limit < MAX_NODES:
            raise Refused(name, line, "", f"its extends: chain has more than {MAX_NODES:,} YAML nodes in total")
        raise Refused(name, line, "", f"aliases expand to more than {MAX_NODES:,} YAML nodes (an alias bomb?)")
    if chars > MAX_CHARS:
        raise Refused(name, line, "", f"aliases expand to more than {MAX_CHARS:,} characters (an alias bomb?)")


def parse_yaml(text: str, name: str, limit: int = MAX_NODES) -> tuple:
    """(the document, its nodes after aliases are expanded): YAML text as Located mappings and
    plain values, within the limits above (`limit`: the nodes left to this file)."""
    try:
        nodes = check_shape(text, name, limit)
        loader = _Loader(text)
        loader.name = name
        try:
            return loader.get_single_data(), nodes
        finally:
            loader.dispose()
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a NUL): no mark, its own position
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else 0
        what = f"character #x{exc.character:04x}: " if isinstance(exc.character, int) else ""
        raise Refused(name, line, "", f"not valid YAML ({what}{exc.reason})") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise Refused(name, mark.line + 1 if mark else 0, "", f"not valid YAML ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise Refused(name, 0, "", f"not valid YAML ({exc})") from None
    except RecursionError:  # a bug if MAX_DEPTH holds; refused all the same
        raise Refused(name, 0, "", "nested too deeply") from None


def parse_json(raw: bytes, name: str):
    """JSON bytes as Located mappings (lines counted from the document) and plain values, within
    the limits above: a key twice in one object, nesting past MAX_DEPTH and a number of more than
    MAX_DIGITS digits are refused."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(name, 0, "", f"not UTF-8 text (byte {exc.start:,})") from None
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, name),
                          parse_int=lambda digits: _integer(digits, name), parse_constant=lambda c: _constant(c, name))
    except json.JSONDecodeError as exc:
        raise Refused(name, exc.lineno, "", f"not JSON ({exc.msg})") from None
    except RecursionError:
        raise Refused(name, 0, "", f"nested deeper than {MAX_DEPTH} levels") from None
    _json_depth(data, name)
    return data


def _object(pairs: list, name: str) -> Located:
    mapping = Located()
    mapping.file, mapping.lines = name, {}
    for key, value in pairs:
        if key in mapping:
            raise Refused(name, 0, key, "duplicate key")
        mapping[key] = value
    return mapping


def _constant(word: str, name: str):
    raise Refused(name, 0, "", f"not JSON ({word} is JavaScript, not JSON)")


def _integer(digits: str, name: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise Refused(name, 0, "", f"a number too long to read (more than {MAX_DIGITS:,} digits)")
    return int(digits)


def _json_depth(value, name: str) -> None:
    """Refuse nesting past MAX_DEPTH (the decoder itself stops at about 1,000 levels: RecursionError)."""
    level = [(value, 1)]
    while level:
        item, depth = level.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > MAX_DEPTH:
                    raise Refused(name, 0, "", f"nested deeper than {MAX_DEPTH} levels")
                level.append((child, depth + 1))
