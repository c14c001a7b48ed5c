"""gojsonschema v1.2.0 compile errors, as vMCP reports them for parameters and schemas."""

from __future__ import annotations

import pytest

from transpiler.config.schema_compile import go_regexp_compiles, schema_compile_error

COMPILE_ERRORS: list[tuple[dict[str, object], str | None]] = [
    ({"type": "object"}, None),
    ({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}, None),
    ({"type": ["string", "null"]}, None),
    (
        {"type": "text"},
        "has a primitive type that is NOT VALID -- given: /text/ Expected valid values "
        "are:[array boolean integer number null object string]",
    ),
    ({"type": ["string", "string"]}, "string type is duplicated"),
    ({"type": 5}, "Invalid type. Expected: string/array of strings, given: type"),
    ({"title": 5}, "Invalid type. Expected: string, given: title"),
    ({"properties": []}, "properties must be of type object"),
    ({"properties": {"a": 5}}, "Expected: valid schema, given: Invalid JSON"),
    ({"properties": {"a": True}}, None),
    ({"minLength": -1}, "minLength must be greater than or equal to 0"),
    ({"minLength": 1.5}, "minLength must be of an integer"),
    ({"minLength": 3, "maxLength": 2}, "minLength cannot be greater than maxLength"),
    ({"minItems": 3, "maxItems": 2}, None),
    (
        {"minProperties": 3, "maxProperties": 2},
        "minProperties cannot be greater than maxProperties",
    ),
    ({"multipleOf": 0}, "multipleOf must be strictly greater than 0"),
    ({"multipleOf": "2"}, "Invalid type. Expected: number, given: multipleOf"),
    ({"minimum": "0"}, "minimum must be of a number"),
    ({"exclusiveMinimum": True}, "exclusiveMinimum cannot be used without minimum"),
    ({"exclusiveMinimum": 1}, None),
    (
        {"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMaximum": 1},
        "Invalid type. Expected: boolean, given: exclusiveMaximum",
    ),
    ({"required": "a"}, "required must be of an array"),
    ({"required": ["a", "a"]}, "required items must be unique"),
    ({"required": [1]}, "required items must be string"),
    ({"enum": [1, 1.0]}, "enum items must be unique"),
    ({"enum": [1, True]}, None),
    ({"enum": "a"}, "enum must be of an array"),
    ({"allOf": {}}, "anyOf must be of an array"),
    ({"not": 1}, "not must be of an object"),
    ({"pattern": "(?=x)"}, "pattern must be a valid regex"),
    ({"pattern": "^[a-z]+$"}, None),
    ({"patternProperties": {"(": {}}}, "Invalid regex pattern '('"),
    ({"items": 1}, "Invalid type. Expected: valid schema/array of schemas, given: items"),
    (
        {"additionalProperties": 1},
        "Invalid type. Expected: boolean/valid schema, given: additionalProperties",
    ),
    ({"dependencies": {"a": 1}}, "dependency must be of type schema or array of strings"),
    ({"$ref": "#/definitions/missing"}, "Object has no key 'definitions'"),
    ({"definitions": {}, "$ref": "#/definitions/missing"}, "Object has no key 'missing'"),
    ({"$ref": "https://example.com/schema.json", "type": "bogus"}, None),
    ({"definitions": {"a": {"type": "string"}}, "$ref": "#/definitions/a"}, None),
    ({"$ref": "other.json"}, "Reference other.json must be canonical"),
    ({"$ref": "#/definitions/a", "type": "bogus", "definitions": {"a": {}}}, None),
    ({"$schema": 7}, "$schema must be of type string"),
    ({"format": 1}, "format must be of type string"),
    ({"uniqueItems": "yes"}, "uniqueItems must be of a boolean"),
]


@pytest.mark.parametrize(
    ("schema", "expected"), COMPILE_ERRORS, ids=[str(s) for s, _ in COMPILE_ERRORS]
)
def test_compile_error(schema: dict[str, object], expected: str | None) -> None:
    assert schema_compile_error(schema) == expected


@pytest.mark.parametrize(
    ("pattern", "valid"), [("a(b", False), (r"\d+", True), (r"(a)\1", False), (r"\pL+", True)]
)
def test_go_regexp(pattern: str, valid: bool) -> None:
    assert go_regexp_compiles(pattern) is valid
