//! The typed config registry (TVM's `TVM_REGISTER_PASS_CONFIG_OPTION`): every key a
//! `PassContext` config may hold is registered with a type, and a context's config is
//! validated and coerced when the context is constructed. Unknown keys list the known ones,
//! sorted, with a "did you mean"; `None` and values of the wrong type name the key and both
//! types. The built-in keys are the rows of [`BUILTIN_CONFIG_KEYS`]; code that adds a pass can
//! register more with [`register_config_key`].

use super::error::{PassError, PassErrorKind};
use crate::suggest;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

/// A config or pass-option value.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    List(Vec<ConfigValue>),
    /// A dictionary with string keys, in the order written (`{"nn.conv2d": ["NCHW", "default"]}`).
    Map(Vec<(Arc<str>, ConfigValue)>),
}

impl ConfigValue {
    /// The type name used in messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            ConfigValue::None => "None",
            ConfigValue::Bool(_) => "bool",
            ConfigValue::Int(_) => "int",
            ConfigValue::Float(_) => "float",
            ConfigValue::Str(_) => "str",
            ConfigValue::List(_) => "list",
            ConfigValue::Map(_) => "dict",
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ConfigValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            ConfigValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            ConfigValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[ConfigValue]> {
        match self {
            ConfigValue::List(l) => Some(l),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Arc<str>, ConfigValue)]> {
        match self {
            ConfigValue::Map(m) => Some(m),
            _ => None,
        }
    }
}

impl fmt::Display for ConfigValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigValue::None => f.write_str("None"),
            ConfigValue::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            ConfigValue::Int(i) => write!(f, "{i}"),
            ConfigValue::Float(x) => write!(f, "{x:?}"),
            ConfigValue::Str(s) => write!(f, "{s:?}"),
            ConfigValue::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            ConfigValue::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k:?}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl From<bool> for ConfigValue {
    fn from(b: bool) -> Self {
        ConfigValue::Bool(b)
    }
}
impl From<i64> for ConfigValue {
    fn from(i: i64) -> Self {
        ConfigValue::Int(i)
    }
}
impl From<i32> for ConfigValue {
    fn from(i: i32) -> Self {
        ConfigValue::Int(i.into())
    }
}
impl From<f64> for ConfigValue {
    fn from(x: f64) -> Self {
        ConfigValue::Float(x)
    }
}
impl From<&str> for ConfigValue {
    fn from(s: &str) -> Self {
        ConfigValue::Str(s.into())
    }
}
impl From<String> for ConfigValue {
    fn from(s: String) -> Self {
        ConfigValue::Str(s.into())
    }
}
impl<T: Into<ConfigValue>> From<Vec<T>> for ConfigValue {
    fn from(v: Vec<T>) -> Self {
        ConfigValue::List(v.into_iter().map(Into::into).collect())
    }
}

/// The type of a config key or pass option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigType {
    Bool,
    Int,
    /// An int from the first bound to the second, both included.
    IntRange(i64, i64),
    Float,
    Str,
    /// A string from a fixed set.
    Choice(&'static [&'static str]),
    /// A list of strings.
    StrList,
    /// A list of ints.
    IntList,
    /// A dictionary from strings to lists of strings.
    StrListMap,
    /// A dictionary from strings to dictionaries (of attribute values: numbers, strings,
    /// booleans and lists of them), e.g. `{"nn.conv2d": {"data_layout": "NCHW16c"}}`.
    MapMap,
}

impl fmt::Display for ConfigType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigType::Bool => f.write_str("bool"),
            ConfigType::Int => f.write_str("int"),
            ConfigType::IntRange(lo, hi) => write!(f, "int from {lo} to {hi}"),
            ConfigType::Float => f.write_str("float"),
            ConfigType::Str => f.write_str("str"),
            ConfigType::Choice(cs) => {
                let quoted: Vec<String> = cs.iter().map(|c| format!("{c:?}")).collect();
                f.write_str(&quoted.join(" | "))
            }
            ConfigType::StrList => f.write_str("list of str"),
            ConfigType::IntList => f.write_str("list of int"),
            ConfigType::StrListMap => f.write_str("dict of str to list of str"),
            ConfigType::MapMap => f.write_str("dict of str to dict"),
        }
    }
}

