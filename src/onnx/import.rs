//! The graph walk of the importer (TVM's `GraphProto.from_onnx`): initializers become
//! constants (or parameters), graph inputs become typed parameters, each node is converted
//! in order by [`super::ops`], and the graph outputs become `@main`'s result.
//!
//! Every node built for an ONNX node carries that node's span: the module's source text is
//! the list of the ONNX node names (one per line, `OpType_N` for an unnamed node, as TVM
//! names them), and the span covers the name, so a type error or a diagnostic points at the
//! ONNX node. Calls are typed as they are built (the shape rules InferType uses) and folded
//! at once when all their arguments are constants, as TVM folds each node's output; so the
//! converters can read shapes and constant values of their inputs, and an ill-typed call is
//! an error at the node that made it.

use super::proto::{attr_type, AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use super::{tensor, ImportOptions, OnnxError};
use crate::ir::{
    AttrValue, Attrs, Constant, DType, Dim, Expr, ExprKind, Function, Module, Op, SourceFile, Span,
    TensorData, Type, Var,
};
use crate::passes::infer_type::{call_type, call_type_error, constant_type, node_type};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::sync::Arc;

/// The opsets whose converters the importer follows (TVM v0.18's, by version). Opsets 22 to
/// 28 (those of the pinned onnx package) changed the ops passlab converts only by admitting
/// element types (and attributes only those types use: Cast's `round_mode`, Range's
/// `stash_type`) or, for SpaceToDepth, a `mode` whose default is the old behaviour; so a
/// model at those opsets imports with the newest converter at or below its opset.
pub const MIN_OPSET: i64 = 1;
pub const MAX_OPSET: i64 = 28;

/// Converts a decoded model to a module with one function, `@main`.
pub fn import_model(
    model: &ModelProto,
    source_name: &str,
    opts: &ImportOptions,
) -> Result<Module, OnnxError> {
    // The calls it builds are typed on build: their rule answers live in this run's tables.
    let _run = crate::pass::run_state::enter_keeping_buffers();
    let opset = default_opset(model)?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| OnnxError::new("the model has no graph"))?;
    let mut g = Importer {
        values: FxHashMap::default(),
        params: Vec::new(),
        unused_params: Vec::new(),
        names: String::new(),
        type_counts: FxHashMap::default(),
        var_names: FxHashSet::default(),
        param_values: FxHashMap::default(),
        fills: RefCell::default(),
        opset,
    };
    g.initializers(graph, opts)?;
    g.inputs(graph)?;
    for node in &graph.node {
        g.node(node)?;
    }
    let mut outs = Vec::with_capacity(graph.output.len());
    for o in &graph.output {
        let name = o.name.as_deref().unwrap_or("");
        let v = g.values.get(name).cloned().ok_or_else(|| {
            OnnxError::new(format!(
                "graph output `{name}` is not computed by any node, initializer or input"
            ))
        })?;
        outs.push(v);
    }
    let body = match outs.len() {
        0 => return Err(OnnxError::new("the graph has no outputs")),
        1 => outs.pop().expect("one output"),
        _ => {
            let kind = ExprKind::Tuple(outs);
            let ty = node_type(&kind);
            Expr::with_info(kind, ty, Span::DUMMY)
        }
    };
    // Parameters: the graph inputs in order, then the initializers kept as parameters that
    // are not graph inputs, if the graph uses them (TVM keeps only used ones).
    let mut params: Vec<Var> = g.params.iter().map(|(_, v)| v.clone()).collect();
    if !g.unused_params.is_empty() {
        let used = free_var_ids(&body);
        for (_, v) in &g.unused_params {
            if used.contains(&v.id()) {
                params.push(v.clone());
            }
        }
    }
    let func = Expr::function(Function {
        params,
        body,
        ret_type: None,
        attrs: Vec::new(),
        type_params: Vec::new(),
    });
    let mut m = Module::new();
    m.add("main", func.clone())
        .map_err(|e| OnnxError::new(e.to_string()))?;
    // TVM's from_onnx runs DynamicToStatic after import (with frozen parameters); the
    // converters fold as they go, so it can only change a function with a `dyn.*` call.
    if opts.freeze_params && has_dyn_call(&func) {
        let g = m
            .functions()
            .next()
            .map(|(g, _)| g.clone())
            .ok_or_else(|| OnnxError::new("no @main"))?;
        let out = crate::passes::dynamic_to_static::dynamic_to_static(&g, &func, &m)
            .map_err(|e| OnnxError::new(format!("DynamicToStatic after import: {}", e.message)))?;
        m.update("main", out)
            .map_err(|e| OnnxError::new(e.to_string()))?;
    }
    m.source = Some(Arc::new(SourceFile {
        name: source_name.to_string(),
        text: std::mem::take(&mut g.names),
    }));
    Ok(m)
}

