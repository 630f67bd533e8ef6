"""The lineage page in Chinese on a machine with no CJK font: its own font, every word.

The box these tests run on has no CJK font installed (Debian's chromium alone), so a
Chinese glyph on screen comes from the page's vendored subset or is an empty box.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import Demo, Tab
from tests.browser.test_lineage_page import open_lineage, stays_home
from tests.unit.test_page_words import SCHEMA, returned_enums

FAMILY = "Threadline Noto Sans SC"
FONT_FILE = "/static/vendor/noto-sans-sc/noto-sans-sc-400.woff2"

# A known string drawn and measured on a canvas: with the page's font, and with the
# browser's Latin fallback alone (monospace). Each CJK glyph of Noto Sans SC is one em wide,
# and two different characters draw two different pictures; the fallback, having no CJK
# glyph, draws every one as the same empty box.
CANVAS = """async ([family, text]) => {
  const canvas = document.createElement("canvas");
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const picture = (font, char) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font;
    ctx.fillText(char, 4, 50);
    return ctx.getImageData(0, 0, 64, 64).data.join(",");
  };
  const ours = `40px "${family}", monospace`;
  const latin = "40px monospace";
  const measure = (font) => { ctx.font = font; return ctx.measureText(text).width; };
  return {
    loaded: document.fonts.check(`12px "${family}"`, text),
    oursWidth: measure(ours),
    latinWidth: measure(latin),
    oursDistinct: picture(ours, text[0]) !== picture(ours, text[1]),
    latinDistinct: picture(latin, text[0]) !== picture(latin, text[1]),
    oursInk: picture(ours, text[0]) !== picture(latin, text[0]),
  };
}"""


async def platform_fonts(tab: Tab, selector: str) -> list[dict[str, Any]]:
    """The fonts Chromium drew the element's text with (DevTools' "Rendered Fonts")."""
    cdp = await tab.page.context.new_cdp_session(tab.page)
    await cdp.send("DOM.enable")
    await cdp.send("CSS.enable")
    root = await cdp.send("DOM.getDocument")
    asked = {"nodeId": root["root"]["nodeId"], "selector": selector}
    node = await cdp.send("DOM.querySelector", asked)
    fonts = await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
    await cdp.detach()
    return list(fonts["fonts"])


async def test_lang_zh_renders_cjk_glyphs_from_the_vendored_font(tab: Tab, demo: Demo) -> None:
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=zh")
    page = tab.page
    assert await page.text_content("h1") == "线程谱系"
    await page.evaluate("document.fonts.ready.then(() => true)")
    # The heading's and a button's text, drawn by the vendored font (a custom font, not a
    # system one).
    for selector, glyphs in (("h1", 4), ("#show", 2)):
        fonts = await platform_fonts(tab, selector)
        used = [(f["familyName"], f["isCustomFont"], f["glyphCount"]) for f in fonts]
        assert used == [("Noto Sans SC", True, glyphs)], (selector, fonts)
    # The graph's canvas text: the font is loaded, and a known string drawn with it has
    # real glyphs, one em each, where the Latin fallback has only empty boxes.
    drawn = await page.evaluate(CANVAS, [FAMILY, "线程谱系"])
    assert drawn["loaded"]
    assert drawn["oursWidth"] == pytest.approx(4 * 40, abs=0.5)
    assert drawn["latinWidth"] != pytest.approx(4 * 40, abs=0.5), drawn
    assert drawn["oursDistinct"] and drawn["oursInk"]
    assert not drawn["latinDistinct"], "this box has a CJK font: the check proves nothing here"
    assert any(url.endswith(FONT_FILE) for url in tab.urls)
    stays_home(tab, demo.base)
    await tab.screenshot("lineage-zh-font")


async def test_an_english_page_does_not_load_the_chinese_font_for_its_text(
    tab: Tab, demo: Demo
) -> None:
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=en")
    fonts = await platform_fonts(tab, "h1")
    assert all(f["familyName"] != "Noto Sans SC" for f in fonts), fonts


# Every value of every enum the page's queries return: the API's words the page may show.
API_WORDS = {value for enum in returned_enums(SCHEMA).values() for value in enum.values}
UPPER = re.compile(r"\b[A-Z][A-Z_]+\b")

# What the page says in its own words: the body's text less what users wrote (run inputs,
# item texts, summaries in <pre>, titles), and every drawn element's label and tooltip.
SAID = """() => {
  const copy = document.body.cloneNode(true);
  for (const el of copy.querySelectorAll("pre, ol.items div, textarea, script")) el.remove();
  const cy = window.threadline.cy;
  const own = cy.elements().filter((e) => !["title", "thread"].includes(e.data("kind")));
  return [copy.innerText, ...own.map((e) => [e.data("label"), e.data("full"), e.data("text"),
    e.data("explain")].filter(Boolean).join(" "))].join("\\n");
}"""


async def english_words(tab: Tab) -> set[str]:
    said = await tab.page.evaluate(SAID)
    return set(UPPER.findall(said)) & API_WORDS


async def first(tab: Tab, selector: str) -> str:
    found = await tab.page.evaluate(
        "(s) => window.threadline.cy.elements(s).filter((e) => e.data('ref')).map((e) => e.id())",
        selector,
    )
    assert found, selector
    return str(found[0])


async def centred(tab: Tab, element_id: str) -> dict[str, float]:
    """Where a drawn element is on the page, once brought to the middle of the view."""
    point: dict[str, float] = await tab.page.evaluate(
        """(id) => {
          const cy = window.threadline.cy;
          const node = cy.getElementById(id);
          cy.zoom(1.5);
          cy.center(node);
          const at = node.renderedPosition();
          const box = cy.container().getBoundingClientRect();
          return { x: box.left + at.x, y: box.top + at.y };
        }""",
        element_id,
    )
    return point


async def click_centred(tab: Tab, element_id: str) -> None:
    """A real mouse click on a drawn element, first brought to the middle of the view."""
    point = await centred(tab, element_id)
    await tab.page.mouse.click(point["x"], point["y"])


async def test_no_english_status_or_kind_word_remains_in_zh(tab: Tab, demo: Demo) -> None:
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=zh")
    seen: dict[str, set[str]] = {"graph": await english_words(tab)}
    # The same words, in English, as the API spells them (so the check can see them).
    english = await open_english(tab, demo)
    assert {"FORK", "ACTIVE", "CONSUMED"} <= english
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=zh")
    for kind in ("run", "lane", "handoff", "opening", "back", "title"):
        element = await first(tab, f"[kind='{kind}']")
        await click_centred(tab, element)
        await tab.page.wait_for_selector(f"#details[data-kind='{kind}']")
        if kind == "title":  # a thread's "Prepare a switch": the plan's strategy and action
            await tab.page.click("#switch-read")
            await tab.page.wait_for_selector("#switch-plan dl")
            await tab.page.wait_for_selector("#switch-text:not([hidden])")
        seen[kind] = await english_words(tab)
    assert {kind: words for kind, words in seen.items() if words} == {}
    await tab.screenshot("lineage-zh-words")
    stays_home(tab, demo.base)


async def open_english(tab: Tab, demo: Demo) -> set[str]:
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=en")
    return await english_words(tab)


async def tooltip(tab: Tab, element_id: str) -> list[str]:
    """The graph's tooltip while the mouse is over the element, a line each."""
    await tab.page.mouse.move(0, 0)
    point = await centred(tab, element_id)
    await tab.page.mouse.move(point["x"], point["y"])
    await tab.page.wait_for_function("document.querySelector('#graph').title !== ''")
    title = await tab.page.get_attribute("#graph", "title")
    return (title or "").split("\n")


