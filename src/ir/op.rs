//! The op registry: every Relay operator passlab knows, with its arity, attribute schema,
//! fusion pattern (TVM's `TOpPattern`) and stateful flag. The table itself lives in
//! `op_table.rs`; this file holds the types and the lookups.

use super::attrs::{AttrValue, Attrs};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// TVM's `TOpPattern`, which FuseOps uses to decide what may be fused.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum OpPattern {
    ElemWise = 0,
    Broadcast = 1,
    Injective = 2,
    CommReduce = 3,
    OutEWiseFusable = 4,
    Tuple = 7,
    Opaque = 8,
}

/// The declared type of an attribute field, used to coerce parsed values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AttrKind {
    Int,
    Bool,
    Double,
    Str,
    /// A dtype, written as a string (`"float32"`); null means "same as the input".
    DType,
    /// An array of integers or of arrays (`[1, 1]`, `[[0, 0], [1, 1]]`), or an index expression.
    Array,
    /// Anything (`ObjectRef` fields such as `indices_or_sections`).
    Any,
}

/// A field's default value; `None` in [`AttrField::default`] means "required".
#[derive(Clone, Copy, Debug)]
pub enum AttrDefault {
    Null,
    Int(i64),
    Bool(bool),
    Double(f64),
    Str(&'static str),
    Ints(&'static [i64]),
}

impl AttrDefault {
    pub fn to_value(self) -> AttrValue {
        match self {
            AttrDefault::Null => AttrValue::Null,
            AttrDefault::Int(v) => AttrValue::int(v),
            AttrDefault::Bool(b) => AttrValue::Bool(b),
            AttrDefault::Double(f) => AttrValue::Float(f),
            AttrDefault::Str(s) => AttrValue::str(s),
            AttrDefault::Ints(vs) => AttrValue::ints(vs),
        }
    }
}

/// One field of an attribute schema.
#[derive(Debug)]
pub struct AttrField {
    pub name: &'static str,
    pub kind: AttrKind,
    /// `None`: no default, so the field is always printed and required when parsing.
    pub default: Option<AttrDefault>,
}

/// The attribute schema of an attrs type (`relay.attrs.Conv2DAttrs`), fields in printing order.
#[derive(Debug)]
pub struct AttrSchema {
    pub type_key: &'static str,
    pub fields: &'static [AttrField],
}

/// One registered operator.
#[derive(Debug)]
pub struct OpDef {
    pub name: &'static str,
    /// Number of inputs (`-1`: variadic).
    pub num_inputs: i32,
    /// `None` when TVM registers no pattern (FuseOps treats it as opaque).
    pub pattern: Option<OpPattern>,
    pub stateful: bool,
    /// Not a computation (`on_device`, memory and VM ops): FoldConstant leaves them alone.
    pub non_computational: bool,
    /// The TVM type relation name, for documentation and `help`.
    pub type_rel: &'static str,
    /// The attrs type key, when the op has attributes (`relay.attrs.Conv2DAttrs`).
    pub attrs_type_key: Option<&'static str>,
    /// The schema of those attributes, when passlab knows it; ops with an attrs type but no
    /// schema accept any fields and keep them in the order written.
    pub schema: Option<&'static AttrSchema>,
}

/// Why a call's attributes were refused: the message, the offending field (to point at it) and
/// a "did you mean" hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrError {
    pub message: String,
    pub field: Option<Arc<str>>,
    pub hint: Option<String>,
}

impl fmt::Display for AttrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "; {h}")?;
        }
        Ok(())
    }
}

/// A reference to a registered operator; equal when it is the same op.
#[derive(Clone, Copy)]
pub struct Op(pub &'static OpDef);

/// The same op: the same table entry, or an entry of the same name in another copy of the op
/// table (evcxr links a copy of the library into every notebook cell, so an op parsed in one
/// cell points into another table than the passes of the next cell).
impl PartialEq for Op {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0) || self.0.name == other.0.name
    }
}
impl Eq for Op {}
impl std::hash::Hash for Op {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.name.hash(h)
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Op({})", self.0.name)
    }
}

