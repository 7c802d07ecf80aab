"""Where each key of a JSON document is written: key path -> 1-based line, and a bounded JSON reader.

Python's ``json`` module parses values but forgets positions. Error messages about a Tiled map must name the line
of the offending layer, object or property, so this module scans the text once more and records the line of
every object key and of every array item that is itself an object or an array. Paths use the same shape as the
parsed data: object keys are strings, array positions are ints, e.g. ``("layers", 2, "objects", 0)``. A scalar
array item (one number of a tile layer's ``data``) gets no entry of its own: ``line_of`` answers with its array's
line, and a 512 x 512 map's data is skipped in one regular-expression match instead of costing a dict entry per
tile.

``parse`` is the reader the content loader uses for JSON files: it refuses nesting deeper than ``max_depth``
before ``json`` recurses into it, refuses ``NaN``/``Infinity`` and numbers that are not finite or have absurdly
many digits, and reports every failure as a ``JsonError`` with a line and column. It never evaluates anything.
"""
from __future__ import annotations

import json
import math
import re
from bisect import bisect_right

from content.toml_lines import line_of

#: a string, a structural character, or a whole array holding no string, object or array (a layer's data)
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_TOKEN = re.compile(_STRING + r'|\[[^"\[\]{}]*\]|[{}\[\]:,]')
MAX_DIGITS = 40          # a float literal longer than this (plus 10 for sign and exponent) is refused


class JsonError(ValueError):
    """A JSON text that cannot be read: ``line`` and ``column`` are 1-based (None when unknown)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class _Lines:
    """Offsets -> 1-based (line, column)."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, pos: int) -> tuple[int, int]:
        i = bisect_right(self.starts, pos)
        return i, pos - self.starts[i - 1] + 1


def _scan(text: str, lines: _Lines, max_depth: int) -> dict[tuple, int]:
    """Key path -> line for ``text``; tolerant of invalid JSON (``json`` reports that), strict about depth."""
    out: dict[tuple, int] = {}
    # one frame per open container: [path, is_object, next array index, the key awaiting its value]
    stack: list[list] = []
    expect_key = False
    for m in _TOKEN.finditer(text):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if stack and stack[-1][1] and expect_key:
                key = json.loads(tok) if "\\" in tok else tok[1:-1]
                stack[-1][3] = key
                out[stack[-1][0] + (key,)] = lines.at(m.start())[0]
                expect_key = False
            continue
        if c == ":":
            continue
        if c in "]}":
            if stack:
                stack.pop()
            continue
        if c == ",":
            if stack:
                frame = stack[-1]
                if frame[1]:
                    expect_key = True
                else:
                    frame[2] += 1
            continue
        # "{", "[" or a whole scalar array: a value that is a container
        if stack:
            frame = stack[-1]
            path = frame[0] + ((frame[3],) if frame[1] else (frame[2],))
            if not frame[1]:
                out[path] = lines.at(m.start())[0]
        else:
            path = ()
        if len(stack) >= max_depth:
            line, col = lines.at(m.start())
            raise JsonError(f"nesting is deeper than {max_depth} levels", line, col)
        if len(tok) > 1:            # "[...]" of scalars: opened and closed in one token
            continue
        stack.append([path, c == "{", 0, None])
        expect_key = c == "{"
    return out


def key_lines(text: str, max_depth: int = 64) -> dict[tuple, int]:
    """Map every key path in ``text`` (JSON) to the line it is written on. Raises JsonError when too deep."""
    return _scan(text, _Lines(text), max_depth)


class _Refused(Exception):
    def __init__(self, token: str, message: str):
        self.token = token
        self.message = message


def _constant(token: str):
    raise _Refused(token, f"{token} is not a number JSON allows")


def _float(token: str) -> float:
    if len(token) > MAX_DIGITS + 10:
        raise _Refused(token, f"a number written with {len(token)} characters is too long")
    value = float(token)
    if not math.isfinite(value):
        raise _Refused(token, f"{token} is out of range")
    return value


def _where(text: str, lines: _Lines, pattern: str) -> tuple[int | None, int | None]:
    """Position of the first match of the regular expression ``pattern`` outside strings."""
    for m in re.finditer(_STRING + "|" + pattern, text):
        if not m.group().startswith('"'):
            return lines.at(m.start())
    return None, None


def parse(text: str, max_depth: int = 64) -> tuple[object, dict[tuple, int]]:
    """Parse ``text`` as strict JSON; return (value, key path -> line). Raises JsonError with a position."""
    lines = _Lines(text)
    found = _scan(text, lines, max_depth)
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError:              # Python's own cap on integer digits (4300): what json parses ints with
        line, col = _where(text, lines, r"\d{%d,}" % (MAX_DIGITS + 1))
        raise JsonError("a whole number with too many digits", line, col) from None
    except _Refused as exc:
        line, col = _where(text, lines, re.escape(exc.token))
        raise JsonError(exc.message, line, col) from None
    except RecursionError:     # pragma: no cover - the scan refuses this depth first
        raise JsonError(f"nesting is deeper than {max_depth} levels") from None
    return value, found


__all__ = ["JsonError", "key_lines", "line_of", "parse"]
