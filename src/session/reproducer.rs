//! Reproducers: a failing pass run written as a `.passlab` script that `passlab run` replays
//! to the same error. The script holds the module as the failing pass received it (Relay text
//! in a `"""` string), the pipeline from that pass to the end ([`crate::pass::text::suffix_text`])
//! and the context: opt_level, required and disabled passes, config, and the instruments that
//! decide whether a pass fails or runs (`Verify`, `Skip`). Printing, timing, tracing and
//! `Bisect` instruments are left out: they do not make a pass fail, and a bisection limit counts
//! passes from the start of the whole pipeline, which the reproducer does not run.
//!
//! `passlab opt --reproducer FILE` writes one when its pipeline fails; in a session, every
//! failing pass application keeps one, and `reproducer("file.passlab")` writes the last.

use crate::instrument::{Skip, Verify};
use crate::ir::Module;
use crate::pass::text::{suffix_text, write_str, write_value};
use crate::pass::{Pass, PassContext, PassInfo};
use std::fmt::Write as _;

/// A failure, ready to be written as a script.
#[derive(Clone)]
pub struct Reproducer {
    /// The module the failing pass received.
    pub module: Module,
    /// The pipeline from the failing pass on.
    pub pipeline: String,
    pub context: PassContext,
    /// The error, as the run reported it (the script's comment).
    pub error: String,
}

impl Reproducer {
    /// The reproducer of `root` failing in `failing` (which received `module`) under `ctx`.
    pub fn new(
        root: &Pass,
        failing: &PassInfo,
        module: Module,
        ctx: &PassContext,
        error: &str,
    ) -> Result<Reproducer, String> {
        let pipeline = suffix_text(root, failing).map_err(|e| e.to_string())?;
        Ok(Reproducer {
            module,
            pipeline,
            context: ctx.clone(),
            error: error.to_string(),
        })
    }

    /// The script. A `Verify` comparing numbers on given inputs reads them from
    /// `inputs[i]` (paths relative to the script); [`Reproducer::write`] writes those files.
    pub fn script(&self) -> Result<String, String> {
        self.script_reading(&self.input_files("reproducer.passlab"))
    }

    /// The given inputs of the context's numbers check, if any.
    fn given_inputs(&self) -> Option<Vec<crate::ir::TensorData>> {
        self.context.instruments().iter().find_map(|i| {
            let v = i.as_any().downcast_ref::<Verify>()?;
            v.numerics_inputs()?.2
        })
    }

    /// The names of the input files of a script written to `path` (`repro.passlab` ->
    /// `repro.input0.npy`, ...), one per given input.
    fn input_files(&self, path: &str) -> Vec<String> {
        let stem = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "reproducer".into());
        let n = self.given_inputs().map_or(0, |v| v.len());
        (0..n).map(|i| format!("{stem}.input{i}.npy")).collect()
    }

    /// Writes the script to `path` (atomically) and, next to it, the inputs its numbers check
    /// reads; returns the files written, the script first.
    pub fn write(&self, path: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
        let names = self.input_files(&path.to_string_lossy());
        let text = self.script_reading(&names)?;
        let dir = path.parent().unwrap_or(std::path::Path::new(""));
        let mut written = vec![path.to_path_buf()];
        for (t, name) in self.given_inputs().unwrap_or_default().iter().zip(&names) {
            let bytes = crate::eval::npy::write(t)?;
            let file = dir.join(name);
            crate::files::write_atomic(&file, &bytes)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            written.push(file);
        }
        crate::files::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(written)
    }

    fn script_reading(&self, input_files: &[String]) -> Result<String, String> {
        let text = crate::text::try_print_module_with(&self.module, Default::default())
            .map_err(|e| format!("cannot print the module: {e}"))?;
        if text.contains("\"\"\"") {
            return Err("the module's text holds `\"\"\"`, which a script string cannot".into());
        }
        let mut out = String::from(
            "# A passlab reproducer: `passlab run` on this file fails as the run did.\n",
        );
        for line in self.error.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "m = parse(\"\"\"{}\"\"\")", text.trim_end());
        let _ = writeln!(
            out,
            "ctx = {}",
            context_text_reading(&self.context, input_files)
        );
        match self.context.target() {
            // The target the run was for, entered around the context as TVM scopes them.
            Some(t) => {
                let mut target = String::new();
                write_str(&t.to_string(), &mut target);
                let _ = writeln!(
                    out,
                    "with Target({target}) {{\n  with ctx {{\n    out = {}(m)\n  }}\n}}",
                    self.pipeline
                );
            }
            None => {
                let _ = writeln!(out, "with ctx {{\n  out = {}(m)\n}}", self.pipeline);
            }
        }
        Ok(out)
    }
}

/// A context as the `PassContext(...)` expression that rebuilds what decides a run's outcome.
pub fn context_text(ctx: &PassContext) -> String {
    context_text_reading(ctx, &[])
}

/// [`context_text`], a `Verify` on given inputs reading them from `input_files`.
fn context_text_reading(ctx: &PassContext, input_files: &[String]) -> String {
    let mut out = format!("PassContext(opt_level={}", ctx.opt_level());
    let names = |list: &[std::sync::Arc<str>]| {
        let mut s = String::from("[");
        for (i, n) in list.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            write_str(n, &mut s);
        }
        s.push(']');
        s
    };
    if !ctx.required_pass().is_empty() {
        let _ = write!(out, ", required_pass={}", names(ctx.required_pass()));
    }
    if !ctx.disabled_pass().is_empty() {
        let _ = write!(out, ", disabled_pass={}", names(ctx.disabled_pass()));
    }
    if !ctx.config().is_empty() {
        out.push_str(", config={");
        for (i, (k, v)) in ctx.config().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_str(k, &mut out);
            out.push_str(": ");
            write_value(v, &mut out);
        }
        out.push('}');
    }
    let kept: Vec<String> = ctx
        .instruments()
        .iter()
        .filter_map(|i| {
            if let Some((rtol, atol, Some(_))) = i
                .as_any()
                .downcast_ref::<Verify>()
                .and_then(Verify::numerics_inputs)
            {
                let mut t = format!("Verify(numerics=true, rtol={rtol}, atol={atol}, inputs=[");
                for (k, f) in input_files.iter().enumerate() {
                    if k > 0 {
                        t.push_str(", ");
                    }
                    t.push_str("tensor(");
                    write_str(f, &mut t);
                    t.push(')');
                }
                t.push_str("])");
                Some(t)
            } else if i.as_any().is::<Verify>() {
                let d = i.describe();
                Some(if d.ends_with(')') {
                    d
                } else {
                    format!("{d}()")
                })
            } else if let Some(s) = i.as_any().downcast_ref::<Skip>() {
                let mut t = String::from("Skip([");
                for (k, n) in s.names().iter().enumerate() {
                    if k > 0 {
                        t.push_str(", ");
                    }
                    write_str(n, &mut t);
                }
                t.push_str("])");
                Some(t)
            } else {
                None
            }
        })
        .collect();
    if !kept.is_empty() {
        let _ = write!(out, ", instruments=[{}]", kept.join(", "));
    }
    out.push(')');
    out
}
