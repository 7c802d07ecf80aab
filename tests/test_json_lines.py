"""The JSON key -> line locator and the bounded JSON reader (content/json_lines.py)."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from content.json_lines import JsonError, key_lines, line_of, parse

DOC = """{
  "width": 4,
  "layers": [
    {
      "data": [1, 2,
               3, 4],
      "name": "ground"
    },
    {"objects": [
        {"x": 16, "y": 16},
        {"x": 48,
         "properties": [{"name": "index", "value": 1}]}
      ]}
  ],
  "k\\u0065y": "escaped",
  "nested": [[1], [{"deep": true}]]
}
"""


def test_every_key_and_container_item_has_its_line():
    lines = key_lines(DOC)
    assert lines[("width",)] == 2
    assert lines[("layers",)] == 3
    assert lines[("layers", 0)] == 4
    assert lines[("layers", 0, "data")] == 5
    assert lines[("layers", 0, "name")] == 7
    assert lines[("layers", 1)] == 9
    assert lines[("layers", 1, "objects", 0)] == 10
    assert lines[("layers", 1, "objects", 0, "y")] == 10
    assert lines[("layers", 1, "objects", 1)] == 11
    assert lines[("layers", 1, "objects", 1, "properties", 0, "value")] == 12
    assert lines[("key",)] == 15                       # an escaped key is decoded
    assert lines[("nested", 0)] == 16 and lines[("nested", 1, 0, "deep")] == 16


def test_a_scalar_item_answers_with_its_arrays_line():
    lines = key_lines(DOC)
    assert ("layers", 0, "data", 3) not in lines      # a tile layer's numbers get no entry each
    assert line_of(lines, ("layers", 0, "data", 3)) == 5
    assert line_of(lines, ("nowhere",)) is None


def test_strings_holding_brackets_and_quotes_do_not_confuse_it():
    text = '{\n"a": "[{\\"x\\": 1}",\n"b": {"c": "}"},\n"d": 1\n}'
    assert key_lines(text) == {("a",): 2, ("b",): 3, ("b", "c"): 3, ("d",): 4}


def test_parse_returns_the_value_and_the_lines():
    value, lines = parse(DOC)
    assert value == json.loads(DOC)
    assert lines == key_lines(DOC)


@pytest.mark.parametrize("text,line,column,message", [
    ('{\n  "a": 1,\n  "b": }', 3, 8, "Expecting value"),
    ('{"a": 1,}', 1, 9, "Expecting property name enclosed in double quotes"),
    ('{\n"a": NaN}', 2, 6, "NaN is not a number JSON allows"),
    ('{"a": -Infinity}', 1, 7, "-Infinity is not a number JSON allows"),
    ('{"a": 1e999}', 1, 7, "1e999 is out of range"),
    ('{"a": "' + "9" * 50 + '", "b": ' + "9" * 5000 + "}", 1, 66, "a whole number with too many digits"),
    ("[" * 65 + "]" * 65, 1, 65, "nesting is deeper than 64 levels"),
])
def test_bad_json_is_refused_with_a_position(text, line, column, message):
    with pytest.raises(JsonError) as err:
        parse(text)
    assert (err.value.line, err.value.column, err.value.message) == (line, column, message)


def test_deep_nesting_is_refused_before_json_recurses():
    with pytest.raises(JsonError, match="deeper than 8"):
        parse('{"a": ' * 9 + "1" + "}" * 9, max_depth=8)
    parse('{"a": ' * 8 + "1" + "}" * 8, max_depth=8)          # exactly the limit is fine
    with pytest.raises(JsonError, match="deeper than 64"):
        parse("[" * 100_000 + "]" * 100_000)                 # would be a RecursionError in json


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**9, 10**9) | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids, max_size=4),
    max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from([None, 1, 2]))
def test_every_recorded_line_holds_its_key(value, indent):
    """Against json.dumps output: each object key's recorded line is the line that key is written on."""
    text = json.dumps(value, indent=indent)
    got, lines = parse(text)
    assert got == value
    rows = text.split("\n")

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                assert json.dumps(k) + ":" in rows[lines[path + (k,)] - 1]
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    assert path + (i,) in lines
                    walk(v, path + (i,))
    walk(value, ())
