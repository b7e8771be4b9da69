//! Agent answers as markdown, made safe to put into the page as HTML. Raw HTML in the text is
//! shown as text, links may only go to http(s), mailto or relative addresses, and images become
//! links (an image would make the browser fetch whatever address the agent wrote). Everything
//! else pulldown-cmark writes escaped, so a `<script>` or `onerror=` from an agent stays inert.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

/// The HTML for `text`, safe to set as an element's inner HTML.
pub fn render_markdown(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        })
        | Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    html::push_html(&mut out, events);
    out
}

/// The address if its scheme is allowed (or it has none), otherwise `#`.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    // Browsers ignore tabs, newlines and leading spaces or controls in a scheme ("java\tscript:").
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    let scheme_end = cleaned.find([':', '/', '?', '#']);
    let allowed = match scheme_end {
        Some(end) if cleaned.as_bytes()[end] == b':' => {
            matches!(&cleaned[..end], "http" | "https" | "mailto")
        }
        _ => true,
    };
    if allowed {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::render_markdown;

    #[test]
    fn markdown_is_rendered() {
        let html = render_markdown(
            "**Paris**: sunny\n\n- 18 °C\n- `wind` 3 km/h\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        );
        assert!(html.contains("<strong>Paris</strong>"), "{html}");
        assert!(html.contains("<li>18 °C</li>"), "{html}");
        assert!(html.contains("<code>wind</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
        assert_eq!(render_markdown("你好 🌍"), "<p>你好 🌍</p>\n");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        for payload in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "hello <b onmouseover=alert(1)>there</b>",
            "<div>\n<svg onload=alert(1)>\n</div>",
            "<iframe src=\"javascript:alert(1)\"></iframe>",
        ] {
            let html = render_markdown(payload);
            assert!(
                !html.contains("<script") && !html.contains("<img") && !html.contains("<svg"),
                "{html}"
            );
            assert!(!html.contains("<b ") && !html.contains("<iframe"), "{html}");
            assert!(html.contains("&lt;"), "the payload is visible as text: {html}");
        }
    }

    #[test]
    fn only_safe_links_survive() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JavaScript:alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](javascript&#58;alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "![x](javascript:alert(1))",
        ] {
            let html = render_markdown(bad);
            assert!(html.contains("href=\"#\""), "{bad} -> {html}");
            assert!(!html.to_lowercase().contains("script:"), "{bad} -> {html}");
        }
        assert!(render_markdown("[docs](https://example.com/a?b=1&c=2)")
            .contains("href=\"https://example.com/a?b=1&amp;c=2\""));
        assert!(render_markdown("[help](/help#reset)").contains("href=\"/help#reset\""));
        assert!(render_markdown("<https://example.com>").contains("href=\"https://example.com\""));
    }

    #[test]
    fn images_become_links() {
        let html = render_markdown("![a chart](https://example.com/c.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("<a href=\"https://example.com/c.png\">a chart</a>"),
            "{html}"
        );
    }
}
