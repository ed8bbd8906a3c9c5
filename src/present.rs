//! Presentation: how the engine's values look to a person. Highlighted Relay (ANSI for
//! terminals, HTML for notebooks), the renderings of modules, pipelines, timing and stats
//! tables and diffs, and HTML escaping. It sits between the engine (ir, text, passes,
//! instruments) and the front ends (session, notebook, the binary's REPL), and depends only
//! downwards: it reads engine values and returns strings, never prints.

pub mod diff;
pub mod highlight;
pub mod render;
pub mod wrap;

pub use highlight::{highlight, highlight_html, HighlightWriter};

/// Plain text as an HTML `<pre>` block.
pub fn pre(text: &str) -> String {
    format!(
        "<pre style=\"{}\">{}</pre>",
        highlight::IR_STYLE,
        html_escape(text)
    )
}

/// Escapes text for HTML.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