impl std::ops::Deref for Op {
    type Target = OpDef;
    fn deref(&self) -> &OpDef {
        self.0
    }
}

/// Name -> op, with FxHash: looked up for every call the parser reads and every call a pass
/// builds by name, where SipHash's setup cost more than the lookup.
fn index() -> &'static rustc_hash::FxHashMap<&'static str, &'static OpDef> {
    static INDEX: OnceLock<rustc_hash::FxHashMap<&'static str, &'static OpDef>> = OnceLock::new();
    INDEX.get_or_init(|| super::op_table::OPS.iter().map(|d| (d.name, d)).collect())
}

/// The type relations an op registered at run time may name, as TVM's
/// `tvm.relay.type_relation.<name>` functions: the name given and the relation it stands for.
pub const REGISTRABLE_RELATIONS: &[(&str, &str)] = &[
    ("Identity", "IdentityRel"),
    ("IdentityComp", "IdentityCompRel"),
    ("Broadcast", "BroadcastRel"),
    ("BroadcastComp", "BroadcastCompRel"),
    ("Reduce", "ReduceRel"),
];

/// The relation a registered op names (`Identity`), as the table names it (`IdentityRel`).
pub fn registrable_relation(name: &str) -> Result<&'static str, String> {
    if let Some((_, full)) = REGISTRABLE_RELATIONS.iter().find(|(n, _)| *n == name) {
        return Ok(full);
    }
    let names = REGISTRABLE_RELATIONS.iter().map(|(n, _)| *n);
    let hint = crate::suggest::closest(name, names.clone())
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    Err(format!(
        "unknown type relation `{}` (known: {}){hint}",
        crate::suggest::shown(name),
        names.collect::<Vec<_>>().join(", ")
    ))
}

/// An op to register at run time ([`Op::register`]): what TVM's `_op.register` followed by
/// `set_num_inputs`, `add_type_rel`, `register_pattern`, `register_stateful` and
/// `set_attrs_type_key` say.
#[derive(Clone, Debug)]
pub struct OpSpec {
    pub name: String,
    pub num_inputs: i32,
    /// One of [`REGISTRABLE_RELATIONS`]' names (`Identity`), or `None`: calls of the op then
    /// fail to type, as an op without a relation does in TVM.
    pub type_rel: Option<String>,
    pub pattern: Option<OpPattern>,
    pub stateful: bool,
    /// Calls take any attributes, kept as written, under this key (`DictAttrs`).
    pub attrs_type_key: Option<String>,
}

/// The ops registered at run time. Process-wide, as TVM's op registry is: an op exists for
/// every session once registered, and for the rest of the process (each is leaked to give it
/// the table's `'static` lifetime; [`crate::limits::MAX_REGISTERED_OPS`] bounds them).
fn registered() -> &'static std::sync::RwLock<rustc_hash::FxHashMap<&'static str, &'static OpDef>> {
    static REGISTERED: OnceLock<
        std::sync::RwLock<rustc_hash::FxHashMap<&'static str, &'static OpDef>>,
    > = OnceLock::new();
    REGISTERED.get_or_init(Default::default)
}

/// Every op registered at run time, by name.
pub fn registered_ops() -> Vec<Op> {
    let table = registered().read().unwrap_or_else(|e| e.into_inner());
    let mut ops: Vec<Op> = table.values().map(|d| Op(d)).collect();
    ops.sort_by_key(|o| o.name());
    ops
}

impl Op {
    /// Looks an op up by name (`nn.conv2d`): the table's, then those registered at run time.
    pub fn get(name: &str) -> Option<Op> {
        if let Some(d) = index().get(name) {
            return Some(Op(d));
        }
        let table = registered().read().unwrap_or_else(|e| e.into_inner());
        table.get(name).map(|d| Op(d))
    }

