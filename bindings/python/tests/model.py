"""An independent model of Reshape's rules, written from docs/rules.md alone.

This file is a differential-testing oracle: it was written from the contract (docs/rules.md, the
README's "The rules" section and the example fixtures), never from the engine's sources, so that it
can disagree with the engine. It favours clarity over speed and may recurse on document depth (the
documents it is given are small).

JSON values are represented as:
    dict (member order kept), list, str, bool, None, and `Num` for every number (its exact text).

`run(rules_text, input_text)` returns the reshaped value or raises `ModelError(code, rule, path)`.

Readings of the contract where it is silent or ambiguous (each marked "READING" below too):

R1  Nested locations with `deep` (convertKeys / renameKeys). "edits each location once" is read as:
    the objects to rename are the selected objects plus, when `deep`, every object at or below a
    selected value; each of them is renamed exactly once, even when it lies both at a selected
    location and inside another selected location's value. (The other reading, renaming a nested
    object again as part of its ancestor's deep edit, differs for maps such as a swap.)
R2  Order of those renames (the convertKeys section): without `deep`, the order of every edit,
    deepest first and, at the same depth, the later object in document order first; with `deep`,
    document order with each object after the objects inside it (a post-order), so the error
    named is the first collision in that order.
R3  Which member a collision names: "an error at the renamed one". Members are considered in
    order; a member whose new name was already taken by an earlier member is the collision; the
    error names that member if it was renamed, otherwise the earlier member (which then was).
R4  convertKeys / renameKeys on a selected value that is not an object: no error (only `default`,
    `keyedToArray`, `arrayToKeyed` and `coerce` say a wrong type is an error). With `deep`, a
    selected array is still searched for objects "at any depth"; without `deep`, nothing happens.
R5  keyedToArray within one collection: members (elements) are handled in order, and the first
    member that fails is the error (its non-object error at the member, its conflict at the
    member's idKey), even if a later member's failure is deeper.
R6  keyedToArray with onConflict "keep": the record's idKey value is kept and put first, as the
    id (the fixture keyed-conflict-keep shows it first); with "overwrite" the record's own idKey
    member is dropped and the collection key is put first.
R7  keyedToArray on an array: elements that are null are skipped (holes), other non-objects go
    through `nonObject` like members; ids are the element indices as strings.
R8  arrayToKeyed checks each element in order: not an object (at the element), missing idKey (at
    the element), id neither string nor integer (at the id), duplicate id (at the id). An integer id
    is written as its text, as the writer writes it: `-0` gives "-0".
R9  coerce to "integer": "a value beyond 64 bits fails" is read as applying to integers too: an
    integer literal outside the signed 64-bit range fails; the range is Int64's.
R10 coerce to "number": booleans, objects and arrays cannot be converted (they fail through
    onFail), like a string that is not exactly a JSON number.
R11 coerce to "string" of a real: the shortest round-trip digits, in decimal notation when the
    magnitude is from 0.0001 up to 2^53 and in exponent notation otherwise, the exponent without
    leading zeros (`1e+16`, `1.5e-7`, `9.881587825508406e+15`, `100.0`), as "Reading and writing
    JSON" says; a real whose double is a different decimal number keeps its text.
R12 blankStringToNull `trim`: a non-empty string of only Unicode White_Space characters; ""
    always counts.
R13 unwrap with a singular path: a value of the wrong type on the way ("a name on an array")
    counts as missing, and the error is at the last value reached (fixture unwrap-wrong-type).
R14 Edits run on the document as deeper edits left it: e.g. keyedToArray at `$..*` sees, at an
    outer location, members that inner edits already turned into arrays (fixture
    keyed-one-rule-nested-selection), and coerce/emptyObjectToNull see the edited value.
R15 Duplicate member names: in the input, invalid_json; in the rules document, invalid_rules with
    no rule index (the fixture rules-duplicate-param), since the document is not read as JSON.
"""

import json
import re
import unicodedata
from typing import Any, Dict, List, Optional, Tuple

# ----------------------------------------------------------------------------------------------
# Values