impl ConfigType {
    /// Coerces a value to this type (int -> bool: 0 is false; bool -> int: 1/0; int ->
    /// float). `what` names the key or option in messages.
    pub fn coerce(self, what: &str, v: ConfigValue) -> Result<ConfigValue, String> {
        let mismatch = |v: &ConfigValue| format!("{what} expects {self}, got {}", v.type_name());
        Ok(match (self, v) {
            (ConfigType::Bool, ConfigValue::Bool(b)) => ConfigValue::Bool(b),
            (ConfigType::Bool, ConfigValue::Int(i)) => ConfigValue::Bool(i != 0),
            (ConfigType::Int, ConfigValue::Int(i)) => ConfigValue::Int(i),
            (ConfigType::Int, ConfigValue::Bool(b)) => ConfigValue::Int(b.into()),
            (ConfigType::IntRange(lo, hi), ConfigValue::Int(i)) => {
                if i < lo || i > hi {
                    return Err(format!("{what} must be an int from {lo} to {hi}, got {i}"));
                }
                ConfigValue::Int(i)
            }
            (ConfigType::Float, ConfigValue::Float(x)) => ConfigValue::Float(x),
            (ConfigType::Float, ConfigValue::Int(i)) => ConfigValue::Float(i as f64),
            (ConfigType::Str, ConfigValue::Str(s)) => ConfigValue::Str(s),
            (ConfigType::Choice(cs), ConfigValue::Str(s)) => {
                if !cs.contains(&&*s) {
                    let quoted: Vec<String> = cs.iter().map(|c| format!("{c:?}")).collect();
                    return Err(format!(
                        "{what} must be one of {}, got {s:?}",
                        quoted.join(", ")
                    ));
                }
                ConfigValue::Str(s)
            }
            (ConfigType::StrList, ConfigValue::List(l)) => {
                if let Some(bad) = l.iter().find(|x| !matches!(x, ConfigValue::Str(_))) {
                    return Err(format!(
                        "{what} expects a list of str, got a list holding {}",
                        bad.type_name()
                    ));
                }
                ConfigValue::List(l)
            }
            (ConfigType::IntList, ConfigValue::List(l)) => {
                if let Some(bad) = l.iter().find(|x| !matches!(x, ConfigValue::Int(_))) {
                    return Err(format!(
                        "{what} expects a list of int, got a list holding {}",
                        bad.type_name()
                    ));
                }
                ConfigValue::List(l)
            }
            (ConfigType::StrListMap, ConfigValue::Map(m)) => {
                for (k, v) in &m {
                    let ok = v
                        .as_list()
                        .is_some_and(|l| l.iter().all(|x| matches!(x, ConfigValue::Str(_))));
                    if !ok {
                        return Err(format!(
                            "{what} expects a dict of str to list of str, got {} for {k:?}",
                            v.type_name()
                        ));
                    }
                }
                ConfigValue::Map(m)
            }
            (ConfigType::MapMap, ConfigValue::Map(m)) => {
                if let Some((k, v)) = m.iter().find(|(_, v)| v.as_map().is_none()) {
                    return Err(format!(
                        "{what} expects a dict of str to dict, got {} for {k:?}",
                        v.type_name()
                    ));
                }
                ConfigValue::Map(m)
            }
            (_, v) => return Err(mismatch(&v)),
        })
    }
}

/// One registered config key.
#[derive(Clone, Debug)]
pub struct ConfigKey {
    pub name: &'static str,
    pub ty: ConfigType,
    /// The value a pass sees when the context does not set the key.
    pub default: fn() -> ConfigValue,
    pub doc: &'static str,
}

