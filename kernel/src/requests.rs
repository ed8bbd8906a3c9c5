//! Reply contents for the requests that need no execution: kernel_info, complete, inspect,
//! is_complete. Jupyter counts `cursor_pos` in Unicode code points; the session counts bytes,
//! so positions are converted both ways here.

use crate::worker::Worker;
use passlab::lang::{is_complete, Completeness};
use serde_json::{json, Map, Value};

/// kernel_info_reply content.
pub fn kernel_info() -> Value {
    let version = env!("CARGO_PKG_VERSION");
    json!({
        "status": "ok",
        "protocol_version": crate::wire::PROTOCOL_VERSION,
        "implementation": "passlab",
        "implementation_version": version,
        "language_info": {
            "name": "passlab",
            "version": version,
            "mimetype": "text/x-passlab",
            "file_extension": ".passlab",
            // The command language reads like Python (keyword arguments, lists, `#` comments,
            // `"""` strings, True/False/None), so Python's highlighters fit it well.
            "pygments_lexer": "python",
            "codemirror_mode": "python",
        },
        "banner": format!(
            "passlab {version} — TVM-style pass pipelines, interactively. \
             `help`, `passes`; Tab completes, Shift-Tab shows help, `?NAME` pages it."
        ),
        "help_links": [
            {"text": "TVM pass infrastructure", "url": "https://tvm.apache.org/docs/arch/pass_infra.html"},
        ],
        "debugger": false,
    })
}

/// The byte offset of code point `cp` in `s` (clamped to the end).
pub fn byte_offset(s: &str, cp: usize) -> usize {
    s.char_indices().nth(cp).map(|(b, _)| b).unwrap_or(s.len())
}

/// The code point index of byte offset `b` in `s`.
pub fn code_point_offset(s: &str, b: usize) -> usize {
    let b = b.min(s.len());
    s.char_indices().take_while(|(i, _)| *i < b).count()
}

/// `code` and the cursor (as a byte offset) of a complete/inspect request; `Err` names what
/// is malformed.
fn code_and_cursor(c: &Map<String, Value>) -> Result<(String, usize), String> {
    let code = c
        .get("code")
        .and_then(Value::as_str)
        .ok_or("the request has no `code` string")?
        .to_string();
    let cursor = match c.get("cursor_pos") {
        None | Some(Value::Null) => code.chars().count(),
        Some(v) => v
            .as_u64()
            .ok_or("`cursor_pos` is not a non-negative integer")? as usize,
    };
    let byte = byte_offset(&code, cursor);
    Ok((code, byte))
}

pub async fn complete(worker: &Worker, c: &Map<String, Value>) -> Result<Value, String> {
    let (code, cursor) = code_and_cursor(c)?;
    let (code, comp, kinds) = worker
        .run(move |s| {
            let comp = s.complete(&code, cursor);
            let kinds: Vec<&'static str> = comp
                .candidates
                .iter()
                .map(|c| s.completion_kind(c))
                .collect();
            (code, comp, kinds)
        })
        .await
        .map_err(|e| e.explain("completion"))?;
    let (start, end) = (
        code_point_offset(&code, comp.start),
        code_point_offset(&code, comp.end),
    );
    // JupyterLab shows each candidate's `type` beside it (IPython's experimental extension,
    // which JupyterLab and the Notebook read).
    let types: Vec<Value> = comp
        .candidates
        .iter()
        .zip(kinds)
        .map(|(text, kind)| json!({"start": start, "end": end, "text": text, "type": kind}))
        .collect();
    Ok(json!({
        "status": "ok",
        "matches": comp.candidates,
        "cursor_start": start,
        "cursor_end": end,
        "metadata": {"_jupyter_types_experimental": types},
    }))
}

pub async fn inspect(worker: &Worker, c: &Map<String, Value>) -> Result<Value, String> {
    let (code, cursor) = code_and_cursor(c)?;
    let text = worker
        .run(move |s| s.inspect(&code, cursor))
        .await
        .map_err(|e| e.explain("inspection"))?;
    Ok(match text {
        Some(t) => json!({
            "status": "ok",
            "found": true,
            "data": {"text/plain": t},
            "metadata": {},
        }),
        None => json!({"status": "ok", "found": false, "data": {}, "metadata": {}}),
    })
}

pub fn is_complete_reply(c: &Map<String, Value>) -> Result<Value, String> {
    let code = c
        .get("code")
        .and_then(Value::as_str)
        .ok_or("the request has no `code` string")?;
    Ok(match is_complete(code) {
        Completeness::Complete => json!({"status": "complete"}),
        Completeness::Incomplete { indent } => {
            json!({"status": "incomplete", "indent": " ".repeat(indent)})
        }
        Completeness::Invalid => json!({"status": "invalid"}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_code_points() {
        let s = "x = \"π→\"; y";
        assert_eq!(byte_offset(s, 0), 0);
        assert_eq!(byte_offset(s, 5), 5);
        assert_eq!(byte_offset(s, 6), 7);
        assert_eq!(byte_offset(s, 7), 10);
        assert_eq!(byte_offset(s, 100), s.len());
        for cp in 0..=s.chars().count() {
            assert_eq!(code_point_offset(s, byte_offset(s, cp)), cp);
        }
    }

    #[test]
    fn is_complete_statuses() {
        let req = |code: &str| json!({ "code": code }).as_object().unwrap().clone();
        assert_eq!(
            is_complete_reply(&req("x = 1")).unwrap()["status"],
            "complete"
        );
        let inc = is_complete_reply(&req("with PassContext() {")).unwrap();
        assert_eq!(inc["status"], "incomplete");
        assert_eq!(inc["indent"], "    ");
        assert_eq!(
            is_complete_reply(&req("x = )")).unwrap()["status"],
            "invalid"
        );
        assert!(is_complete_reply(&Map::new()).is_err());
    }
}
