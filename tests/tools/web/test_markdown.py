"""HTML → Markdown, and the prompt-guided selection for pages over the cap."""

from __future__ import annotations

from bot.tools.web.markdown import html_to_markdown, prompt_terms, select_for_prompt


def test_html_becomes_markdown_without_scripts_and_with_absolute_links() -> None:
    html = """<html><head><title> Docs </title><script>x()</script></head><body>
    <h2>Install</h2><p>Run <code>pip install x</code>, see <a href="../faq">FAQ</a>.</p>
    <table><tr><th>a</th></tr><tr><td>1</td></tr></table><noscript>enable js</noscript></body></html>"""
    text, title = html_to_markdown(html, base_url="https://example.org/docs/guide/")
    assert title == "Docs"
    assert text.startswith("## Install") and "`pip install x`" in text
    assert "[FAQ](https://example.org/docs/faq)" in text
    assert "x()" not in text and "enable js" not in text and "\n\n\n" not in text


def test_a_page_within_the_budget_is_returned_whole() -> None:
    selection = select_for_prompt("short page", "anything", budget=100)
    assert selection.text == "short page" and not selection.reduced


def test_a_long_page_keeps_the_opening_and_the_sections_the_prompt_names() -> None:
    sections = [f"## Section {i}\n\n" + "filler words here. " * 50 for i in range(20)]
    sections[13] = "## Authentication\n\nUse a bearer token in the Authorization header.\n"
    text = "# Manual\n\nIntro.\n\n" + "\n\n".join(sections)
    selection = select_for_prompt(text, "How do I send the authorization token?", budget=2_000)
    assert selection.reduced and len(selection.text) <= 2_200
    assert selection.text.startswith("# Manual")
    assert "bearer token in the Authorization header" in selection.text
    assert "characters of the page left out" in selection.text


def test_without_any_matching_words_a_long_page_is_cut_with_a_note() -> None:
    text = "line of text\n" * 1_000
    selection = select_for_prompt(text, "zebra", budget=500)
    assert selection.reduced and selection.text.endswith("more characters of the page left out …]")


def test_prompt_terms_drop_short_and_common_words() -> None:
    assert prompt_terms("How do I configure the HTTPS proxy?") == ["configure", "https", "proxy"]
