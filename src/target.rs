//! A compilation target, TVM's `tvm.target.Target`: the kind (`llvm`, `c`, `cuda`, ...), its
//! options (`-mtriple=`, `-mcpu=`, `-mattr=`, `-device=`, `-keys=`, `-libs=`, ...), the keys a
//! target-dispatched function is looked up by (`arm_cpu`, `cpu`, `gpu`, ...) and, for CPUs,
//! the instruction-set features the ARM and x86 layout hooks ask about (`features.rs`).
//!
//! Parsing follows TVM v0.18 (`src/target/target.cc`, `src/target/parsers/cpu.cc` and
//! `aprofile.cc`): an `llvm` target with neither `-mtriple` nor `-mcpu` takes the host's
//! triple; an ARM A-profile triple (`aarch64*`, `arm*` without a Cortex-M cpu) puts `arm_cpu`
//! and `cpu` in the keys and computes the `is_aarch64` / `has_*` features; the keys are the
//! user's `-keys` (or the parser's), then `-device`, then the kind's default keys when no
//! keys were given, without repeats. The features TVM asks LLVM for are computed from the
//! cpu and `-mattr` with a table of the architecture versions and cpus (`features.rs`).
//!
//! Invariant: a `Target` is immutable and printing it gives a string that parses back to an
//! equal target (TVM's `str(target)`: the kind, `-keys=`, then the other options by name).

mod features;

pub use features::Features;

use std::fmt;
use std::sync::Arc;

/// The longest target string accepted (TVM's are a line).
pub const MAX_TARGET_BYTES: usize = 4096;

/// Target kinds TVM v0.18 registers that a Relay pipeline is built for, with their default
/// keys (`TVM_REGISTER_TARGET_KIND(...).set_default_keys(...)`).
const KINDS: &[(&str, &[&str])] = &[
    ("llvm", &["cpu"]),
    ("c", &["cpu"]),
    ("cuda", &["cuda", "gpu"]),
    ("nvptx", &["cuda", "gpu"]),
    ("rocm", &["rocm", "gpu"]),
    ("opencl", &["opencl", "gpu"]),
    ("metal", &["metal", "gpu"]),
    ("vulkan", &["vulkan", "gpu"]),
    ("webgpu", &["webgpu", "gpu"]),
    ("hexagon", &["hexagon", "cpu"]),
    ("ext_dev", &[]),
    ("hybrid", &[]),
];

/// Options TVM's target kinds take with a value (with [`FLAGS`], the union of the CPU and GPU
/// kinds' `add_attr_option`s).
const OPTIONS: &[&str] = &[
    "mtriple",
    "mcpu",
    "mattr",
    "mabi",
    "mfloat-abi",
    "device",
    "keys",
    "libs",
    "model",
    "tag",
    "host",
    "opt-level",
    "num-cores",
    "runtime",
    "interface-api",
    "constants-byte-alignment",
    "workspace-byte-alignment",
    "arch",
    "max_num_threads",
    "thread_warp_size",
    "max_threads_per_block",
    "max_shared_memory_per_block",
    "registers_per_block",
    "vector-width",
    "cl-opt-level",
    "max_function_args",
    "texture_spatial_limit",
];

/// The kinds whose `max_function_args` has a default (`add_attr_option<Integer>(
/// "max_function_args", ...)`): the most buffers one kernel may take.
const MAX_FUNCTION_ARGS: &[(&str, usize)] = &[("opencl", 128), ("metal", 31)];

/// The boolean options, which may be written bare (`-system-lib` is `-system-lib=1`).
const FLAGS: &[&str] = &[
    "link-params",
    "fast-math",
    "fast-math-nnan",
    "fast-math-ninf",
    "fast-math-nsz",
    "fast-math-arcp",
    "fast-math-contract",
    "fast-math-reassoc",
    "system-lib",
    "unpacked-api",
    "jit",
];

/// A parsed target. Cheap to clone.
#[derive(Clone, Debug, PartialEq)]
pub struct Target(Arc<Inner>);

