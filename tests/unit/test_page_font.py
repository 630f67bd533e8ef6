"""The lineage page's own Chinese font holds every character of its Chinese text.

scripts/subset-cjk-font cuts Noto Sans SC to the non-ASCII characters of i18n.js's `zh`
tables; a zh string changed without running it again fails here, naming what is missing.
"""

from __future__ import annotations

import json
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType

import pytest

from api.http.pages import STATIC

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "subset-cjk-font"
VENDOR = STATIC / "vendor"


def script() -> ModuleType:
    loader = SourceFileLoader("subset_cjk_font", str(SCRIPT))
    spec = spec_from_loader(loader.name, loader)
    assert spec is not None
    module = module_from_spec(spec)
    loader.exec_module(module)
    return module


SUBSET = script()
FONTS: list[Path] = SUBSET.font_files()


def test_the_zh_text_is_read_from_the_zh_table_only() -> None:
    text = SUBSET.zh_text()
    assert {"线", "程", "谱", "系", "\uff08", "\uff1a"} <= set(text)  # fullwidth ( and :
    assert all(ord(c) > 0x7F for c in text)
    assert len(text) == len(set(text))
    table = '  en: {\n    a: "é",\n  },\n  zh: {\n    a: "线",\n    b: (n) => `${n} 条`,\n  },\n};'
    words = '\nconst W = {\n  zh: {\n    FORK: "分叉",\n  },\n};\n// 注'
    assert SUBSET.zh_text(table) == "条线"
    assert SUBSET.zh_text(table + words) == "".join(sorted("条线分叉"))


@pytest.mark.parametrize("font", FONTS, ids=lambda p: p.name)
def test_every_zh_character_has_a_glyph_in_the_subset(font: Path) -> None:
    assert SUBSET.missing(font, SUBSET.zh_text()) == "", "run scripts/subset-cjk-font"


def test_a_character_the_subset_lacks_is_found() -> None:
    assert "龘" not in SUBSET.zh_text()
    assert SUBSET.missing(FONTS[0], "线龘") == "龘"


def test_the_subsets_are_small_woff2_with_their_ofl_licence() -> None:
    pin = json.loads((VENDOR / "manifest.json").read_text())["subsets"][0]
    assert pin["license"] == "OFL-1.1"
    assert len(FONTS) == 2
    for font in FONTS:
        assert font.read_bytes()[:4] == b"wOF2"
        assert font.stat().st_size < 200_000  # the whole font is 10 MB a weight
    licence = [VENDOR / dest for dest in pin["files"].values()]
    assert [p.name for p in licence] == ["OFL.txt"]
    assert "SIL Open Font License, Version 1.1" in licence[0].read_text()
    assert licence[0].parent == FONTS[0].parent