class Num:
    """A JSON number, kept as its text. Equal to another Num of the same kind and decimal value."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def is_int(self) -> bool:
        return not any(c in self.text for c in ".eE")

    def parts(self) -> Tuple[int, int]:
        return decimal_parts(self.text)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Num) and self.is_int == other.is_int and self.parts() == other.parts()

    def __hash__(self) -> int:
        return hash(self.parts())

    def __repr__(self) -> str:
        return f"Num({self.text!r})"


NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def decimal_parts(text: str) -> Tuple[int, int]:
    """The exact value of JSON number text as (mantissa, exponent), mantissa without trailing zeros."""
    match = NUMBER.match(text)
    assert match, text
    negative = text.startswith("-")
    integer = match.group(1)
    fraction = (match.group(2) or ".")[1:]
    exponent = int(match.group(3)[1:]) if match.group(3) else 0
    mantissa = int(integer + fraction)
    exponent -= len(fraction)
    if mantissa == 0:
        return (0, 0)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    return (-mantissa if negative else mantissa, exponent)


def parse_json(text: str) -> Any:
    """Strict enough for the tests: numbers kept as text, duplicate member names rejected."""
    return json.loads(text, parse_float=Num, parse_int=Num, parse_constant=_no_constant,
                      object_pairs_hook=_unique_members)


def _unique_members(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    result: Dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ValueError(f"duplicate member name {name!r}")
        result[name] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def dump_json(value: Any) -> str:
    """Compact JSON text of a model value (numbers as their text)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Num):
        return value.text
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(dump_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump_json(v) for k, v in value.items()) + "}"
    raise TypeError(type(value))