/// The built-in keys: one row per key.
pub static BUILTIN_CONFIG_KEYS: &[ConfigKey] = &[
    ConfigKey {
        name: "testing.immutable_module",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(false),
        doc: "after each pass, check with a structural hash that the input module was not modified",
    },
    ConfigKey {
        name: "passlab.required",
        ty: ConfigType::Choice(&["always", "cached"]),
        default: || ConfigValue::Str("always".into()),
        doc: "\"always\" runs required passes every time (TVM); \"cached\" skips one that already ran on the same module value",
    },
    ConfigKey {
        name: "passlab.num_threads",
        ty: ConfigType::IntRange(0, crate::limits::MAX_THREADS as i64),
        default: || ConfigValue::Int(0),
        doc: "threads of a function pass (0, the default: one per core; 1: sequential); any count gives the same result",
    },
    ConfigKey {
        name: "relay.FuseOps.max_depth",
        ty: ConfigType::Int,
        default: || ConfigValue::Int(256),
        doc: "FuseOps: the largest number of nodes in one fused function",
    },
    ConfigKey {
        name: "relay.FuseOps.link_params",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(false),
        doc: "FuseOps: keep constants inside fused functions instead of passing them as parameters",
    },
    // The other keys TVM v0.18 registers under src/relay (TVM_REGISTER_PASS_CONFIG_OPTION),
    // with the value its code falls back to when a context leaves one out (None where it has
    // none). passlab's passes do not read them; a context accepts and shows them, so a TVM
    // script's context carries over.
    ConfigKey {
        name: "relay.backend.use_auto_scheduler",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(false),
        doc: "relay.build: use auto-scheduler tuning records (te_compiler.cc)",
    },
    ConfigKey {
        name: "relay.backend.use_meta_schedule",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(false),
        doc: "relay.build: use MetaSchedule tuning records (te_compiler.cc)",
    },
    ConfigKey {
        name: "relay.backend.use_meta_schedule_dispatch",
        ty: ConfigType::Int,
        default: || ConfigValue::Int(0),
        doc: "relay.build: dispatch to MetaSchedule per device type bit mask (te_compiler.cc)",
    },
    ConfigKey {
        name: "relay.backend.tir_converter",
        ty: ConfigType::Str,
        default: || ConfigValue::Str("default".into()),
        doc: "relay.build: how fused functions are lowered to TIR (\"default\", \"allow_extern\")",
    },
    ConfigKey {
        name: "relay.collage.tvm_max_depth",
        ty: ConfigType::Int,
        default: || ConfigValue::None,
        doc: "CollagePartition: the largest TVM candidate partition (no default: required there)",
    },
    ConfigKey {
        name: "relay.collage.byoc_max_depth",
        ty: ConfigType::Int,
        default: || ConfigValue::None,
        doc: "CollagePartition: the largest BYOC candidate partition (no default: required there)",
    },
    ConfigKey {
        name: "relay.collage.byoc_fusion_style",
        ty: ConfigType::StrList,
        default: || ConfigValue::None,
        doc: "CollagePartition: \"compiler.style\" entries overriding a BYOC compiler's fusion style",
    },
    ConfigKey {
        name: "relay.fallback_device_type",
        ty: ConfigType::Int,
        default: || ConfigValue::None,
        doc: "PlanDevices: the DLDeviceType of expressions no annotation places (unset: the target's)",
    },
    ConfigKey {
        name: "relay.remove_standalone_reshapes.enable",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(true),
        doc: "RemoveStandaloneReshapes (after LowerTE): remove reshapes that only change the view",
    },
    ConfigKey {
        name: "relay.ToMixedPrecision.keep_orig_output_dtype",
        ty: ConfigType::Bool,
        default: || ConfigValue::Bool(false),
        doc: "ToMixedPrecision: cast the function's outputs back to their original dtype",
    },
    ConfigKey {
        name: "relay.ext.vitis_ai.options.target",
        ty: ConfigType::Str,
        default: || ConfigValue::None,
        doc: "Vitis AI BYOC: the DPU target",
    },
    ConfigKey {
        name: "relay.ext.vitis_ai.options.build_dir",
        ty: ConfigType::Str,
        default: || ConfigValue::None,
        doc: "Vitis AI BYOC: the build directory",
    },
    ConfigKey {
        name: "relay.ext.vitis_ai.options.work_dir",
        ty: ConfigType::Str,
        default: || ConfigValue::None,
        doc: "Vitis AI BYOC: the work directory",
    },
    ConfigKey {
        name: "relay.ext.vitis_ai.options.export_runtime_module",
        ty: ConfigType::Str,
        default: || ConfigValue::None,
        doc: "Vitis AI BYOC: export the PyXIR runtime module to this file",
    },
    ConfigKey {
        name: "relay.ext.vitis_ai.options.load_runtime_module",
        ty: ConfigType::Str,
        default: || ConfigValue::None,
        doc: "Vitis AI BYOC: load the PyXIR runtime module from this file",
    },
];

