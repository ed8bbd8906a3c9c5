//! Attributes: of op calls (typed by the op's schema, stored in schema order with defaults
//! filled in) and of functions (an ordered dictionary such as `Primitive=1`).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One attribute value, as the text format spells it.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// `None` / `nullptr`.
    Null,
    Bool(bool),
    /// An integer immediate with its bit width (32 prints plain, 64 as `1i64`, 16 as `1i16`).
    Int(i64, u8),
    /// A floating-point value (doubles and float immediates both print as `0.5f`).
    Float(f64),
    Str(Arc<str>),
    Array(Arc<[AttrValue]>),
    /// `?` (a dynamic extent inside an attribute).
    Any,
    /// `meta[Key][i]`: an object kept by reference to the metadata table.
    Meta(Arc<str>, usize),
}

impl PartialEq for AttrValue {
    fn eq(&self, other: &Self) -> bool {
        use AttrValue::*;
        match (self, other) {
            (Null, Null) | (Any, Any) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a, wa), Int(b, wb)) => a == b && wa == wb,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits() || (a == b),
            (Str(a), Str(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Meta(ka, ia), Meta(kb, ib)) => ka == kb && ia == ib,
            _ => false,
        }
    }
}

impl Eq for AttrValue {}

impl Hash for AttrValue {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        match self {
            AttrValue::Null | AttrValue::Any => {}
            AttrValue::Bool(b) => b.hash(h),
            AttrValue::Int(v, w) => (v, w).hash(h),
            AttrValue::Float(f) => (if *f == 0.0 { 0.0f64 } else { *f }).to_bits().hash(h),
            AttrValue::Str(s) => s.hash(h),
            AttrValue::Array(a) => a.hash(h),
            AttrValue::Meta(k, i) => (k, i).hash(h),
        }
    }
}

/// The value as an error message shows it: the text format's spelling for everything but
/// floats, which show Rust's shortest round-trip digits with the `f` suffix (the printer in
/// `crate::text` writes TVM's `%g` digits).
impl std::fmt::Display for AttrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttrValue::Null => f.write_str("None"),
            AttrValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            AttrValue::Int(i, 64) => write!(f, "{i}i64"),
            AttrValue::Int(i, 16) => write!(f, "{i}i16"),
            AttrValue::Int(i, _) => write!(f, "{i}"),
            AttrValue::Float(x) if x.is_nan() => f.write_str("nanf"),
            AttrValue::Float(x) => write!(f, "{x}f"),
            AttrValue::Str(s) => write!(f, "{s:?}"),
            AttrValue::Array(items) => {
                f.write_str("[")?;
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            AttrValue::Any => f.write_str("?"),
            AttrValue::Meta(k, i) => write!(f, "meta[{k}][{i}]"),
        }
    }
}

impl AttrValue {
    pub fn int(v: i64) -> AttrValue {
        AttrValue::Int(v, 32)
    }

    pub fn str(s: &str) -> AttrValue {
        AttrValue::Str(s.into())
    }

    pub fn ints(vs: &[i64]) -> AttrValue {
        AttrValue::Array(vs.iter().map(|v| AttrValue::int(*v)).collect())
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v, _) => Some(*v),
            AttrValue::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            AttrValue::Float(v) => Some(*v),
            AttrValue::Int(v, _) => Some(*v as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            AttrValue::Int(v, _) => Some(*v != 0),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[AttrValue]> {
        match self {
            AttrValue::Array(a) => Some(a),
            _ => None,
        }
    }

    /// An array of integers (`[1, 2]`), or a single integer as a one-element list.
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            AttrValue::Array(a) => a.iter().map(AttrValue::as_int).collect(),
            AttrValue::Int(v, _) => Some(vec![*v]),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, AttrValue::Null)
    }
}

/// Equal and spelled the same: floats compare by their bits.
fn identical(a: &AttrValue, b: &AttrValue) -> bool {
    match (a, b) {
        (AttrValue::Float(x), AttrValue::Float(y)) => x.to_bits() == y.to_bits(),
        (AttrValue::Array(x), AttrValue::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| identical(x, y))
        }
        _ => a == b,
    }
}

/// A shared `Arc<str>` for a static name (attribute keys, type keys): one allocation per name
/// and thread instead of one per attribute of every call.
pub fn static_str(s: &'static str) -> Arc<str> {
    thread_local! {
        static NAMES: std::cell::RefCell<rustc_hash::FxHashMap<(usize, usize), Arc<str>>> =
            Default::default();
    }
    NAMES.with(|n| {
        n.borrow_mut()
            .entry((s.as_ptr() as usize, s.len()))
            .or_insert_with(|| s.into())
            .clone()
    })
}