def same(a: Any, b: Any) -> bool:
    """Equal JSON values: same types, numbers by kind and value, members in the same order."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or a is None:
        return a is b
    if isinstance(a, Num):
        return isinstance(b, Num) and a == b
    if isinstance(a, str):
        return isinstance(b, str) and a == b
    raise TypeError(type(a))


def copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy(v) for v in value]
    return value


# ----------------------------------------------------------------------------------------------
# Errors


class ModelError(Exception):
    def __init__(self, code: str, rule: int = 0, path: str = "", message: str = "") -> None:
        super().__init__(f"{code}: rule {rule} at {path}: {message}")
        self.code = code
        self.rule = rule
        self.path = path
        self.message = message


class _Fail(Exception):
    """A rule failing at a location (path as a tuple of member names and indices)."""

    def __init__(self, location: Tuple, message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message


def normalized_path(location: Tuple) -> str:
    """RFC 9535 normalized path (section 2.7)."""
    out = ["$"]
    for step in location:
        if isinstance(step, int):
            out.append(f"[{step}]")
        else:
            out.append("['" + "".join(_escape_normal(c) for c in step) + "']")
    return "".join(out)


def _escape_normal(c: str) -> str:
    special = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "'": "\\'", "\\": "\\\\"}
    if c in special:
        return special[c]
    if ord(c) < 0x20:
        return f"\\u{ord(c):04x}"
    return c


# ----------------------------------------------------------------------------------------------
# Paths: the RFC 9535 subset the generated rules use (no filters, slices or unions: the compliance
# suite checks those through the engine, Tests/jsonpath-cts)


class PathError(Exception):
    pass


BLANK = " \t\n\r"
MAX_INDEX = 2 ** 53 - 1


class Segment:
    def __init__(self, descendant: bool, kind: str, arg: Any = None) -> None:
        self.descendant = descendant  # ".." segment
        self.kind = kind  # "name", "index" or "wild"
        self.arg = arg


class Path:
    def __init__(self, text: str, segments: List[Segment]) -> None:
        self.text = text
        self.segments = segments

    @property
    def singular(self) -> bool:
        return all(not s.descendant and s.kind != "wild" for s in self.segments)

    @property
    def is_root(self) -> bool:
        return not self.segments


def _name_first(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_" or ord(c) >= 0x80


def _name_char(c: str) -> bool:
    return _name_first(c) or "0" <= c <= "9"


def compile_path(text: str) -> Path:
    if not text.startswith("$"):
        raise PathError("a path must start with '$'")
    i = 1
    n = len(text)
    segments: List[Segment] = []
    while i < n:
        j = i
        while j < n and text[j] in BLANK:
            j += 1
        if j == n:
            raise PathError("white space at the end of a path")
        i = j
        if text.startswith("..", i):
            i += 2
            if i < n and text[i] == "[":
                kind, arg, i = _bracket(text, i)
            elif i < n and text[i] == "*":
                kind, arg, i = "wild", None, i + 1
            else:
                arg, i = _shorthand(text, i)
                kind = "name"
            segments.append(Segment(True, kind, arg))
        elif text[i] == ".":
            i += 1
            if i < n and text[i] == "*":
                segments.append(Segment(False, "wild"))
                i += 1
            else:
                arg, i = _shorthand(text, i)
                segments.append(Segment(False, "name", arg))
        elif text[i] == "[":
            kind, arg, i = _bracket(text, i)
            segments.append(Segment(False, kind, arg))
        else:
            raise PathError(f"unexpected {text[i]!r}")
    return Path(text, segments)


def _shorthand(text: str, i: int) -> Tuple[str, int]:
    if i >= len(text) or not _name_first(text[i]):
        raise PathError("expected a member name")
    j = i + 1
    while j < len(text) and _name_char(text[j]):
        j += 1
    return text[i:j], j


def _bracket(text: str, i: int) -> Tuple[str, Any, int]:
    assert text[i] == "["
    n = len(text)
    i += 1
    while i < n and text[i] in BLANK:
        i += 1
    if i >= n:
        raise PathError("unterminated bracket")
    c = text[i]
    if c == "*":
        kind, arg = "wild", None
        i += 1
    elif c in "'\"":
        arg, i = _string_literal(text, i)
        kind = "name"
    elif c == "-" or "0" <= c <= "9":
        m = re.compile(r"-?(0|[1-9][0-9]*)").match(text, i)
        if not m or m.group(0) == "-0":
            raise PathError("bad index")
        arg = int(m.group(0))
        if abs(arg) > MAX_INDEX:
            raise PathError("index out of range")
        kind = "index"
        i = m.end()
    elif c == "?":
        raise PathError("filter selectors are not supported")
    else:
        raise PathError(f"unexpected {c!r}")
    while i < n and text[i] in BLANK:
        i += 1
    if i < n and text[i] == ":":
        raise PathError("slices are not supported")
    if i < n and text[i] == ",":
        raise PathError("unions are not supported")
    if i >= n or text[i] != "]":
        raise PathError("expected ']'")
    return kind, arg, i + 1


def _string_literal(text: str, i: int) -> Tuple[str, int]:
    quote = text[i]
    i += 1
    out = []
    n = len(text)
    simple = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\", quote: quote}
    while True:
        if i >= n:
            raise PathError("unterminated string")
        c = text[i]
        if c == quote:
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= n:
                raise PathError("bad escape")
            e = text[i + 1]
            if e in simple:
                out.append(simple[e])
                i += 2
            elif e == "u":
                code, i = _hex4(text, i + 2)
                if 0xD800 <= code <= 0xDBFF:
                    if not text.startswith("\\u", i):
                        raise PathError("lone surrogate")
                    low, i = _hex4(text, i + 2)
                    if not 0xDC00 <= low <= 0xDFFF:
                        raise PathError("lone surrogate")
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                elif 0xDC00 <= code <= 0xDFFF:
                    raise PathError("lone surrogate")
                out.append(chr(code))
            else:
                raise PathError("bad escape")
        elif ord(c) < 0x20:
            raise PathError("control character in a string")
        else:
            out.append(c)
            i += 1


def _hex4(text: str, i: int) -> Tuple[int, int]:
    h = text[i:i + 4]
    if len(h) != 4 or not all(c in "0123456789abcdefABCDEF" for c in h):
        raise PathError("bad \\u escape")
    return int(h, 16), i + 4


# A node: (location, order, value). location: tuple of member names / non-negative indices;
# order: tuple of positions (member position or index) in the document as it stood when selected.
Node = Tuple[Tuple, Tuple, Any]


def _children(node: Node) -> List[Node]:
    loc, order, value = node
    if isinstance(value, dict):
        return [(loc + (k,), order + (p,), v) for p, (k, v) in enumerate(value.items())]
    if isinstance(value, list):
        return [(loc + (p,), order + (p,), v) for p, v in enumerate(value)]
    return []


def _select_child(node: Node, segment: Segment) -> List[Node]:
    loc, order, value = node
    if segment.kind == "wild":
        return _children(node)
    if segment.kind == "name":
        if isinstance(value, dict) and segment.arg in value:
            p = list(value).index(segment.arg)
            return [(loc + (segment.arg,), order + (p,), value[segment.arg])]
        return []
    index = segment.arg
    if isinstance(value, list):
        if index < 0:
            index += len(value)
        if 0 <= index < len(value):
            return [(loc + (index,), order + (index,), value[index])]
    return []


def _visit(node: Node) -> List[Node]:
    """A value, then its descendants: a value before its descendants, children in order."""
    out = [node]
    for child in _children(node):
        out.extend(_visit(child))
    return out


def select(path: Path, document: Any) -> List[Node]:
    """RFC 9535's nodelist, in order and with duplicates."""
    nodes: List[Node] = [((), (), document)]
    for segment in path.segments:
        result: List[Node] = []
        for node in nodes:
            visited = _visit(node) if segment.descendant else [node]
            for v in visited:
                result.extend(_select_child(v, segment))
        nodes = result
    return nodes


def edit_order(nodes: List[Node]) -> List[Node]:
    """Each location once, deepest first, and at equal depth the later one in document order first."""
    unique: Dict[Tuple, Node] = {}
    for node in nodes:
        unique.setdefault(node[0], node)
    return sorted(unique.values(), key=lambda node: (len(node[1]), node[1]), reverse=True)


def get(document: Any, location: Tuple) -> Any:
    value = document
    for step in location:
        value = value[step]
    return value


def put(document: Any, location: Tuple, new: Any) -> Any:
    """Replaces the value at location; returns the (possibly new) document."""
    if not location:
        return new
    parent = get(document, location[:-1])
    parent[location[-1]] = new
    return document