/// Whether `e` calls a `dyn.*` op.
fn has_dyn_call(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit::each_node(e, |n| {
        found |= n
            .call_op_of()
            .is_some_and(|(op, _)| op.name().starts_with("dyn."));
    });
    found
}

/// The version of the default operator set (`""` or `ai.onnx`) the model imports.
fn default_opset(model: &ModelProto) -> Result<i64, OnnxError> {
    let v = model
        .opset_import
        .iter()
        .filter(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .filter_map(|o| o.version)
        .max()
        .ok_or_else(|| OnnxError::new("the model imports no version of the default opset"))?;
    if !(MIN_OPSET..=MAX_OPSET).contains(&v) {
        return Err(OnnxError::new(format!(
            "opset {v} is not supported (passlab imports opsets {MIN_OPSET} to {MAX_OPSET})"
        )));
    }
    Ok(v)
}

/// The ids of the variables used in `e` (every variable in an imported graph is free).
fn free_var_ids(e: &Expr) -> FxHashSet<u64> {
    let mut ids = FxHashSet::default();
    crate::ir::visit::each_node(e, |n| {
        if let ExprKind::Var(v) = n.kind() {
            ids.insert(v.id());
        }
    });
    ids
}

struct Importer {
    /// Each ONNX value by name: its expression (a sequence is a tuple).
    values: FxHashMap<String, Expr>,
    /// `@main`'s parameters from graph inputs, in order.
    params: Vec<(String, Var)>,
    /// Initializers kept as parameters that are not graph inputs (`freeze_params=false`).
    unused_params: Vec<(String, Var)>,
    /// The source text spans point into: one ONNX node name a line.
    names: String,
    /// How many unnamed nodes of each op type were named so far.
    type_counts: FxHashMap<String, usize>,
    /// Variable names given so far (kept unique).
    var_names: FxHashSet<String>,
    /// The values of initializers kept as parameters, by variable id: a converter that needs
    /// a constant (a shape, axes) reads them, as TVM's converters read `params`.
    param_values: FxHashMap<u64, TensorData>,
    /// Constant fills made so far (see [`Cx::fill`]).
    fills: RefCell<Fills>,
    opset: i64,
}

/// Constant fills by dtype, shape and element bytes.
type Fills = FxHashMap<(DType, Vec<i64>, Vec<u8>), Arc<TensorData>>;

impl Importer {
    fn initializers(&mut self, graph: &GraphProto, opts: &ImportOptions) -> Result<(), OnnxError> {
        let inputs: FxHashSet<&str> = graph
            .input
            .iter()
            .filter_map(|i| i.name.as_deref())
            .collect();
        for t in &graph.initializer {
            let name = t.name.as_deref().unwrap_or("").to_string();
            if name.trim().is_empty() {
                return Err(OnnxError::new("an initializer has no name"));
            }
            let data = tensor::to_data(t)
                .map_err(|e| OnnxError::new(format!("initializer `{name}`: {e}")))?;
            let value = if opts.freeze_params {
                constant(data, Span::DUMMY)
            } else {
                let ty = Type::tensor(
                    data.shape.iter().map(|&d| Dim::Static(d)).collect(),
                    data.dtype,
                );
                let var = self.new_var(&name, ty);
                self.param_values.insert(var.id(), data);
                // A graph input too: a parameter at its place among the inputs (below).
                if !inputs.contains(name.as_str()) {
                    self.unused_params.push((name.clone(), var.clone()));
                }
                var_expr(&var)
            };
            self.values.insert(name, value);
        }
        Ok(())
    }

    fn inputs(&mut self, graph: &GraphProto) -> Result<(), OnnxError> {
        let mut seen = FxHashSet::default();
        for i in &graph.input {
            let name = i.name.as_deref().unwrap_or("").to_string();
            if let Some(v) = self.values.get(&name) {
                // An initializer: a parameter here when kept as one, else a constant.
                if let ExprKind::Var(var) = v.kind() {
                    if seen.insert(var.id()) {
                        self.params.push((name.clone(), var.clone()));
                    }
                }
                continue;
            }
            let ty = i
                .r#type
                .as_ref()
                .ok_or_else(|| OnnxError::new(format!("graph input `{name}` has no type")))?;
            let Some(tt) = &ty.tensor_type else {
                return Err(OnnxError::new(format!(
                    "graph input `{name}` is not a tensor (sequence, map and optional inputs \
                     are not supported)"
                )));
            };
            let elem = tt.elem_type.unwrap_or(0);
            let dtype = tensor::dtype_of(elem).ok_or_else(|| {
                OnnxError::new(format!(
                    "graph input `{name}`: {} tensors are not supported",
                    tensor::elem_type_name(elem)
                ))
            })?;
            let dims = tt.shape.as_ref().map(|s| s.dim.as_slice()).unwrap_or(&[]);
            if dims.len() > crate::limits::MAX_TENSOR_NDIM {
                return Err(OnnxError::new(format!(
                    "graph input `{name}` has {} dimensions (at most {})",
                    dims.len(),
                    crate::limits::MAX_TENSOR_NDIM
                )));
            }
            // As TVM's `get_info`: a dimension without a positive value is unknown.
            let shape = dims
                .iter()
                .map(|d| match d.dim_value {
                    Some(v) if v > 0 && v <= i64::from(i32::MAX) => Dim::Static(v),
                    Some(v) if v > 0 => Dim::Static64(v),
                    _ => Dim::Any,
                })
                .collect();
            let var = self.new_var(&name, Type::tensor(shape, dtype));
            self.values.insert(name.clone(), var_expr(&var));
            self.params.push((name, var));
        }
        Ok(())
    }

    /// A variable named after an ONNX value: characters the Relay text format does not
    /// allow in a name become `_`, a name not starting with a letter or `_` gets a `v`
    /// in front, and a name taken already gets a `_N` suffix.
    fn new_var(&mut self, onnx_name: &str, ty: Type) -> Var {
        let mut name: String = onnx_name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '/' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            name.insert(0, 'v');
        }
        if !self.var_names.insert(name.clone()) {
            let mut n = 1;
            while !self.var_names.insert(format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        Var::new(&name, Some(ty))
    }

    /// The span of a node: its name (TVM's `get_source_name`) on a new line of the source.
    fn node_span(&mut self, node: &NodeProto, op_type: &str) -> Span {
        let name = match node.name.as_deref() {
            Some(n) if !n.is_empty() => n.replace(['\n', '\r'], " "),
            _ => {
                let count = self.type_counts.entry(op_type.to_string()).or_insert(0);
                let n = format!("{op_type}_{count}");
                *count += 1;
                n
            }
        };
        let lo = self.names.len();
        self.names.push_str(&name);
        let hi = self.names.len();
        self.names.push('\n');
        Span::new(lo, hi)
    }

    fn node(&mut self, node: &NodeProto) -> Result<(), OnnxError> {
        let op_type = node.op_type.as_deref().unwrap_or("");
        let span = self.node_span(node, op_type);
        let node_name = self.names[span.lo as usize..span.hi as usize].to_string();
        let fail =
            |msg: String| OnnxError::new(format!("node `{node_name}` ({op_type}): {msg}")).at(span);
        let domain = node.domain.as_deref().unwrap_or("");
        if !matches!(domain, "" | "ai.onnx") {
            return Err(fail(format!(
                "operators of domain `{domain}` are not supported (opset {})",
                self.opset
            )));
        }
        let mut inputs = Vec::with_capacity(node.input.len());
        for i in &node.input {
            if i.is_empty() {
                inputs.push(None);
                continue;
            }
            match self.values.get(i) {
                Some(v) => inputs.push(Some(v.clone())),
                None => {
                    return Err(fail(format!(
                        "input `{i}` is not computed by an earlier node, an initializer or a \
                         graph input"
                    )))
                }
            }
        }
        let mut attrs = FxHashMap::default();
        for a in &node.attribute {
            attrs.insert(a.name.as_deref().unwrap_or(""), a);
        }
        let outputs: Vec<&str> = node.output.iter().map(String::as_str).collect();
        let mut cx = Cx {
            span,
            opset: self.opset,
            param_values: &self.param_values,
            fills: &self.fills,
            attrs,
            num_outputs: outputs.len(),
        };
        let results = super::ops::convert(&mut cx, op_type, &inputs).map_err(|e| match e {
            ConvertError::Unsupported => fail(format!(
                "operator `{op_type}` is not supported (opset {})",
                self.opset
            )),
            ConvertError::Invalid(m) => fail(m),
        })?;
        if results.len() < outputs.iter().filter(|o| !o.is_empty()).count() {
            return Err(fail(format!(
                "the node has {} outputs, the conversion makes {}",
                outputs.len(),
                results.len()
            )));
        }
        for (name, value) in outputs.iter().zip(results) {
            if !name.is_empty() {
                self.values.insert(name.to_string(), value);
            }
        }
        Ok(())
    }
}

fn var_expr(v: &Var) -> Expr {
    Expr::with_info(ExprKind::Var(v.clone()), v.ann().cloned(), Span::DUMMY)
}

fn constant(data: TensorData, span: Span) -> Expr {
    let c = Constant::from_data(data);
    let ty = constant_type(&c);
    Expr::with_info(ExprKind::Constant(Arc::new(c)), ty, span)
}

/// Why a node did not convert.
pub(super) enum ConvertError {
    /// No converter for the op (at this opset).
    Unsupported,
    Invalid(String),
}

impl From<String> for ConvertError {
    fn from(m: String) -> Self {
        ConvertError::Invalid(m)
    }
}

pub(super) type CResult<T> = Result<T, ConvertError>;

/// A converter's view of its node: attributes, the opset, and builders for typed, folded,
/// spanned Relay nodes.
pub(super) struct Cx<'a> {
    pub span: Span,
    pub opset: i64,
    /// Values of initializers kept as parameters (see `Importer::param_values`).
    pub param_values: &'a FxHashMap<u64, TensorData>,
    fills: &'a RefCell<Fills>,
    pub attrs: FxHashMap<&'a str, &'a AttributeProto>,
    pub num_outputs: usize,
}

impl Cx<'_> {
    // ---- attributes

    pub fn has(&self, name: &str) -> bool {
        self.attrs.contains_key(name)
    }

    fn attr(&self, name: &str, want: i32) -> CResult<Option<&AttributeProto>> {
        let Some(a) = self.attrs.get(name) else {
            return Ok(None);
        };
        match a.r#type {
            Some(t) if t != want => Err(ConvertError::Invalid(format!(
                "attribute `{name}` has type {t}, expected {want}"
            ))),
            _ => Ok(Some(a)),
        }
    }

    pub fn int(&self, name: &str, default: i64) -> CResult<i64> {
        Ok(self
            .attr(name, attr_type::INT)?
            .and_then(|a| a.i)
            .unwrap_or(default))
    }

    pub fn float(&self, name: &str, default: f64) -> CResult<f64> {
        Ok(self
            .attr(name, attr_type::FLOAT)?
            .and_then(|a| a.f)
            .map(f64::from)
            .unwrap_or(default))
    }

    pub fn string(&self, name: &str, default: &str) -> CResult<String> {
        Ok(self
            .attr(name, attr_type::STRING)?
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_else(|| default.to_string()))
    }

    pub fn ints(&self, name: &str) -> CResult<Option<Vec<i64>>> {
        Ok(self.attr(name, attr_type::INTS)?.map(|a| a.ints.clone()))
    }

    pub fn floats(&self, name: &str) -> CResult<Option<Vec<f32>>> {
        Ok(self
            .attr(name, attr_type::FLOATS)?
            .map(|a| a.floats.clone()))
    }

    pub fn strings(&self, name: &str) -> CResult<Option<Vec<String>>> {
        Ok(self.attr(name, attr_type::STRINGS)?.map(|a| {
            a.strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        }))
    }

    pub fn tensor_attr(&self, name: &str) -> CResult<Option<&TensorProto>> {
        Ok(self
            .attr(name, attr_type::TENSOR)?
            .and_then(|a| a.t.as_ref()))
    }

    pub fn graph_attr_present(&self) -> bool {
        self.attrs
            .values()
            .any(|a| a.g.is_some() || !a.graphs.is_empty())
    }

    // ---- what is known about an input

    /// The input's type, which every converter needs known.
    pub fn ty<'e>(&self, e: &'e Expr) -> CResult<&'e Type> {
        e.ty().ok_or_else(|| {
            ConvertError::Invalid("an input's type is not known at import".to_string())
        })
    }

    pub fn dims(&self, e: &Expr) -> CResult<Vec<Dim>> {
        match self.ty(e)?.as_tensor() {
            Some(t) => Ok(t.shape.clone()),
            None => Err(ConvertError::Invalid("an input is not a tensor".into())),
        }
    }

    pub fn rank(&self, e: &Expr) -> CResult<usize> {
        Ok(self.dims(e)?.len())
    }

    /// The input's static shape (an error when an extent is unknown).
    pub fn shape(&self, e: &Expr) -> CResult<Vec<i64>> {
        self.dims(e)?
            .iter()
            .map(|d| {
                d.as_static().ok_or_else(|| {
                    ConvertError::Invalid(
                        "an input's shape is not static, which this conversion needs".into(),
                    )
                })
            })
            .collect()
    }

    pub fn dtype(&self, e: &Expr) -> CResult<DType> {
        match self.ty(e)?.as_tensor() {
            Some(t) => Ok(t.dtype),
            None => Err(ConvertError::Invalid("an input is not a tensor".into())),
        }
    }

    /// The input's value when it is a constant with data, or an initializer kept as a
    /// parameter.
    pub fn value<'e>(&'e self, e: &'e Expr) -> Option<&'e TensorData> {
        match e.kind() {
            ExprKind::Var(v) => self.param_values.get(&v.id()),
            _ => e.as_constant().and_then(|c| c.data.as_deref()),
        }
    }

    /// The input's values as integers when it is a constant.
    pub fn const_ints(&self, e: &Expr) -> Option<Vec<i64>> {
        self.value(e).map(TensorData::to_i64_vec)
    }

    /// An integer input that must be a constant (shapes, axes, pads).
    pub fn need_ints(&self, e: &Expr, what: &str) -> CResult<Vec<i64>> {
        self.const_ints(e).ok_or_else(|| {
            ConvertError::Invalid(format!(
                "{what} must be a constant at import (a value computed at run time is not \
                 supported)"
            ))
        })
    }

    // ---- builders

    pub fn constant(&self, data: TensorData) -> Expr {
        constant(data, self.span)
    }

    /// A constant of `shape` with every element `elem` (its little-endian bytes). Equal fills
    /// share their data (a constant is immutable; each use is still its own node): exporters
    /// that make weights with ConstantOfShape ask for the same fill many times, and the
    /// `light/` models' weights then take a few buffers instead of hundreds of megabytes.
    pub fn fill(&self, dtype: DType, shape: Vec<i64>, elem: Vec<u8>) -> Expr {
        let mut fills = self.fills.borrow_mut();
        let key = (dtype, shape, elem);
        let data = match fills.get(&key) {
            Some(d) => d.clone(),
            None => {
                let n: usize = key.1.iter().map(|&d| d as usize).product();
                // float32 held as `f32`s, so the kernels read the weights in place.
                let bytes = match <[u8; 4]>::try_from(&key.2[..]) {
                    Ok(b) if dtype == DType::FLOAT32 => vec![f32::from_le_bytes(b); n].into(),
                    _ if key.2.iter().all(|&b| b == 0) => vec![0; n * key.2.len()].into(),
                    _ => key.2.repeat(n).into(),
                };
                let d = Arc::new(TensorData {
                    dtype,
                    shape: key.1.clone(),
                    bytes,
                });
                fills.insert(key, d.clone());
                d
            }
        };
        let ty = crate::ir::TensorType::new(
            data.shape.iter().map(|&d| Dim::Static(d)).collect(),
            data.dtype,
        );
        let c = Constant {
            ty: Some(ty),
            data: Some(data),
            meta_index: None,
        };
        let t = constant_type(&c);
        Expr::with_info(ExprKind::Constant(Arc::new(c)), t, self.span)
    }

    pub fn scalar(&self, v: f64, dtype: DType) -> Expr {
        let data = if dtype.is_float() {
            TensorData::from_f64(dtype, vec![], &[v])
        } else {
            TensorData::from_i64(dtype, vec![], &[v as i64])
        };
        self.constant(data)
    }

    pub fn ints_const(&self, v: &[i64], dtype: DType) -> Expr {
        self.constant(TensorData::from_i64(dtype, vec![v.len() as i64], v))
    }

    /// A call of `op` with the given attributes (the rest default), typed, folded when every
    /// argument is a constant, with the node's span.
    pub fn op(
        &self,
        name: &str,
        args: Vec<Expr>,
        attrs: &[(&'static str, AttrValue)],
    ) -> CResult<Expr> {
        let op = Op::get(name).ok_or_else(|| ConvertError::Invalid(format!("no op `{name}`")))?;
        let mut given: Vec<_> = attrs
            .iter()
            .map(|(k, v)| (crate::ir::attrs::static_str(k), v.clone()))
            .collect();
        // A field without a default that the converter leaves out is `None`, as TVM's Python
        // op wrappers pass it.
        if let Some(schema) = op.schema {
            for f in schema.fields {
                if f.default.is_none() && !attrs.iter().any(|(k, _)| *k == f.name) {
                    given.push((crate::ir::attrs::static_str(f.name), AttrValue::Null));
                }
            }
        }
        let attrs: Attrs = op
            .make_attrs(given)
            .map_err(|e| ConvertError::Invalid(format!("`{name}`: {}", e.message)))?;
        let ty = call_type(op, &attrs, &args);
        if ty.is_none() {
            if let Some(msg) = call_type_error(op, &attrs, &args) {
                return Err(ConvertError::Invalid(format!("`{name}`: {msg}")));
            }
        }
        let all_const = !args.is_empty() && args.iter().all(is_const_arg);
        let call = Expr::with_info(
            ExprKind::Call(crate::ir::Call {
                callee: Expr::op(op),
                args: args.into(),
                attrs,
            }),
            ty,
            self.span,
        );
        if all_const {
            let folded = crate::passes::fold_constant::fold_expr(&call);
            if !folded.ptr_eq(&call) {
                return Ok(match folded.kind() {
                    ExprKind::Tuple(_) => crate::passes::infer_type::with_node_type(folded),
                    _ => folded,
                });
            }
        }
        Ok(call)
    }

    pub fn tuple(&self, fields: Vec<Expr>) -> Expr {
        let kind = ExprKind::Tuple(fields);
        let ty = node_type(&kind);
        Expr::with_info(kind, ty, self.span)
    }

    /// Field `i` of a tuple: the field itself for a tuple literal (as Python's `Tuple[i]`).
    pub fn get(&self, t: &Expr, i: usize) -> Expr {
        if let ExprKind::Tuple(fs) = t.kind() {
            if let Some(f) = fs.get(i) {
                return f.clone();
            }
        }
        let kind = ExprKind::TupleGetItem(t.clone(), i);
        let ty = node_type(&kind);
        Expr::with_info(kind, ty, self.span)
    }

    pub fn unary(&self, name: &str, x: Expr) -> CResult<Expr> {
        self.op(name, vec![x], &[])
    }

    pub fn binary(&self, name: &str, a: Expr, b: Expr) -> CResult<Expr> {
        self.op(name, vec![a, b], &[])
    }
}

fn is_const_arg(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Constant(c) => c.data.is_some(),
        ExprKind::Tuple(fs) => fs.iter().all(is_const_arg),
        _ => false,
    }
}