    /// Registers an op at run time. A table op's name is refused, as TVM refuses it
    /// ("Operator custom_log3 is registered before"); so is a name registered with another
    /// definition, and an unknown relation. The same definition registered again gives the op
    /// registered first: a session replayed in the same process registers its ops again
    /// (sessions refuse their own repeats, as TVM does).
    pub fn register(spec: OpSpec) -> Result<Op, String> {
        if spec.name.is_empty() {
            return Err("an op needs a name".into());
        }
        let type_rel = match &spec.type_rel {
            None => "",
            Some(rel) => registrable_relation(rel)?,
        };
        if spec.num_inputs < -1 {
            return Err(format!(
                "`num_inputs` must be -1 (any number) or at least 0, not {}",
                spec.num_inputs
            ));
        }
        let mut table = registered().write().unwrap_or_else(|e| e.into_inner());
        if index().contains_key(spec.name.as_str()) {
            return Err(format!(
                "operator `{}` is registered before",
                crate::suggest::shown(&spec.name)
            ));
        }
        if let Some(def) = table.get(spec.name.as_str()) {
            let same = def.num_inputs == spec.num_inputs
                && def.type_rel == type_rel
                && def.pattern == spec.pattern
                && def.stateful == spec.stateful
                && def.attrs_type_key == spec.attrs_type_key.as_deref();
            return if same {
                Ok(Op(def))
            } else {
                Err(format!(
                    "operator `{}` is registered before, with another definition (ops are \
                     registered for the rest of the process: use another name)",
                    crate::suggest::shown(&spec.name)
                ))
            };
        }
        if table.len() >= crate::limits::MAX_REGISTERED_OPS {
            return Err(format!(
                "at most {} ops may be registered in a process",
                crate::limits::MAX_REGISTERED_OPS
            ));
        }
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let def: &'static OpDef = Box::leak(Box::new(OpDef {
            name: leak(spec.name),
            num_inputs: spec.num_inputs,
            pattern: spec.pattern,
            stateful: spec.stateful,
            non_computational: false,
            type_rel,
            attrs_type_key: spec.attrs_type_key.map(leak),
            schema: None,
        }));
        table.insert(def.name, def);
        Ok(Op(def))
    }

    /// Looks an op up, or returns an error that suggests the closest known names.
    pub fn lookup(name: &str) -> Result<Op, String> {
        Op::get(name).ok_or_else(|| {
            let mut names: Vec<&str> = all().map(|o| o.name).collect();
            names.extend(registered_ops().iter().map(|o| o.name()));
            match crate::suggest::closest(name, names.iter().copied()) {
                Some(s) => format!(
                    "unknown op `{}`; did you mean `{s}`?",
                    crate::suggest::shown(name)
                ),
                None => format!("unknown op `{}`", crate::suggest::shown(name)),
            }
        })
    }

    pub fn name(&self) -> &'static str {
        self.0.name
    }

    /// The fusion pattern, opaque when TVM registers none.
    pub fn pattern_or_opaque(&self) -> OpPattern {
        self.0.pattern.unwrap_or(OpPattern::Opaque)
    }

    /// Builds this op's attributes from `key=value` pairs as written: checks the names against the
    /// schema, coerces values to the field kinds, fills in defaults and reports missing required
    /// fields. Ops without a schema keep the pairs as given.
    ///
    /// An op TVM registers without an attrs type (`vision.roi_align`) takes attributes only
    /// with an `attrs_type_key="..."` naming their type, as in TVM's parser; a type passlab
    /// has a schema for is checked against it.
    pub fn make_attrs(&self, mut given: Vec<(Arc<str>, AttrValue)>) -> Result<Attrs, AttrError> {
        if self.0.attrs_type_key.is_none() {
            if let Some(p) = given.iter().position(|(k, _)| &**k == "attrs_type_key") {
                let (k, v) = given.remove(p);
                let AttrValue::Str(key) = v else {
                    return Err(AttrError {
                        message: "`attrs_type_key` must be a string".into(),
                        field: Some(k),
                        hint: None,
                    });
                };
                return match schema_for_key(&key) {
                    Some(schema) => self.with_schema(schema, given),
                    None => Ok(Attrs::new(Some(&key), given)),
                };
            }
        }
        let Some(schema) = self.0.schema else {
            if self.0.attrs_type_key.is_none() {
                if let Some((k, _)) = given.first() {
                    return Err(AttrError {
                        message: format!("`{}` takes no attributes", self.0.name),
                        field: Some(k.clone()),
                        hint: Some(
                            "TVM registers no attrs type for it: name one with \
                             `attrs_type_key=\"...\"`"
                                .into(),
                        ),
                    });
                }
                return Ok(Attrs::NONE);
            }
            return Ok(Attrs::new(self.0.attrs_type_key, given));
        };
        self.with_schema(schema, given)
    }

    /// The attributes `given`, checked against `schema`, defaults filled in.
    fn with_schema(
        &self,
        schema: &'static AttrSchema,
        given: Vec<(Arc<str>, AttrValue)>,
    ) -> Result<Attrs, AttrError> {
        for (k, _) in &given {
            if !schema.fields.iter().any(|f| f.name == &**k) {
                let names = schema.fields.iter().map(|f| f.name);
                let hint =
                    crate::suggest::closest(k, names).map(|s| format!("did you mean `{s}`?"));
                return Err(AttrError {
                    message: format!(
                        "`{}` has no attribute `{k}` (its attributes: {})",
                        self.0.name,
                        schema
                            .fields
                            .iter()
                            .map(|f| f.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    field: Some(k.clone()),
                    hint,
                });
            }
        }
        let mut fields = Vec::with_capacity(schema.fields.len());
        for f in schema.fields {
            let value = match given.iter().find(|(k, _)| &**k == f.name) {
                Some((k, v)) => coerce(f, v.clone()).map_err(|message| AttrError {
                    message,
                    field: Some(k.clone()),
                    hint: None,
                })?,
                None => match f.default {
                    Some(d) => d.to_value(),
                    None => {
                        return Err(AttrError {
                            message: format!(
                                "`{}` needs the attribute `{}` (write `{}=None` for a null value)",
                                self.0.name, f.name, f.name
                            ),
                            field: None,
                            hint: None,
                        })
                    }
                },
            };
            fields.push((super::attrs::static_str(f.name), value));
        }
        Ok(Attrs::shared(schema.type_key, fields))
    }

    /// The schema of this call's attributes: the op's, or, for an op TVM registers without an
    /// attrs type, the one its `attrs_type_key` names.
    pub fn schema_of(&self, attrs: &Attrs) -> Option<&'static AttrSchema> {
        match (self.0.schema, self.0.attrs_type_key) {
            (Some(s), _) => Some(s),
            (None, None) => attrs.type_key().and_then(schema_for_key),
            (None, Some(_)) => None,
        }
    }

    /// The default attributes of this op (only for ops whose fields all have defaults).
    pub fn default_attrs(&self) -> Attrs {
        self.make_attrs(Vec::new()).unwrap_or(Attrs::NONE)
    }
}