# ----------------------------------------------------------------------------------------------
# Key conversions, as Foundation's JSONDecoder/JSONEncoder key strategies


def _is_upper(c: str) -> bool:
    return c.isupper()  # CharacterSet.uppercaseLetters (names used in tests are ASCII)


def _is_lower(c: str) -> bool:
    return c.islower()


def _capitalized(word: str) -> str:
    """Foundation's String.capitalized: the first cased letter after an uncased character becomes
    upper case, letters after a cased letter lower case."""
    out = []
    last_cased = False
    for c in word:
        if c.isalpha():
            out.append(c.lower() if last_cased else c.upper())
            last_cased = True
        else:
            out.append(c)
            last_cased = False
    return "".join(out)


def from_snake_case(key: str) -> str:
    """JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase."""
    if not key:
        return key
    first = next((i for i, c in enumerate(key) if c != "_"), None)
    if first is None:
        return key
    last = len(key) - 1
    while last > first and key[last] == "_":
        last -= 1
    core = key[first:last + 1]
    components = [c for c in core.split("_") if c]
    if len(components) == 1:
        joined = core
    else:
        joined = components[0].lower() + "".join(_capitalized(c) for c in components[1:])
    return key[:first] + joined + key[last + 1:]


def to_snake_case(key: str) -> str:
    """JSONEncoder.KeyEncodingStrategy.convertToSnakeCase."""
    if not key:
        return key
    n = len(key)
    words: List[Tuple[int, int]] = []
    word_start = 0
    search_lo, search_hi = 1, n

    def find(pred, lo, hi):
        for i in range(lo, hi):
            if pred(key[i]):
                return i
        return None

    while True:
        upper = find(_is_upper, search_lo, search_hi)
        if upper is None:
            break
        words.append((word_start, upper))
        search_lo = upper
        lower = find(_is_lower, search_lo, search_hi)
        if lower is None:
            word_start = search_lo
            break
        if lower == upper + 1:
            word_start = upper
        else:
            words.append((upper, lower - 1))
            word_start = lower - 1
        search_lo = lower + 1
    words.append((word_start, search_hi))
    return "_".join(key[a:b].lower() for a, b in words)


# ----------------------------------------------------------------------------------------------
# Numbers for coerce

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _exact_integer(text: str) -> Optional[int]:
    """The integer the decimal text denotes, or None for a fraction or beyond 64 bits."""
    mantissa, exponent = decimal_parts(text)
    if mantissa == 0:
        return 0
    if exponent < 0:
        return None  # mantissa has no trailing zeros: a fraction
    if exponent > 19:
        return None
    value = mantissa * 10 ** exponent
    if not INT64_MIN <= value <= INT64_MAX:
        return None
    return value


def _shortest_real_text(number: Num) -> str:
    """How the writer writes a real (READING R11)."""
    try:
        f = float(number.text)
    except OverflowError:  # pragma: no cover
        return number.text
    if f != f or f in (float("inf"), float("-inf")):
        return number.text
    text = repr(f)
    if decimal_parts(text) != number.parts():
        return number.text  # the double is another decimal number: kept as written
    if f == 0 and number.text.startswith("-") != text.startswith("-"):
        return number.text
    if "e" not in text and abs(f) > 2**53:
        # Above 2^53 the writer uses exponent notation; repr only does from 1e16 (READING R11).
        digits = text.split(".")[0].lstrip("-")
        rest = digits[1:].rstrip("0")
        text = ("-" if f < 0 else "") + digits[0] + ("." + rest if rest else "") + f"e+{len(digits) - 1}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = exponent[0] if exponent[0] in "+-" else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        text = f"{mantissa}e{sign}{digits}"
    return text


def number_text(number: Num) -> str:
    """The writer's text of a number."""
    if number.is_int:
        if number.text == "-0":
            return "-0"  # -0 passes through as its text
        value = int(number.text)
        if INT64_MIN <= value <= 2 ** 64 - 1:
            return str(value)
        return number.text
    return _shortest_real_text(number)


WHITE_SPACE = set(
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


_CANNOT = object()


def coerce_value(value: Any, to: str) -> Any:
    """The converted value, or _CANNOT."""
    if value is None:
        return None
    if to == "number":
        if isinstance(value, Num):
            return value
        if isinstance(value, str) and NUMBER.match(value):
            return Num(value)
        return _CANNOT  # READING R10
    if to == "integer":
        if isinstance(value, Num) or (isinstance(value, str) and NUMBER.match(value)):
            text = value.text if isinstance(value, Num) else value
            result = _exact_integer(text)  # READING R9: beyond 64 bits fails, integers too
            return _CANNOT if result is None else Num(str(result))
        return _CANNOT
    if to == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, Num):
            return number_text(value)
        return _CANNOT
    if to == "boolean":
        if isinstance(value, bool):
            return value
        if value == "true":
            return True
        if value == "false":
            return False
        return _CANNOT
    raise AssertionError(to)


