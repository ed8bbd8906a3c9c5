//! The CPU features of a target, as TVM v0.18 asks LLVM for them: the A-profile ARM flags of
//! `target.features` (`is_aarch64`, `has_asimd`, `has_sve`, `has_dotprod`, `has_matmul_i8`,
//! `has_fp16_simd`, `has_sme`; `src/target/parsers/aprofile.cc`) and the x86 feature names
//! `target_has_features` checks (`avx2`, `avx512f`, `avx512bw`, `sse4.2`, `amx-int8`, ...).
//!
//! passlab has no LLVM: the features come from a table of what LLVM's cpus and architecture
//! versions imply (AArch64's `HasV8_4aOps` brings dot product, `HasV8_6aOps` the int8 matrix
//! multiply, `HasV9_0aOps` SVE2, SVE implies full fp16; x86's `core-avx2` has AVX2, ...),
//! then `-mattr`'s `+feature` / `-feature` in order. A cpu the table does not know counts as
//! LLVM's `generic` one.

/// The features of a target (all false for a non-CPU target).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Features {
    pub is_aarch64: bool,
    /// An ARM A-profile triple (`aarch64*`, or `arm*` without a Cortex-M cpu).
    arm_a_profile: bool,
    pub has_asimd: bool,
    pub has_sve: bool,
    pub has_dotprod: bool,
    pub has_matmul_i8: bool,
    pub has_fp16_simd: bool,
    pub has_sme: bool,
    /// LLVM feature names (x86: `avx2`, `avx512f`, ...; ARM: `neon`, `sve`, ...).
    names: Vec<String>,
}

/// x86 cpus and the features TVM's x86 hooks ask about.
const X86_CPUS: &[(&[&str], &[&str])] = &[
    (
        &[
            "nehalem",
            "westmere",
            "corei7",
            "sandybridge",
            "corei7-avx",
            "ivybridge",
            "core-avx-i",
            "silvermont",
            "goldmont",
            "tremont",
            "btver2",
            "bdver1",
            "bdver2",
        ],
        &["sse4.2"],
    ),
    (
        &[
            "haswell",
            "core-avx2",
            "broadwell",
            "skylake",
            "alderlake",
            "raptorlake",
            "meteorlake",
            "znver1",
            "znver2",
            "znver3",
            "bdver4",
        ],
        &["sse4.2", "avx", "avx2", "fma"],
    ),
    (
        &["skylake-avx512", "skx", "knl", "knm"],
        &["sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw"],
    ),
    (
        &[
            "cascadelake",
            "cooperlake",
            "cannonlake",
            "icelake-client",
            "icelake-server",
            "tigerlake",
            "rocketlake",
            "znver4",
        ],
        &[
            "sse4.2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vnni",
        ],
    ),
    (
        &["sapphirerapids", "emeraldrapids", "graniterapids"],
        &[
            "sse4.2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vnni",
            "amx-int8",
        ],
    ),
];

/// AArch64 cpus: (names, architecture version, extra features).
const ARM_CPUS: &[(&[&str], f64, &[&str])] = &[
    (
        &["cortex-a53", "cortex-a57", "cortex-a72", "cortex-a73"],
        8.0,
        &[],
    ),
    (
        &[
            "cortex-a55",
            "cortex-a75",
            "cortex-a76",
            "cortex-a77",
            "cortex-a78",
            "neoverse-n1",
        ],
        8.2,
        &["dotprod", "fullfp16"],
    ),
    (&["neoverse-v1"], 8.4, &["sve", "i8mm", "fullfp16"]),
    (&["apple-m1", "apple-a14"], 8.5, &["fullfp16"]),
    (&["apple-m2", "apple-a15"], 8.6, &["fullfp16"]),
    (
        &["neoverse-n2", "neoverse-v2", "cortex-a710", "cortex-x2"],
        9.0,
        &["i8mm"],
    ),
];