/// The schema of an attrs type by its key (`relay.attrs.ROIAlignAttrs`): an op's, or one of the
/// attrs types TVM registers no op with, which calls name with `attrs_type_key=`.
pub fn schema_for_key(key: &str) -> Option<&'static AttrSchema> {
    use super::op_table::{
        ROI_ALIGN_ATTRS, ROI_POOL_ATTRS, SCANOP_ATTRS, SCATTER_ELEMENTS_ATTRS, SCATTER_ND_ATTRS,
        TRILU_ATTRS, UNIQUE_ATTRS,
    };
    [
        &ROI_ALIGN_ATTRS,
        &ROI_POOL_ATTRS,
        &SCANOP_ATTRS,
        &TRILU_ATTRS,
        &SCATTER_ELEMENTS_ATTRS,
        &SCATTER_ND_ATTRS,
        &UNIQUE_ATTRS,
    ]
    .into_iter()
    .chain(all().filter_map(|o| o.0.schema))
    .find(|s| s.type_key == key)
}

/// The ops whose layout rule (ConvertLayout / AlterOpLayout) takes layouts from their
/// attributes rather than from their inputs, by kind of rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LayoutRole {
    Conv,
    Pool,
    Resize,
    Roi,
    Concatenate,
    BiasAdd,
}