# ----------------------------------------------------------------------------------------------
# I-Regexp (RFC 9485), translated to Python's re: '.' is any character but \n and \r, \p{..} and
# \P{..} become classes of the code points of those Unicode categories, '^' and '$' anchors (as the
# JSONPath compliance suite reads them).

_CATEGORY_RANGES: Dict[str, List[Tuple[int, int]]] = {}


def _category_ranges(name: str) -> List[Tuple[int, int]]:
    if name not in _CATEGORY_RANGES:
        ranges: List[Tuple[int, int]] = []
        for code in range(0x110000):
            if 0xD800 <= code <= 0xDFFF:
                continue
            if unicodedata.category(chr(code)).startswith(name):
                if ranges and ranges[-1][1] == code - 1:
                    ranges[-1] = (ranges[-1][0], code)
                else:
                    ranges.append((code, code))
        _CATEGORY_RANGES[name] = ranges
    return _CATEGORY_RANGES[name]


def _complement(ranges: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return out


def _class_text(ranges: List[Tuple[int, int]]) -> str:
    return "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)


def compile_iregexp(pattern: str) -> "re.Pattern[str]":
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("trailing backslash")
            e = pattern[i + 1]
            if e in "pP":
                end = pattern.index("}", i)
                ranges = _category_ranges(pattern[i + 3:end])
                if e == "P":
                    ranges = _complement(ranges)
                out.append(_class_text(ranges) if in_class else "[" + _class_text(ranges) + "]")
                i = end + 1
                continue
            if e not in "nrt().*+?[]{}|\\^-":
                raise ValueError("unknown escape")
            out.append("\\" + e)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
        elif c == "[":
            in_class = True
            out.append(c)
            if pattern[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
        elif c == ".":
            out.append("[^\\n\\r]")
        elif c == "$":
            out.append("\\Z")
        else:
            out.append(c)
        i += 1
    return re.compile("".join(out))


# ----------------------------------------------------------------------------------------------
# Rules


OPS: Dict[str, Dict[str, Tuple[str, Any]]] = {
    # param: (type, default); type is "path", "string", "bool", "map", "any" or a tuple of choices;
    # default REQUIRED marks a required param.
}
REQUIRED = object()
OPS.update({
    "unwrap": {"path": ("path", REQUIRED), "optional": ("bool", False)},
    "wrap": {"key": ("string", REQUIRED)},
    "keyedToArray": {
        "path": ("path", "$"), "idKey": ("string", "id"), "wrapIn": ("string", None),
        "onConflict": (("error", "overwrite", "keep"), "error"),
        "nonObject": (("error", "skip", "wrap"), "error"), "valueKey": ("string", "value"),
    },
    "arrayToKeyed": {"path": ("path", "$"), "idKey": ("string", "id"), "keepId": ("bool", False)},
    "emptyObjectToNull": {"path": ("path", "$..*")},
    "blankStringToNull": {"path": ("path", "$..*"), "trim": ("bool", False)},
    "convertKeys": {"to": (("camelCase", "snake_case", "kebab-case"), "camelCase"), "path": ("path", "$"), "deep": ("bool", True),
                    "exclude": ("paths", [])},
    "renameKeys": {"map": ("map", REQUIRED), "path": ("path", "$"), "deep": ("bool", False)},
    "remove": {"path": ("path", REQUIRED), "matching": ("regexp", None)},
    "default": {"path": ("path", "$"), "key": ("string", REQUIRED), "value": ("any", REQUIRED)},
    "coerce": {
        "path": ("path", REQUIRED), "to": (("number", "integer", "string", "boolean"), "number"),
        "onFail": (("error", "null", "keep"), "error"),
    },
    "emptyArrayToNull": {"path": ("path", "$..*")},
    "keep": {"path": ("path", "$"), "members": ("names", REQUIRED)},
    "hoist": {"path": ("path", REQUIRED), "member": ("string", REQUIRED), "onMissing": (("error", "null", "keep"), "error")},
    "pluck": {"path": ("path", REQUIRED), "member": ("string", REQUIRED), "onMissing": (("error", "skip", "null"), "error")},
    "flatten": {"path": ("path", REQUIRED), "member": ("string", REQUIRED), "prefix": ("string", "")},
    "mapValues": {"path": ("path", REQUIRED), "cases": ("pairs", REQUIRED), "onOther": (("keep", "null", "error"), "keep")},
})


class Rule:
    def __init__(self, index: int, op: str, params: Dict[str, Any]) -> None:
        self.index = index
        self.op = op
        self.params = params

    def __getitem__(self, name: str) -> Any:
        return self.params[name]


def compile_rules(document: Any) -> List[Rule]:
    def invalid(rule: int, message: str) -> ModelError:
        return ModelError("invalid_rules", rule, "", message)

    if isinstance(document, dict):
        extra = [k for k in document if k != "rules"]
        if extra or "rules" not in document:
            raise invalid(0, "the rules document must be an array or {\"rules\": [...]}")
        document = document["rules"]
    if not isinstance(document, list):
        raise invalid(0, "the rules document must be an array")
    rules = []
    for index, spec in enumerate(document, 1):
        if not isinstance(spec, dict):
            raise invalid(index, "a rule must be an object")
        op = spec.get("op")
        if not isinstance(op, str) or op not in OPS:
            raise invalid(index, f"unknown or missing op {op!r}")
        table = OPS[op]
        params: Dict[str, Any] = {}
        for name, value in spec.items():
            if name == "op":
                continue
            if name not in table:
                raise invalid(index, f"unknown param {name!r}")
            kind = table[name][0]
            if kind == "path":
                if not isinstance(value, str):
                    raise invalid(index, f"param {name!r} must be a string")
                try:
                    value = compile_path(value)
                except PathError as error:
                    raise invalid(index, f"invalid path: {error}")
            elif kind == "string":
                if not isinstance(value, str):
                    raise invalid(index, f"param {name!r} must be a string")
            elif kind == "bool":
                if not isinstance(value, bool):
                    raise invalid(index, f"param {name!r} must be a boolean")
            elif kind == "regexp":
                if not isinstance(value, str):
                    raise invalid(index, f"param {name!r} must be a string")
                try:
                    value = compile_iregexp(value)
                except (ValueError, re.error) as error:
                    raise invalid(index, f"invalid I-Regexp: {error}")
            elif kind == "paths":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise invalid(index, f"param {name!r} must be an array of paths")
                try:
                    value = [compile_path(v) for v in value]
                except PathError as error:
                    raise invalid(index, f"invalid path: {error}")
            elif kind == "pairs":
                if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
                    raise invalid(index, f"param {name!r} must be an array of [from, to] pairs")
            elif kind == "names":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise invalid(index, f"param {name!r} must be an array of names")
            elif kind == "map":
                if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                    raise invalid(index, f"param {name!r} must be an object of strings")
            elif isinstance(kind, tuple):
                if value not in kind or not isinstance(value, str):
                    raise invalid(index, f"param {name!r} must be one of {kind}")
            params[name] = value
        for name, (kind, default) in table.items():
            if name not in params:
                if default is REQUIRED:
                    raise invalid(index, f"missing required param {name!r}")
                params[name] = compile_path(default) if kind == "path" and default is not None else default
        if op == "remove" and params["path"].is_root and params["matching"] is None:
            raise invalid(index, "remove cannot remove the document itself")
        if op == "keyedToArray" and params["nonObject"] == "wrap" and params["valueKey"] == params["idKey"]:
            raise invalid(index, "valueKey and idKey must differ when nonObject is wrap")
        rules.append(Rule(index, op, params))
    return rules


# ----------------------------------------------------------------------------------------------
# Ops: each takes (rule, document) and returns the new document, or raises _Fail.


def op_unwrap(rule: Rule, document: Any) -> Any:
    path: Path = rule["path"]
    if not path.singular:
        return [copy(node[2]) for node in select(path, document)]
    value = document
    location: Tuple = ()
    for segment in path.segments:
        if segment.kind == "name":
            if isinstance(value, dict) and segment.arg in value:
                value = value[segment.arg]
                location += (segment.arg,)
                continue
        else:
            if isinstance(value, list):
                index = segment.arg + len(value) if segment.arg < 0 else segment.arg
                if 0 <= index < len(value):
                    value = value[index]
                    location += (index,)
                    continue
        if rule["optional"]:
            return None
        raise _Fail(location, "missing")  # READING R13: at the last value reached
    return value


def op_wrap(rule: Rule, document: Any) -> Any:
    return {rule["key"]: document}


def op_keyed_to_array(rule: Rule, document: Any) -> Any:
    id_key, value_key = rule["idKey"], rule["valueKey"]
    on_conflict, non_object, wrap_in = rule["onConflict"], rule["nonObject"], rule["wrapIn"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        collection = get(document, location)
        if collection is None:
            entries: List[Tuple[Any, Any]] = []
        elif isinstance(collection, dict):
            entries = list(collection.items())
        elif isinstance(collection, list):
            entries = [(i, v) for i, v in enumerate(collection) if v is not None]  # READING R7
        else:
            raise _Fail(location, "expected an object (or null, or an array)")
        records = []
        for key, member in entries:  # READING R5: in order
            ident = str(key)
            if isinstance(member, dict):
                if id_key in member:
                    if on_conflict == "error":
                        raise _Fail(location + (key, id_key), "the record already has the id")
                    first = member[id_key] if on_conflict == "keep" else ident  # READING R6
                    record = {id_key: first}
                    record.update((k, v) for k, v in member.items() if k != id_key)
                else:
                    record = {id_key: ident}
                    record.update(member)
                records.append(record)
            elif non_object == "error":
                raise _Fail(location + (key,), "expected an object")
            elif non_object == "wrap":
                records.append({id_key: ident, value_key: member})
        result = {wrap_in: records} if wrap_in is not None else records
        document = put(document, location, result)
    return document


def op_array_to_keyed(rule: Rule, document: Any) -> Any:
    id_key, keep = rule["idKey"], rule["keepId"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        array = get(document, location)
        if not isinstance(array, list):
            raise _Fail(location, "expected an array")
        result: Dict[str, Any] = {}
        for i, element in enumerate(array):  # READING R8
            if not isinstance(element, dict):
                raise _Fail(location + (i,), "expected an object")
            if id_key not in element:
                raise _Fail(location + (i,), "missing id")
            ident = element[id_key]
            if isinstance(ident, str):
                key = ident
            elif isinstance(ident, Num) and ident.is_int:
                key = "-0" if ident.text == "-0" else str(int(ident.text))
            else:
                raise _Fail(location + (i, id_key), "the id must be a string or an integer")
            if key in result:
                raise _Fail(location + (i, id_key), "duplicate id")
            result[key] = element if keep else {k: v for k, v in element.items() if k != id_key}
        document = put(document, location, result)
    return document


def op_empty_object_to_null(rule: Rule, document: Any) -> Any:
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if isinstance(value, dict) and not value:
            document = put(document, location, None)
    return document


def op_blank_string_to_null(rule: Rule, document: Any) -> Any:
    trim = rule["trim"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if isinstance(value, str) and (value == "" or (trim and all(c in WHITE_SPACE for c in value))):
            document = put(document, location, None)  # READING R12
    return document


def _rename_objects(rule: Rule, document: Any, rename) -> Any:
    """convertKeys and renameKeys: READINGS R1 to R4."""
    deep = rule["deep"]
    excluded = {node[0] for path in rule.params.get("exclude", []) for node in select(path, document)
                if isinstance(node[2], (dict, list))}

    def kept(location: Tuple) -> bool:
        return any(location[:len(e)] == e for e in excluded)

    targets: Dict[Tuple, Node] = {}
    for node in select(rule["path"], document):
        for inner in (_visit(node) if deep else [node]):
            if isinstance(inner[2], dict) and not kept(inner[0]):
                targets.setdefault(inner[0], inner)
    if deep:
        # READING R2: document order, each object after the objects inside it.
        order = sorted(targets.values(), key=lambda node: tuple(node[1]) + (float("inf"),))
    else:
        order = edit_order(list(targets.values()))
    for location, _, _ in order:
        obj = get(document, location)
        taken: Dict[str, str] = {}  # new name -> old name
        for old in obj:
            new = rename(old)
            if new in taken:
                earlier = taken[new]
                blame = old if new != old else earlier  # READING R3
                raise _Fail(location + (blame,), "collision")
            taken[new] = old
        renamed = {rename(k): v for k, v in obj.items()}
        document = put(document, location, renamed)
    return document


def camel_case(key: str) -> str:
    """convertKeys to camelCase: Foundation's, a '-' read as '_', kept before the first word and after the last."""
    if "-" not in key:
        return from_snake_case(key)
    converted = from_snake_case(key.replace("-", "_"))
    leading = len(key) - len(key.lstrip("_-"))
    if leading == len(key):
        return key
    trailing = len(key) - len(key.rstrip("_-"))
    return key[:leading] + converted[leading:len(converted) - trailing] + key[len(key) - trailing:]


def snake_case(key: str) -> str:
    """convertKeys to snake_case: Foundation's, a '-' read as '_'."""
    return to_snake_case(key.replace("-", "_"))


def kebab_case(key: str) -> str:
    """convertKeys to kebab-case: snake_case written with '-'."""
    return snake_case(key).replace("_", "-")


def op_convert_keys(rule: Rule, document: Any) -> Any:
    convert = {"camelCase": camel_case, "snake_case": snake_case, "kebab-case": kebab_case}[rule["to"]]
    return _rename_objects(rule, document, convert)


def op_rename_keys(rule: Rule, document: Any) -> Any:
    mapping = rule["map"]
    return _rename_objects(rule, document, lambda k: mapping.get(k, k))


def op_remove(rule: Rule, document: Any) -> Any:
    matching = rule["matching"]
    if matching is not None:
        for location, _, _ in edit_order(select(rule["path"], document)):
            value = get(document, location)
            if isinstance(value, dict):
                for name in [n for n in value if matching.fullmatch(n)]:
                    del value[name]
        return document
    for location, _, _ in edit_order(select(rule["path"], document)):
        parent = get(document, location[:-1])
        del parent[location[-1]]
    return document


def op_default(rule: Rule, document: Any) -> Any:
    key, value = rule["key"], rule["value"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        obj = get(document, location)
        if not isinstance(obj, dict):
            raise _Fail(location, "expected an object")
        if obj.get(key) is None:
            obj[key] = copy(value)  # a missing key is added at the end, a null one replaced in place
    return document


def op_coerce(rule: Rule, document: Any) -> Any:
    to, on_fail = rule["to"], rule["onFail"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        result = coerce_value(value, to)
        if result is _CANNOT:
            if on_fail == "error":
                raise _Fail(location, f"cannot coerce to {to}")
            result = None if on_fail == "null" else value
        document = put(document, location, result)
    return document


def op_empty_array_to_null(rule: Rule, document: Any) -> Any:
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if isinstance(value, list) and not value:
            document = put(document, location, None)
    return document


def op_keep(rule: Rule, document: Any) -> Any:
    members = set(rule["members"])
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _Fail(location, "expected an object")
        document = put(document, location, {k: v for k, v in value.items() if k in members})
    return document


def op_hoist(rule: Rule, document: Any) -> Any:
    member, on_missing = rule["member"], rule["onMissing"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _Fail(location, "expected an object")
        if member in value:
            document = put(document, location, value[member])
        elif on_missing == "error":
            raise _Fail(location, "missing member")
        elif on_missing == "null":
            document = put(document, location, None)
    return document


def op_pluck(rule: Rule, document: Any) -> Any:
    member, on_missing = rule["member"], rule["onMissing"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if value is None:
            continue
        if not isinstance(value, list):
            raise _Fail(location, "expected an array")
        plucked = []
        for index, element in enumerate(value):
            if element is not None and not isinstance(element, dict):
                raise _Fail(location + (index,), "expected an object")
            if element is not None and member in element:
                plucked.append(element[member])
            elif on_missing == "error":
                raise _Fail(location + (index,), "missing member")
            elif on_missing == "null":
                plucked.append(None)
        document = put(document, location, plucked)
    return document


def op_flatten(rule: Rule, document: Any) -> Any:
    member, prefix = rule["member"], rule["prefix"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _Fail(location, "expected an object")
        if member not in value:
            continue
        inner = value[member]
        if inner is None:
            del value[member]
            continue
        if not isinstance(inner, dict):
            raise _Fail(location + (member,), "expected an object")
        for name in inner:
            if prefix + name != member and prefix + name in value:
                raise _Fail(location + (member, name), "name taken")
        flattened: Dict[str, Any] = {}
        for name, item in value.items():
            if name == member:
                flattened.update((prefix + k, v) for k, v in inner.items())
            else:
                flattened[name] = item
        document = put(document, location, flattened)
    return document


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality as mapValues has it: numbers by exact value, objects whatever their order."""
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or a is None:
        return a is b
    if isinstance(a, Num):
        return isinstance(b, Num) and a.parts() == b.parts()
    return isinstance(b, str) and a == b


def op_map_values(rule: Rule, document: Any) -> Any:
    cases, on_other = rule["cases"], rule["onOther"]
    for location, _, _ in edit_order(select(rule["path"], document)):
        value = get(document, location)
        for source, target in cases:
            if json_equal(value, source):
                document = put(document, location, copy(target))
                break
        else:
            if on_other == "error":
                raise _Fail(location, "no case")
            if on_other == "null":
                document = put(document, location, None)
    return document


APPLY = {
    "unwrap": op_unwrap,
    "wrap": op_wrap,
    "keyedToArray": op_keyed_to_array,
    "arrayToKeyed": op_array_to_keyed,
    "emptyObjectToNull": op_empty_object_to_null,
    "blankStringToNull": op_blank_string_to_null,
    "convertKeys": op_convert_keys,
    "renameKeys": op_rename_keys,
    "remove": op_remove,
    "default": op_default,
    "coerce": op_coerce,
    "emptyArrayToNull": op_empty_array_to_null,
    "keep": op_keep,
    "hoist": op_hoist,
    "pluck": op_pluck,
    "flatten": op_flatten,
    "mapValues": op_map_values,
}


def apply(rules: List[Rule], document: Any) -> Any:
    document = copy(document)
    for rule in rules:
        try:
            document = APPLY[rule.op](rule, document)
        except _Fail as failure:
            raise ModelError("rule_failed", rule.index, normalized_path(failure.location), failure.message)
    return document


def run(rules_text: str, input_text: str) -> Any:
    """The model's answer for a rules document and an input, both JSON text."""
    try:
        rules_document = parse_json(rules_text)
    except ValueError as error:
        raise ModelError("invalid_rules", 0, "", str(error))
    rules = compile_rules(rules_document)
    try:
        document = parse_json(input_text)
    except ValueError as error:
        raise ModelError("invalid_json", 0, "", str(error))
    return apply(rules, document)