# How a tooltip line explains a part of a label, in each language.
EXPLAINS = {"en": " — ", "zh": "\uff1a"}  # a fullwidth colon


def label_parts(label: str) -> list[str]:
    """ "FORK @5 · CONSUMED · source +7" → FORK, @5, CONSUMED, source +7 ("↑ X" → ↑, X)."""
    parts = []
    for chunk in label.split(" · "):
        if chunk.startswith("↑ "):
            parts += ["↑", chunk[2:]]
        elif " @" in chunk:
            kind, point = chunk.split(" @", 1)
            parts += [kind, f"@{point}"]
        else:
            parts.append(chunk)
    return parts


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_each_part_of_a_label_is_explained_on_hover(tab: Tab, demo: Demo, lang: str) -> None:
    """ "FORK @5 · CONSUMED · source +7": what FORK, @5, CONSUMED and source +7 mean."""
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang={lang}")
    graph = await tab.page.evaluate("window.threadline.graph()")
    [drifted, *_] = [
        e
        for e in graph["edges"]
        if e["relationship"] == "FORK" and (e["divergence"] or {}).get("sourceRunsSinceFork")
    ]
    lane = await first(tab, "[kind='lane']")
    back = await first(tab, "[kind='back']")
    for element in (f"opening:{drifted['to']}", lane, back):
        label, *lines = await tooltip(tab, element)
        parts = label_parts(label)
        if element.startswith("opening:"):
            assert len(parts) >= 4, label  # kind, point, status, drift
        for part in parts:
            said = [line for line in lines if line.startswith(part + EXPLAINS[lang])]
            assert said, (part, label, lines)
            assert len(said[0]) > len(part) + 6  # it says something
    if lang == "zh":
        assert all(not UPPER.search(line) for line in lines), lines
    await tab.screenshot(f"lineage-hover-{lang}")