/// The attributes of a call: `None` for calls without any, otherwise an ordered field list.
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct Attrs(pub Option<Arc<AttrsNode>>);

/// The body of [`Attrs`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AttrsNode {
    /// The attrs type key (`relay.attrs.Conv2DAttrs`, or the `attrs_type_key=` of a non-op call).
    pub type_key: Option<Arc<str>>,
    /// Fields in printing order. For ops with a schema every field is present.
    pub fields: Vec<(Arc<str>, AttrValue)>,
}

impl Attrs {
    pub const NONE: Attrs = Attrs(None);

    pub fn new(type_key: Option<&str>, fields: Vec<(Arc<str>, AttrValue)>) -> Attrs {
        Attrs(Some(Arc::new(AttrsNode {
            type_key: type_key.map(Into::into),
            fields,
        })))
    }

    /// Like [`Attrs::new`], but returns the node already made for equal attributes on this
    /// thread when there is one: a model's ten thousand `nn.conv2d` calls with the same
    /// attributes share one node (less memory, better locality, cheaper equality). The cache is
    /// bounded; a miss only costs a new node.
    pub fn shared(type_key: &'static str, fields: Vec<(Arc<str>, AttrValue)>) -> Attrs {
        type Cache = rustc_hash::FxHashMap<AttrsNode, Attrs>;
        thread_local! {
            static CACHE: std::cell::RefCell<super::sharing::Epoched<Cache>> =
                std::cell::RefCell::new(super::sharing::Epoched::new(Cache::default()));
        }
        let node = AttrsNode {
            type_key: Some(static_str(type_key)),
            fields,
        };
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let c = c.get(Cache::clear);
            if let Some(a) = c.get(&node) {
                // Equality treats 0.0 and -0.0 alike; sharing must not change a printed sign.
                let same_bits = a.fields().len() == node.fields.len()
                    && a.fields()
                        .iter()
                        .zip(&node.fields)
                        .all(|((_, x), (_, y))| identical(x, y));
                if same_bits {
                    return a.clone();
                }
            }
            if c.len() >= 4096 {
                c.clear();
            }
            let a = Attrs(Some(Arc::new(node.clone())));
            c.insert(node, a.clone());
            a
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|n| n.fields.is_empty())
    }

    pub fn fields(&self) -> &[(Arc<str>, AttrValue)] {
        self.0.as_ref().map(|n| n.fields.as_slice()).unwrap_or(&[])
    }

    pub fn type_key(&self) -> Option<&str> {
        self.0.as_ref().and_then(|n| n.type_key.as_deref())
    }

    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.fields()
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v)
    }

    pub fn get_int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(AttrValue::as_int)
    }

    pub fn get_float(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(AttrValue::as_float)
    }

    pub fn get_bool(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(AttrValue::as_bool)
    }

    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(AttrValue::as_str)
    }

    pub fn get_ints(&self, name: &str) -> Option<Vec<i64>> {
        self.get(name).and_then(AttrValue::as_int_list)
    }

    /// A copy with one field set (replaced in place, or appended when new).
    pub fn with(&self, name: &str, value: AttrValue) -> Attrs {
        let mut node = self.0.as_deref().cloned().unwrap_or(AttrsNode {
            type_key: None,
            fields: Vec::new(),
        });
        match node.fields.iter_mut().find(|(k, _)| &**k == name) {
            Some(slot) => slot.1 = value,
            None => node.fields.push((name.into(), value)),
        }
        Attrs(Some(Arc::new(node)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Op;

    #[test]
    fn equal_attributes_are_shared_but_keep_the_sign_of_zero() {
        let op = Op::get("nn.leaky_relu").unwrap();
        let make = |alpha: f64| {
            op.make_attrs(vec![("alpha".into(), AttrValue::Float(alpha))])
                .unwrap()
        };
        let (a, b) = (make(0.5), make(0.5));
        assert!(Arc::ptr_eq(a.0.as_ref().unwrap(), b.0.as_ref().unwrap()));
        let (zero, neg) = (make(0.0), make(-0.0));
        assert!(!Arc::ptr_eq(
            zero.0.as_ref().unwrap(),
            neg.0.as_ref().unwrap()
        ));
        match neg.get("alpha") {
            Some(AttrValue::Float(f)) => assert!(f.is_sign_negative()),
            other => panic!("alpha is {other:?}"),
        }
    }
}
