"""The text limit applies to the arguments named for it: each name in TEXT_ARGUMENTS is
spelled as the schema spells an argument or input field (a snake_case name would never
match, and its text would get the 500-character limit of a name)."""

from __future__ import annotations

from pathlib import Path

from graphql import GraphQLInputObjectType, GraphQLObjectType, build_schema

from api.graphql.input_sizes import FILE_ARGUMENTS, TEXT_ARGUMENTS

SCHEMA = Path(__file__).resolve().parents[2] / "schema.graphql"


def schema_names() -> set[str]:
    schema = build_schema(SCHEMA.read_text())
    names: set[str] = set()
    for kind in schema.type_map.values():
        if isinstance(kind, GraphQLObjectType):
            for field in kind.fields.values():
                names.update(field.args)
        elif isinstance(kind, GraphQLInputObjectType):
            names.update(kind.fields)
    return names


def test_every_text_and_file_argument_is_named_as_the_schema_names_it() -> None:
    assert (TEXT_ARGUMENTS | FILE_ARGUMENTS) - schema_names() == set()