impl Features {
    /// The features of a CPU target with this triple, cpu and `-mattr` list.
    pub fn of(triple: &str, cpu: &str, mattr: &[String]) -> Features {
        let mprofile = cpu.starts_with("cortex-m");
        let aarch64 = triple.starts_with("aarch64");
        let arm32 = triple.starts_with("arm") && !mprofile;
        let mut names: Vec<String> = Vec::new();
        let add = |names: &mut Vec<String>, f: &str| {
            if !names.iter().any(|n| n == f) {
                names.push(f.to_string());
            }
        };
        if aarch64 || arm32 {
            let mut version = if aarch64 { 8.0 } else { 0.0 };
            if aarch64 {
                add(&mut names, "neon");
            }
            if let Some((_, v, extra)) = ARM_CPUS.iter().find(|(ns, _, _)| ns.contains(&cpu)) {
                version = f64::max(version, *v);
                extra.iter().for_each(|f| add(&mut names, f));
            }
            for a in mattr {
                if let Some(v) = arch_version(a) {
                    version = f64::max(version, v);
                }
            }
            implied_by_version(version, &mut names);
        } else if let Some((_, fs)) = X86_CPUS.iter().find(|(ns, _)| ns.contains(&cpu)) {
            fs.iter().for_each(|f| add(&mut names, f));
        }
        for a in mattr {
            if arch_version(a).is_some() {
                continue;
            }
            if let Some(f) = a.strip_prefix('+') {
                add(&mut names, f);
                implied_by_feature(f, &mut names);
            } else if let Some(f) = a.strip_prefix('-') {
                names.retain(|n| n != f);
            }
        }
        let has = |f: &str| names.iter().any(|n| n == f);
        Features {
            is_aarch64: aarch64,
            arm_a_profile: aarch64 || arm32,
            has_asimd: has("neon"),
            has_sve: has("sve"),
            has_dotprod: has("dotprod"),
            has_matmul_i8: has("i8mm"),
            has_fp16_simd: has("fullfp16"),
            has_sme: has("sme"),
            names,
        }
    }

    /// Whether the target has the LLVM feature `name` (TVM's `target_has_features`).
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    pub(crate) fn is_arm_a_profile(&self) -> bool {
        self.arm_a_profile
    }

    /// The feature names, in the order they were found.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// `+v8.2a` -> 8.2 (TVM's `GetArchVersion`).
fn arch_version(attr: &str) -> Option<f64> {
    let v = attr.strip_prefix("+v")?.strip_suffix('a')?;
    v.parse().ok()
}

/// What LLVM's AArch64 architecture versions bring of the features TVM asks about.
fn implied_by_version(version: f64, names: &mut Vec<String>) {
    let mut add = |f: &str| {
        if !names.iter().any(|n| n == f) {
            names.push(f.to_string());
        }
    };
    // v9.1a includes v8.6a, v9.2a v8.7a, ...: a 9.x version counts as 8.(x + 5).
    let v8 = if version >= 9.0 {
        8.0 + (version - 9.0) + 0.5
    } else {
        version
    };
    if v8 >= 8.4 - 1e-9 {
        add("dotprod");
    }
    if v8 >= 8.6 - 1e-9 || version >= 9.1 - 1e-9 {
        add("i8mm");
    }
    if version >= 9.0 {
        add("sve2");
        add("sve");
        add("fullfp16");
    }
}

/// What one `+feature` brings with it in LLVM.
fn implied_by_feature(f: &str, names: &mut Vec<String>) {
    let implied: &[&str] = match f {
        "sve2" => &["sve", "fullfp16"],
        "sve" => &["fullfp16"],
        "sme" => &["bf16"],
        "avx512bw" | "avx512vnni" => &["avx512f", "avx2", "avx"],
        "avx512f" => &["avx2", "avx"],
        "avx2" => &["avx"],
        _ => &[],
    };
    for i in implied {
        if !names.iter().any(|n| n == i) {
            names.push(i.to_string());
        }
    }
}