impl Op {
    /// Which attribute-driven layout rule this op has, if any (elementwise and broadcast
    /// ops follow their inputs and have none here).
    pub fn layout_role(&self) -> Option<LayoutRole> {
        Some(match self.name() {
            "nn.conv1d"
            | "nn.conv2d"
            | "nn.conv3d"
            | "nn.conv2d_transpose"
            | "nn.conv3d_transpose"
            | "nn.contrib_conv2d_NCHWc"
            | "nn.contrib_depthwise_conv2d_NCHWc"
            | "nn.contrib_conv2d_gemm_without_weight_transform"
            | "nn.deformable_conv2d"
            | "qnn.conv2d"
            | "qnn.conv2d_transpose" => LayoutRole::Conv,
            "nn.max_pool1d"
            | "nn.max_pool2d"
            | "nn.max_pool3d"
            | "nn.avg_pool1d"
            | "nn.avg_pool2d"
            | "nn.avg_pool3d"
            | "nn.global_max_pool2d"
            | "nn.global_avg_pool2d"
            | "nn.adaptive_max_pool1d"
            | "nn.adaptive_max_pool2d"
            | "nn.adaptive_max_pool3d"
            | "nn.adaptive_avg_pool1d"
            | "nn.adaptive_avg_pool2d"
            | "nn.adaptive_avg_pool3d"
            | "qnn.avg_pool2d" => LayoutRole::Pool,
            "image.resize1d" | "image.resize2d" => LayoutRole::Resize,
            "vision.roi_align" | "vision.roi_pool" => LayoutRole::Roi,
            "concatenate" | "qnn.concatenate" => LayoutRole::Concatenate,
            "nn.bias_add" => LayoutRole::BiasAdd,
            _ => return None,
        })
    }
}

/// Every registered op, in table order.
pub fn all() -> impl Iterator<Item = Op> {
    super::op_table::OPS.iter().map(Op)
}

/// Whether a field equals its declared default (such fields are not printed).
pub fn is_default(schema: &AttrSchema, name: &str, value: &AttrValue) -> bool {
    schema
        .fields
        .iter()
        .find(|f| f.name == name)
        .and_then(|f| f.default)
        .is_some_and(|d| d.to_value() == *value)
}

fn coerce(field: &AttrField, v: AttrValue) -> Result<AttrValue, String> {
    let bad = |v: &AttrValue| {
        Err(format!(
            "attribute `{}` expects {:?}, got {v}",
            field.name, field.kind
        ))
    };
    Ok(match (field.kind, v) {
        (_, AttrValue::Null) => AttrValue::Null,
        (_, v @ AttrValue::Meta(..)) => v,
        (AttrKind::Double, AttrValue::Int(i, _)) => AttrValue::Float(i as f64),
        (AttrKind::Double, v @ AttrValue::Float(_)) => v,
        (AttrKind::Int, v @ AttrValue::Int(..)) => v,
        (AttrKind::Int, AttrValue::Bool(b)) => AttrValue::int(b as i64),
        (AttrKind::Bool, AttrValue::Int(i, _)) => AttrValue::Bool(i != 0),
        (AttrKind::Bool, v @ AttrValue::Bool(_)) => v,
        (AttrKind::Str | AttrKind::DType, v @ AttrValue::Str(_)) => v,
        (AttrKind::Array | AttrKind::Any, v) => v,
        (_, v) => return bad(&v),
    })
}
