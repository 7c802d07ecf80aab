"""Bounds on a TOML text, checked before ``tomllib`` parses it, and where a syntax error is.

``tomllib`` recurses once per nested array or inline table (a few thousand brackets raise ``RecursionError``),
turns a 5,000-digit integer into a ``ValueError``, and builds a dotted key of any length into nested tables
that every later step (merging, copying, validation) would walk recursively. ``scan`` walks the text once,
without recursion, skipping strings and comments, and refuses:

- nesting deeper than ``MAX_NESTING`` (32) levels, counting table headers, dotted keys, arrays and inline
  tables together (content needs 6);
- a run of more than ``MAX_DIGITS`` (100) digits outside strings.

It also remembers where the outermost bracket that is never closed was opened, so "Unclosed array (at end of
document)" can name its line and column. Everything else is left to ``tomllib``.

    >>> scan('x = [[1, 2], {a.b = 3}]').problem is None
    True
    >>> scan('x = ' + '[' * 40 + ']' * 40).problem
    (1, 37, 'nested 33 levels deep; content is limited to 32')
    >>> scan('x = 1' + '0' * 120).problem
    (1, 5, 'a number of 121 digits; content numbers are limited to 100')
    >>> scan('a = 1\\nb = [1,\\n  2\\n').unclosed
    (2, 5, '[')
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

MAX_NESTING = 32
MAX_DIGITS = 100

_TOKEN = re.compile(r'"""|\'\'\'|"|\'|#|[\[\]{}=,.\n]|[0-9_]{%d,}' % (MAX_DIGITS + 1))
_BASIC = re.compile(r'(?:[^"\\\n]|\\.)*"')
_ML_BASIC = re.compile(r'(?:[^\\]|\\.)*?"""', re.S)
_LINE_END = re.compile(r"\n")


@dataclass
class Scan:
    """``problem``: ``(line, column, message)`` for the first bound broken, or None; ``unclosed``: ``(line,
    column, bracket)`` of the outermost ``[`` or ``{`` never closed, or None."""
    problem: tuple | None = None
    unclosed: tuple | None = None


def position(text: str, offset: int, starts: list | None = None) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text``.

    >>> position("ab\\ncd", 4)
    (2, 2)
    """
    starts = starts if starts is not None else line_starts(text)
    i = bisect.bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i] + 1


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character."""
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def scan(text: str) -> Scan:
    """Check ``text`` against the bounds above; see the module docstring."""
    starts = line_starts(text)
    out = Scan()
    stack: list[tuple[str, int, int]] = []     # (bracket, its offset, key dots when it opened)
    header = 0                                  # the nesting of the current [table] or [[array]] header
    dots = 0                                    # dots of the key being read, at every level
    key_mode = True
    pos = 0
    n = len(text)

    def fail(offset: int, message: str) -> Scan:
        out.problem = position(text, offset, starts) + (message,)
        return out

    while pos < n:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        tok, at = m.group(), m.start()
        pos = m.end()
        if tok == '"':
            end = _BASIC.match(text, pos)
            pos = end.end() if end else n
        elif tok == "'":
            end = text.find("'", pos)
            pos = end + 1 if end >= 0 else n
        elif tok == '"""':
            end = _ML_BASIC.match(text, pos)
            pos = end.end() if end else n
        elif tok == "'''":
            end = text.find("'''", pos)
            pos = end + 3 if end >= 0 else n
        elif tok == "#":
            end = text.find("\n", pos)
            pos = end if end >= 0 else n
        elif tok == "\n":
            if not stack:
                key_mode, dots = True, 0
        elif tok[0] in "0123456789_":
            return fail(at, f"a number of {len(tok.replace('_', ''))} digits; content numbers are limited to "
                            f"{MAX_DIGITS}")
        elif tok == "[" and not stack and key_mode:          # a table header: [a.b] or [[a.b]]
            end = text.find("\n", pos)
            end = end if end >= 0 else n
            line = text[at:end]
            level = line.count(".", 0, line.find("]") if "]" in line else len(line)) + 1
            level += 1 if line.startswith("[[") else 0
            if level > MAX_NESTING:
                return fail(at, f"nested {level} levels deep; content is limited to {MAX_NESTING}")
            header = level
            pos = end
        elif tok in "[{":
            stack.append((tok, at, dots))
            key_mode = tok == "{"
            if header + dots + len(stack) > MAX_NESTING:
                return fail(at, f"nested {header + dots + len(stack)} levels deep; content is limited to "
                                f"{MAX_NESTING}")
        elif tok in "]}":
            if stack:
                dots = stack.pop()[2]
            key_mode = False
        elif tok == "=":
            key_mode = False
        elif tok == ",":
            if stack and stack[-1][0] == "{":
                key_mode, dots = True, stack[-1][2]
        elif tok == "." and key_mode:
            dots += 1
            if header + dots + len(stack) + 1 > MAX_NESTING:
                return fail(at, f"nested {header + dots + len(stack) + 1} levels deep; content is limited to "
                                f"{MAX_NESTING}")
    if stack:
        bracket, at, _ = stack[0]
        out.unclosed = position(text, at, starts) + (bracket,)
    return out
