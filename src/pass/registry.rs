//! The pass registry: pass name -> constructor with keyword options. It is the only list of
//! pass names: it builds passes by name (the command language's `FoldConstant()`), resolves
//! `required` lists, and feeds `passes`, help, completion and "did you mean". The built-in
//! rows come from a table such as
//! `crate::passes::BUILTIN_PASSES`, given to the pass manager; a session adds user passes on top.

use super::config::{ConfigType, ConfigValue};
use super::error::PassErrorKind;
use super::{Pass, PassError, PassInfo, PassKind};
use crate::suggest;
use std::sync::Arc;

/// A keyword option of a registered pass.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub ty: ConfigType,
    pub doc: &'static str,
}

/// One row of the built-in table.
pub struct PassEntry {
    pub name: &'static str,
    pub kind: PassKind,
    pub opt_level: i32,
    pub required: &'static [&'static str],
    /// One line for `passes` and help.
    pub summary: &'static str,
    pub options: &'static [OptionSpec],
    /// Builds the pass from validated options.
    pub constructor: fn(&PassOptions) -> Result<Pass, PassError>,
}

/// Keyword options, in the order given, validated against the entry's [`OptionSpec`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassOptions(Vec<(String, ConfigValue)>);

impl PassOptions {
    pub fn new() -> PassOptions {
        PassOptions::default()
    }

    pub fn with(mut self, name: &str, value: impl Into<ConfigValue>) -> PassOptions {
        self.0.push((name.to_string(), value.into()));
        self
    }

    pub fn get(&self, name: &str) -> Option<&ConfigValue> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(ConfigValue::as_str)
    }

    pub fn get_bool(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(ConfigValue::as_bool)
    }

    pub fn get_int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(ConfigValue::as_int)
    }

    /// A list-of-strings option.
    pub fn get_strs(&self, name: &str) -> Option<Vec<String>> {
        let list = self.get(name)?.as_list()?;
        list.iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &ConfigValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone)]
enum Maker {
    Builtin(fn(&PassOptions) -> Result<Pass, PassError>),
    /// A user pass registered by value: the constructor returns it.
    Value(Pass),
}

/// A registered pass as listings see it.
#[derive(Clone)]
pub struct Registered {
    pub name: Arc<str>,
    pub kind: PassKind,
    pub opt_level: i32,
    pub required: Vec<Arc<str>>,
    pub summary: Arc<str>,
    pub options: &'static [OptionSpec],
    /// Registered by the user rather than built in.
    pub user: bool,
    maker: Maker,
}

/// Pass name -> constructor.
#[derive(Clone, Default)]
pub struct Registry {
    entries: Vec<Registered>,
}

impl Registry {
    /// An empty registry.
    pub fn empty() -> Registry {
        Registry::default()
    }

    /// A registry of the rows of a table like `crate::passes::BUILTIN_PASSES`.
    pub fn from_entries(entries: &[PassEntry]) -> Registry {
        let mut r = Registry::empty();
        for e in entries {
            r.add_entry(e);
        }
        r
    }

    /// Adds (or replaces) a row like those of the built-in table.
    pub fn add_entry(&mut self, e: &PassEntry) {
        self.insert(Registered {
            name: e.name.into(),
            kind: e.kind,
            opt_level: e.opt_level,
            required: e.required.iter().map(|r| Arc::from(*r)).collect(),
            summary: e.summary.into(),
            options: e.options,
            user: false,
            maker: Maker::Builtin(e.constructor),
        });
    }

    /// Registers a user pass under its own name, replacing any pass of that name. Returns
    /// true when it replaced one.
    pub fn register(&mut self, pass: Pass, summary: &str) -> bool {
        let info = pass.info();
        self.insert(Registered {
            name: info.name_arc().clone(),
            kind: info.kind(),
            opt_level: info.opt_level(),
            required: info.required().to_vec(),
            summary: summary.into(),
            options: &[],
            user: true,
            maker: Maker::Value(pass),
        })
    }

    fn insert(&mut self, r: Registered) -> bool {
        match self.entries.iter_mut().find(|e| e.name == r.name) {
            Some(slot) => {
                *slot = r;
                true
            }
            None => {
                self.entries.push(r);
                false
            }
        }
    }

    /// The registered passes, sorted by name.
    pub fn entries(&self) -> Vec<&Registered> {
        let mut v: Vec<&Registered> = self.entries.iter().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    pub fn get(&self, name: &str) -> Option<&Registered> {
        self.entries.iter().find(|e| &*e.name == name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The registered name closest to `name`, for "did you mean".
    pub fn closest(&self, name: &str) -> Option<&str> {
        suggest::closest(name, self.entries.iter().map(|e| &*e.name))
    }

    /// Builds the pass `name` with keyword options (checked against its option list and
    /// coerced to their types).
    pub fn create(&self, name: &str, options: &PassOptions) -> Result<Pass, PassError> {
        let entry = self.get(name).ok_or_else(|| -> PassError {
            PassErrorKind::UnknownPass {
                name: name.to_string(),
                required_by: None,
                suggestion: self.closest(name).map(str::to_string),
            }
            .into()
        })?;
        let options = entry.validate(options)?;
        match &entry.maker {
            Maker::Builtin(f) => Ok(f(&options)?.with_origin(super::Origin::Registered {
                name: entry.name.clone(),
                options,
            })),
            Maker::Value(p) => Ok(p.clone()),
        }
    }

    /// Builds a pass named in `required_by`'s `required` list (no options).
    pub fn create_required(&self, name: &str, required_by: &PassInfo) -> Result<Pass, PassError> {
        self.create(name, &PassOptions::new())
            .map_err(|e| match e.into_kind() {
                PassErrorKind::UnknownPass {
                    name, suggestion, ..
                } => PassErrorKind::UnknownPass {
                    name,
                    required_by: Some(required_by.name_arc().clone()),
                    suggestion,
                }
                .into(),
                kind => kind.into(),
            })
    }
}

impl Registered {
    fn validate(&self, options: &PassOptions) -> Result<PassOptions, PassError> {
        let err = |message: String| -> PassError {
            PassErrorKind::Options {
                pass: self.name.to_string(),
                message,
            }
            .into()
        };
        let mut out = PassOptions::new();
        for (k, v) in options.iter() {
            let Some(spec) = self.options.iter().find(|s| s.name == k) else {
                let known: Vec<&str> = self.options.iter().map(|s| s.name).collect();
                let mut msg = format!("unknown option {k}");
                if let Some(s) = suggest::closest(k, known.iter().copied()) {
                    msg.push_str(&format!(" (did you mean {s}?)"));
                }
                if known.is_empty() {
                    msg.push_str(&format!("; {} takes no options", self.name));
                } else {
                    msg.push_str(&format!("; known options: {}", known.join(", ")));
                }
                return Err(err(msg));
            };
            if out.get(k).is_some() {
                return Err(err(format!("option {k} given twice")));
            }
            let v = spec
                .ty
                .coerce(&format!("option {k}"), v.clone())
                .map_err(err)?;
            out.0.push((k.to_string(), v));
        }
        Ok(out)
    }
}