#[derive(Debug, PartialEq)]
struct Inner {
    kind: String,
    /// Options other than `keys`, sorted by name; list options (`mattr`, `libs`) joined by `,`.
    options: Vec<(String, String)>,
    keys: Vec<String>,
    features: Features,
}

/// Why a target string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetError {}

fn err(message: impl Into<String>) -> TargetError {
    TargetError(message.into())
}

/// The host's triple, which TVM's `llvm` target takes when it is given neither `-mtriple`
/// nor `-mcpu` (LLVM's default target triple).
pub fn host_triple() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "aarch64-unknown-linux-gnu"
    } else if cfg!(target_arch = "arm") {
        "arm-unknown-linux-gnueabihf"
    } else {
        "x86_64-unknown-linux-gnu"
    }
}

impl Target {
    /// Parses TVM's target string: `kind -option=value ...` (a bare boolean `-flag` is
    /// `-flag=1`).
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        if text.len() > MAX_TARGET_BYTES {
            return Err(err(format!(
                "the target string is {} bytes, more than the limit of {MAX_TARGET_BYTES}",
                text.len()
            )));
        }
        let mut words = text.split_whitespace();
        let kind = words
            .next()
            .ok_or_else(|| err("the target string is empty (expected a kind such as \"llvm\")"))?;
        let Some((_, default_keys)) = KINDS.iter().find(|(k, _)| *k == kind) else {
            let known: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
            return Err(err(format!(
                "target kind {kind:?} is not defined (known kinds: {})",
                known.join(", ")
            )));
        };
        let mut options: Vec<(String, String)> = Vec::new();
        let mut user_keys: Option<Vec<String>> = None;
        for word in words {
            let body = word
                .strip_prefix("--")
                .or_else(|| word.strip_prefix('-'))
                .ok_or_else(|| {
                    err(format!(
                        "target option {word:?} does not start with '-' (expected -name=value)"
                    ))
                })?;
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, v),
                None if FLAGS.contains(&body) => (body, "1"),
                None => (body, ""),
            };
            if !OPTIONS.contains(&name) && !FLAGS.contains(&name) {
                return Err(err(format!(
                    "attribute {name:?} is not available for target kind {kind:?}"
                )));
            }
            if value.is_empty() {
                return Err(err(format!(
                    "target option -{name} needs a value (-{name}=...)"
                )));
            }
            if name == "keys" {
                user_keys = Some(list(value));
                continue;
            }
            if name == "max_function_args" && value.parse::<u32>().is_err() {
                return Err(err(format!(
                    "target option -{name} takes a count (a whole number from 0), not {value:?}"
                )));
            }
            match options.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = value.to_string(),
                None => options.push((name.to_string(), value.to_string())),
            }
        }
        let get = |options: &[(String, String)], n: &str| {
            options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())
        };
        if kind == "llvm" && get(&options, "mtriple").is_none() && get(&options, "mcpu").is_none() {
            options.push(("mtriple".into(), host_triple().into()));
        }
        let triple = get(&options, "mtriple").unwrap_or_default();
        let cpu = get(&options, "mcpu").unwrap_or_default();
        let mattr = get(&options, "mattr").map(|v| list(&v)).unwrap_or_default();
        let features = if kind == "llvm" || kind == "c" {
            Features::of(&triple, &cpu, &mattr)
        } else {
            Features::default()
        };
        // The A-profile parser merges arm_cpu and cpu into the keys it is given.
        let arm = kind == "llvm" && features.is_arm_a_profile();
        let parser_keys = arm.then(|| {
            let mut keys = user_keys.clone().unwrap_or_default();
            for k in ["arm_cpu", "cpu"] {
                if !keys.iter().any(|x| x == k) {
                    keys.push(k.to_string());
                }
            }
            keys
        });
        let given = parser_keys.or(user_keys);
        let mut keys: Vec<String> = given.clone().unwrap_or_default();
        if let Some(device) = get(&options, "device") {
            keys.push(device);
        }
        if given.is_none() {
            keys.extend(default_keys.iter().map(|k| k.to_string()));
        }
        let mut seen = Vec::with_capacity(keys.len());
        for k in keys {
            if !seen.contains(&k) {
                seen.push(k);
            }
        }
        options.sort();
        Ok(Target(Arc::new(Inner {
            kind: kind.to_string(),
            options,
            keys: seen,
            features,
        })))
    }

    pub fn kind(&self) -> &str {
        &self.0.kind
    }

    /// The keys, in dispatch order (the first one with a registered hook wins).
    pub fn keys(&self) -> &[String] {
        &self.0.keys
    }

    pub fn has_key(&self, key: &str) -> bool {
        self.0.keys.iter().any(|k| k == key)
    }

    /// An option's value as written (`mcpu`, `mtriple`, ...).
    pub fn option(&self, name: &str) -> Option<&str> {
        self.0
            .options
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The most arguments a fused function may take (`-max_function_args=`, else the kind's
    /// default: opencl 128, metal 31), 0 for no limit. FuseOps reads it.
    pub fn max_function_args(&self) -> usize {
        match self.option("max_function_args") {
            Some(v) => v.parse().unwrap_or(0),
            None => MAX_FUNCTION_ARGS
                .iter()
                .find(|(k, _)| *k == self.kind())
                .map_or(0, |(_, n)| *n),
        }
    }

    /// `-libs=` as a list (`cblas`, `mkl`, `dnnl`, ...).
    pub fn libs(&self) -> Vec<String> {
        self.option("libs").map(list).unwrap_or_default()
    }

    pub fn features(&self) -> &Features {
        &self.0.features
    }
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

impl fmt::Display for Target {
    /// TVM's `str(target)`: kind, `-keys=...`, then the options by name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.kind)?;
        if !self.0.keys.is_empty() {
            write!(f, " -keys={}", self.0.keys.join(","))?;
        }
        for (k, v) in &self.0.options {
            write!(f, " -{k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_triples_get_the_arm_cpu_key_and_features() {
        let t = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+v9.2a,+sme").unwrap();
        assert_eq!(
            t.to_string(),
            "llvm -keys=arm_cpu,cpu -mattr=+v9.2a,+sme -mtriple=aarch64-linux-gnu"
        );
        let f = t.features();
        assert!(f.is_aarch64 && f.has_sme && f.has_sve && f.has_matmul_i8 && f.has_dotprod);
        let neon = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+v8.6a,+neon").unwrap();
        let f = neon.features();
        assert!(f.has_asimd && f.has_matmul_i8 && !f.has_sve && !f.has_sme);
        assert_eq!(Target::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn device_keys_come_before_the_kind_defaults() {
        let t = Target::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=core-avx2").unwrap();
        assert_eq!(t.keys(), ["cpu"]);
        assert!(t.features().has("avx2") && !t.features().has("avx512f"));
        let t = Target::parse("cuda -device=foo").unwrap();
        assert_eq!(t.keys(), ["foo", "cuda", "gpu"]);
        let t = Target::parse("llvm -device=arm_cpu -mtriple=aarch64-linux-gnu").unwrap();
        assert_eq!(t.keys(), ["arm_cpu", "cpu"]);
    }

    #[test]
    fn bad_targets_are_errors() {
        assert!(Target::parse("").is_err());
        assert!(Target::parse("llvmx")
            .unwrap_err()
            .0
            .contains("not defined"));
        assert!(Target::parse("llvm -foo=1")
            .unwrap_err()
            .0
            .contains("\"foo\""));
        assert!(Target::parse("llvm mcpu").is_err());
        assert!(Target::parse("llvm -mcpu")
            .unwrap_err()
            .0
            .contains("needs a value"));
        assert!(Target::parse("llvm -system-lib").is_ok());
        assert!(Target::parse(&"llvm ".repeat(2000)).is_err());
    }
}