fn registry() -> &'static RwLock<Vec<ConfigKey>> {
    static KEYS: OnceLock<RwLock<Vec<ConfigKey>>> = OnceLock::new();
    KEYS.get_or_init(|| RwLock::new(BUILTIN_CONFIG_KEYS.to_vec()))
}

/// Registers a key (idempotent for the same name and type; a different type is an error).
pub fn register_config_key(key: ConfigKey) -> Result<(), PassError> {
    let mut keys = registry().write().unwrap_or_else(|e| e.into_inner());
    if let Some(old) = keys.iter().find(|k| k.name == key.name) {
        if old.ty == key.ty {
            return Ok(());
        }
        return Err(PassErrorKind::Config(format!(
            "config key {:?} is already registered with type {}",
            key.name, old.ty
        ))
        .into());
    }
    keys.push(key);
    Ok(())
}

/// Every registered key, sorted by name.
pub fn config_keys() -> Vec<ConfigKey> {
    let mut keys = registry().read().unwrap_or_else(|e| e.into_inner()).clone();
    keys.sort_by_key(|k| k.name);
    keys
}

/// The registered key of that name.
pub fn config_key(name: &str) -> Option<ConfigKey> {
    registry()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|k| k.name == name)
        .cloned()
}

/// A validated config: keys registered, values coerced to the keys' types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    values: BTreeMap<String, ConfigValue>,
}

impl Config {
    /// Validates and coerces the given entries.
    pub fn new<K: Into<String>>(
        entries: impl IntoIterator<Item = (K, ConfigValue)>,
    ) -> Result<Config, PassError> {
        let mut values = BTreeMap::new();
        for (k, v) in entries {
            let k = k.into();
            let key = config_key(&k).ok_or_else(|| unknown_key(&k))?;
            let v = key
                .ty
                .coerce(&format!("config {k:?}"), v)
                .map_err(|m| PassError::from(PassErrorKind::Config(m)))?;
            values.insert(k, v);
        }
        Ok(Config { values })
    }

    /// The value set in this config.
    pub fn get(&self, key: &str) -> Option<&ConfigValue> {
        self.values.get(key)
    }

    /// The value set here, or the key's registered default.
    pub fn get_or_default(&self, key: &str) -> Option<ConfigValue> {
        self.get(key)
            .cloned()
            .or_else(|| config_key(key).map(|k| (k.default)()))
    }

    /// The entries, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ConfigValue)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

fn unknown_key(k: &str) -> PassError {
    let keys = config_keys();
    let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
    let mut msg = format!("unknown config key {k:?}");
    if let Some(s) = suggest::closest(k, names.iter().copied()) {
        msg.push_str(&format!(" (did you mean {s:?}?)"));
    }
    msg.push_str(&format!("; known keys: {}", names.join(", ")));
    PassErrorKind::Config(msg).into()
}
