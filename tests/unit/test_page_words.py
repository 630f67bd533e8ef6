"""The lineage page says every word in Chinese: the API's words it shows (every value of
every enum a field of its queries returns), the field names its details panel lists, and
every text key it looks up."""

from __future__ import annotations

import re
from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLSchema,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    build_schema,
    get_named_type,
    parse,
    visit,
)

from api.http.pages import STATIC

PAGE = STATIC / "lineage"
SCHEMA = build_schema((Path(__file__).resolve().parents[2] / "schema.graphql").read_text())
I18N = (PAGE / "i18n.js").read_text(encoding="utf-8")
CODE = "\n".join(p.read_text(encoding="utf-8") for p in sorted(PAGE.glob("*.js")))


def zh_keys(table: str, language: str = "zh") -> set[str]:
    """The keys of `const TABLE = { ..., zh: { ... } }` (or of its `language` table)."""
    start = I18N.index(f"  {language}: {{", I18N.index(f"const {table} = {{"))
    block = I18N[start : I18N.index("\n  },", start)]
    return set(re.findall(r'^    "?([\w.]+)"?:', block, re.MULTILINE))


def returned_enums(schema: GraphQLSchema) -> dict[str, GraphQLEnumType]:
    """Every enum type a field selected by the page's GraphQL documents returns."""
    found: dict[str, GraphQLEnumType] = {}

    class Fields(Visitor):
        def __init__(self, info: TypeInfo) -> None:
            super().__init__()
            self.info = info

        def enter_field(self, *_: object) -> None:
            named = get_named_type(self.info.get_type())
            if isinstance(named, GraphQLEnumType):
                found[named.name] = named

    for path in PAGE.glob("*.graphql"):
        info = TypeInfo(schema)
        visit(parse(path.read_text()), TypeInfoVisitor(info, Fields(info)))
    return found


def test_the_page_shows_the_enums_it_was_written_for() -> None:
    assert {
        "ThreadRelationship",
        "TransferType",
        "TransferStatus",
        "HandoffStatus",
        "ProviderThreadStatus",
        "RunStatus",
        "HandoffKind",
        "RunItemKind",
        "StalenessSignal",
        "StartStrategy",
        "ProviderAction",
        "SummarySource",
    } <= set(returned_enums(SCHEMA))


def test_every_enum_value_the_page_can_show_has_a_chinese_word() -> None:
    words = zh_keys("WORDS")
    missing = {
        f"{enum.name}.{value}"
        for enum in returned_enums(SCHEMA).values()
        for value in enum.values
        if value not in words
    }
    assert missing == set()


def test_every_field_name_and_text_key_the_page_uses_is_in_chinese() -> None:
    fields = set(re.findall(r"\bfield\(\"(\w+)\"\)", CODE))
    assert {"status", "summarySource", "resolutionStrategy"} <= fields
    assert fields - zh_keys("FIELDS") == set()
    keys = set(re.findall(r"\bt\(\"(\w+)\"", CODE))
    html = (PAGE / "index.html").read_text(encoding="utf-8")
    keys |= set(re.findall(r'data-i18n(?:-placeholder)?="(\w+)"', html))
    assert {"title", "noThread", "drift"} <= keys
    assert keys - zh_keys("STRINGS") == set()


# What each part of a drawn label means (its tooltip): by what the word is the status or
# kind of, in draw.js.
MEANT = {
    "relationship": "ThreadRelationship",
    "type": "TransferType",
    "transfer": "TransferStatus",
    "handoff": "HandoffStatus",
    "lane": "ProviderThreadStatus",
    "run": "RunStatus",
}


def test_every_word_of_a_drawn_label_has_a_meaning_in_both_languages() -> None:
    en, zh = zh_keys("MEANINGS", "en"), zh_keys("MEANINGS")
    assert en == zh
    enums = {name: SCHEMA.type_map[name] for name in MEANT.values()}
    wanted = {
        f"{prefix}.{value}"
        for prefix, name in MEANT.items()
        for value in enums[name].values  # type: ignore[attr-defined]
    }
    assert wanted - en == set()
    assert {"at", "drift", "rolledPast", "unmerged", "limited", "part"} <= en
