//! What executing a statement produces: an ordered list of parts (streamed text, displayed
//! values, errors), each with a plain rendering, an optional coloured one for terminals, and
//! an optional HTML one for Jupyter. Front ends choose; nothing here touches a terminal.

/// The kind of one part of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Text written while running: instrument output, `print(...)`.
    Stream,
    /// A warning written while running (a pass's warning diagnostic, an instrument's): text
    /// for standard error.
    Warning,
    /// A value shown by `show` or by evaluating an expression.
    Display,
    /// `error: ...` with its location.
    Error,
    /// A run paused at a breakpoint or after a `step`: where it is. Shown like a displayed
    /// value, but it is never a statement's value (a Jupyter cell's result).
    Pause,
    /// `clear_output()`: a front end clears what the cell showed so far (Jupyter's
    /// clear_output; a terminal clears the screen; plain text has nothing to clear).
    Clear,
}

/// One part of the output.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub kind: PartKind,
    /// Plain text, no ANSI codes, ending with a newline when non-empty.
    pub plain: String,
    /// The same with ANSI colours, when it differs.
    pub ansi: Option<String>,
    /// An HTML rendering (tables, highlighted IR, diffs).
    pub html: Option<String>,
}

/// Everything one `execute` call produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    pub parts: Vec<Part>,
    /// The part that is the input's value (see [`Outputs::result`]).
    pub result: Option<usize>,
}

fn with_newline(mut s: String) -> String {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

impl Outputs {
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// The index of the part that is the value of the input (a Jupyter cell's
    /// `execute_result`): the value its last statement displayed when that statement is a
    /// bare expression at the top level, nothing failed, and nothing was shown after it.
    pub fn result(&self) -> Option<usize> {
        let i = self.result?;
        let last = self.parts.len().checked_sub(1)?;
        (i == last && self.parts[i].kind == PartKind::Display && !self.is_error()).then_some(i)
    }

    pub fn stream(&mut self, text: impl Into<String>) {
        self.stream_rich(text.into(), None, None);
    }

    /// Stream text with its own ANSI and HTML renderings (a coloured diff, highlighted IR).
    /// Adjacent stream text is one part: where only one side has a rendering, the other
    /// side's plain text stands in for it.
    pub fn stream_rich(&mut self, text: String, ansi: Option<String>, html: Option<String>) {
        let text = with_newline(text);
        if text.is_empty() {
            return;
        }
        let ansi = ansi.map(with_newline);
        if let Some(last) = self.parts.last_mut() {
            if last.kind == PartKind::Stream {
                if last.ansi.is_some() || ansi.is_some() {
                    let mut a = last.ansi.take().unwrap_or_else(|| last.plain.clone());
                    a.push_str(ansi.as_deref().unwrap_or(&text));
                    last.ansi = Some(a);
                }
                if last.html.is_some() || html.is_some() {
                    let mut h = last.html.take().unwrap_or_else(|| pre(&last.plain));
                    h.push_str(&html.unwrap_or_else(|| pre(&text)));
                    last.html = Some(h);
                }
                last.plain.push_str(&text);
                return;
            }
        }
        self.parts.push(Part {
            kind: PartKind::Stream,
            plain: text,
            ansi,
            html,
        });
    }

    /// A warning, for standard error (adjacent warnings are one part).
    pub fn warning(&mut self, text: impl Into<String>) {
        let text = with_newline(text.into());
        if text.is_empty() {
            return;
        }
        if let Some(last) = self.parts.last_mut() {
            if last.kind == PartKind::Warning {
                last.plain.push_str(&text);
                return;
            }
        }
        self.parts.push(Part {
            kind: PartKind::Warning,
            plain: text,
            ansi: None,
            html: None,
        });
    }

    pub fn display(
        &mut self,
        plain: impl Into<String>,
        ansi: Option<String>,
        html: Option<String>,
    ) {
        self.parts.push(Part {
            kind: PartKind::Display,
            plain: with_newline(plain.into()),
            ansi: ansi.map(with_newline),
            html,
        });
    }

    /// Where a run paused (see [`PartKind::Pause`]).
    pub fn pause(&mut self, plain: impl Into<String>, ansi: Option<String>, html: Option<String>) {
        self.parts.push(Part {
            kind: PartKind::Pause,
            plain: with_newline(plain.into()),
            ansi: ansi.map(with_newline),
            html,
        });
    }

    /// Clears the output shown so far (plain: nothing; ANSI: clear the screen).
    pub fn clear(&mut self) {
        self.parts.push(Part {
            kind: PartKind::Clear,
            plain: String::new(),
            ansi: Some("\x1b[H\x1b[2J".into()),
            html: None,
        });
    }

    pub fn error(&mut self, plain: impl Into<String>, ansi: Option<String>) {
        let plain = with_newline(plain.into());
        let html = Some(format!(
            "<pre class=\"passlab-error\" style=\"color:#b00\">{}</pre>",
            html_escape(&plain)
        ));
        self.parts.push(Part {
            kind: PartKind::Error,
            plain,
            ansi: ansi.map(with_newline),
            html,
        });
    }

    pub fn extend(&mut self, other: Outputs) {
        for p in other.parts {
            match p.kind {
                PartKind::Stream => self.stream_rich(p.plain, p.ansi, p.html),
                PartKind::Warning => self.warning(p.plain),
                _ => self.parts.push(p),
            }
        }
    }

    /// True when some part is an error.
    pub fn is_error(&self) -> bool {
        self.parts.iter().any(|p| p.kind == PartKind::Error)
    }

    /// All parts as plain text, in order.
    pub fn plain(&self) -> String {
        self.parts.iter().map(|p| p.plain.as_str()).collect()
    }

    /// All parts for a terminal (`color`: use the ANSI renderings).
    pub fn text(&self, color: bool) -> String {
        self.parts
            .iter()
            .map(|p| match (&p.ansi, color) {
                (Some(a), true) => a.as_str(),
                _ => p.plain.as_str(),
            })
            .collect()
    }

    /// All parts as HTML (plain parts in `<pre>`).
    pub fn html(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.kind != PartKind::Clear)
            .map(|p| match &p.html {
                Some(h) => h.clone(),
                None => pre(&p.plain),
            })
            .collect()
    }
}

/// Plain text as an HTML `<pre>` block.
pub(crate) fn pre(text: &str) -> String {
    format!(
        "<pre style=\"{}\">{}</pre>",
        crate::text::highlight::IR_STYLE,
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
