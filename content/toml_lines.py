"""Where each key of a TOML document is written: key path -> 1-based line.

``tomllib`` parses values but forgets positions. Error messages must name the
line of the offending key, so this module scans the (already valid) text once
more and records the line of every key, table header, array-of-tables entry
and array item. Paths use the same shape as the parsed data: table keys are
strings, array positions are ints, e.g. ``("teams", 0, "spawns", 1, "unit")``.
It never evaluates anything; it only walks the text.
"""
from __future__ import annotations

_BARE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Scanner:
    def __init__(self, text: str):
        self.s = text
        self.i = 0
        self.line = 1
        self.lines: dict[tuple, int] = {}
        self.aot_index: dict[tuple, int] = {}

    # -- low level -------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def advance(self, n: int = 1) -> None:
        for _ in range(n):
            if self.i < len(self.s):
                if self.s[self.i] == "\n":
                    self.line += 1
                self.i += 1

    def skip_inline_ws(self) -> None:
        while self.peek() in (" ", "\t", "\r") and self.peek() != "":
            self.advance()

    def skip_comment(self) -> None:
        if self.peek() == "#":
            while self.peek() not in ("\n", ""):
                self.advance()

    def skip_ws_newlines_comments(self) -> None:
        while True:
            c = self.peek()
            if c in (" ", "\t", "\r", "\n") and c != "":
                self.advance()
            elif c == "#":
                self.skip_comment()
            else:
                return

    def record(self, path: tuple, line: int) -> None:
        self.lines.setdefault(path, line)

    # -- strings and keys ------------------------------------------------
    def read_string(self) -> str:
        q = self.peek()
        if self.s.startswith(q * 3, self.i):
            self.advance(3)
            start = self.i
            while self.i < len(self.s) and not self.s.startswith(q * 3, self.i):
                if q == '"' and self.peek() == "\\":
                    self.advance()
                self.advance()
            value = self.s[start:self.i]
            self.advance(3)
            while self.peek() == q:  # up to two quotes may close the string
                self.advance()
            return value
        self.advance()
        out = []
        while self.peek() not in (q, "\n", ""):
            if q == '"' and self.peek() == "\\":
                self.advance()
                out.append(self.peek())
                self.advance()
                continue
            out.append(self.peek())
            self.advance()
        self.advance()
        return "".join(out)

    def read_key(self) -> tuple:
        parts = []
        while True:
            self.skip_inline_ws()
            c = self.peek()
            if c in ('"', "'"):
                parts.append(self.read_string())
            else:
                start = self.i
                while self.peek() in _BARE and self.peek() != "":
                    self.advance()
                parts.append(self.s[start:self.i])
            self.skip_inline_ws()
            if self.peek() == ".":
                self.advance()
                continue
            return tuple(parts)

    # -- values ----------------------------------------------------------
    def read_value(self, path: tuple) -> None:
        c = self.peek()
        if c in ('"', "'"):
            self.read_string()
        elif c == "[":
            self.advance()
            index = 0
            while True:
                self.skip_ws_newlines_comments()
                if self.peek() in ("]", ""):
                    self.advance()
                    return
                self.record(path + (index,), self.line)
                self.read_value(path + (index,))
                index += 1
                self.skip_ws_newlines_comments()
                if self.peek() == ",":
                    self.advance()
        elif c == "{":
            self.advance()
            while True:
                self.skip_inline_ws()
                if self.peek() in ("}", ""):
                    self.advance()
                    return
                line = self.line
                key = self.read_key()
                self.record(path + key, line)
                self.skip_inline_ws()
                if self.peek() == "=":
                    self.advance()
                self.skip_inline_ws()
                self.read_value(path + key)
                self.skip_inline_ws()
                if self.peek() == ",":
                    self.advance()
        else:
            while self.peek() not in (",", "]", "}", "\n", "#", ""):
                self.advance()

    # -- document ----------------------------------------------------------
    def resolve_header(self, key: tuple) -> tuple:
        """Insert the current array-of-tables index after each AOT prefix."""
        out: tuple = ()
        for part in key:
            out = out + (part,)
            if out in self.aot_index:
                out = out + (self.aot_index[out],)
        return out

    def run(self) -> dict[tuple, int]:
        table: tuple = ()
        while self.i < len(self.s):
            self.skip_ws_newlines_comments()
            if self.i >= len(self.s):
                break
            line = self.line
            if self.peek() == "[":
                aot = self.peek(1) == "["
                self.advance(2 if aot else 1)
                key = self.read_key()
                self.advance(2 if aot else 1)
                if aot:
                    base = self.resolve_header(key[:-1]) + (key[-1],)
                    self.aot_index[base] = self.aot_index.get(base, -1) + 1
                    table = base + (self.aot_index[base],)
                    self.record(base, line)
                else:
                    table = self.resolve_header(key)
                self.record(table, line)
            else:
                key = self.read_key()
                self.record(table + key, line)
                self.skip_inline_ws()
                if self.peek() == "=":
                    self.advance()
                self.skip_inline_ws()
                self.read_value(table + key)
            self.skip_inline_ws()
            self.skip_comment()
        return self.lines


def key_lines(text: str) -> dict[tuple, int]:
    """Map every key path in ``text`` (valid TOML) to the line it is written on."""
    try:
        return _Scanner(text).run()
    except (IndexError, ValueError):  # pragma: no cover - text is valid TOML already
        return {}


def line_of(lines: dict[tuple, int], path: tuple) -> int | None:
    """Line of ``path``, or of its longest recorded prefix; None when unknown."""
    path = tuple(path)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None
