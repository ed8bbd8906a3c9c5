//! Relay types: tensors (static, `?` and symbolic dimensions), tuples, functions and the
//! incomplete type `_`. Types are small immutable values, cheap to clone.

use super::dtype::DType;
use std::fmt;
use std::sync::Arc;

/// One dimension of a tensor shape.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dim {
    /// A static extent stored as an int32 immediate (printed plain).
    Static(i64),
    /// A static extent stored as an int64 immediate (printed `1i64`).
    Static64(i64),
    /// `?`: unknown at compile time (TVM's `tir.Any`).
    Any,
    /// A symbolic dimension from the metadata table, `meta[tir.SizeVar][0]`.
    Meta(Arc<str>, usize),
}

impl Dim {
    /// The static extent, if any.
    pub fn as_static(&self) -> Option<i64> {
        match self {
            Dim::Static(v) | Dim::Static64(v) => Some(*v),
            _ => None,
        }
    }
}

/// `Tensor[(d0, d1, ...), dtype]`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorType {
    pub shape: Vec<Dim>,
    pub dtype: DType,
}

impl TensorType {
    pub fn new(shape: Vec<Dim>, dtype: DType) -> Self {
        TensorType { shape, dtype }
    }

    pub fn scalar(dtype: DType) -> Self {
        TensorType {
            shape: Vec::new(),
            dtype,
        }
    }

    /// The static shape, if every dimension is static.
    pub fn static_shape(&self) -> Option<Vec<i64>> {
        self.shape.iter().map(Dim::as_static).collect()
    }

    /// Number of elements when the shape is static.
    pub fn num_elements(&self) -> Option<i64> {
        self.static_shape().map(|s| s.iter().product())
    }
}

/// `fn (A, B) -> C`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncType {
    pub params: Vec<Type>,
    pub ret: Type,
}

/// A Relay type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    Tensor(Arc<TensorType>),
    /// (`Arc<Vec>`, a thin pointer, not `Arc<[Type]>`: keeps `Type` at two words.)
    Tuple(Arc<Vec<Type>>),
    Func(Arc<FuncType>),
    /// `_`: to be filled in by type inference.
    Incomplete,
    /// A type variable (`A`) or an ADT type applied to arguments (`List[A]`); passlab keeps
    /// these for type definitions but does not type-check ADT programs.
    Named(Arc<NamedType>),
}

/// The body of [`Type::Named`] (boxed so that `Type` stays two words plus a tag).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NamedType {
    pub name: Arc<str>,
    pub args: Vec<Type>,
}

impl Type {
    pub fn tensor(shape: Vec<Dim>, dtype: DType) -> Type {
        Type::Tensor(Arc::new(TensorType::new(shape, dtype)))
    }

    pub fn scalar(dtype: DType) -> Type {
        Type::Tensor(Arc::new(TensorType::scalar(dtype)))
    }

    pub fn tuple(fields: Vec<Type>) -> Type {
        Type::Tuple(Arc::new(fields))
    }

    pub fn func(params: Vec<Type>, ret: Type) -> Type {
        Type::Func(Arc::new(FuncType { params, ret }))
    }

    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// True when no part of the type is `_`.
    pub fn is_complete(&self) -> bool {
        match self {
            Type::Tensor(_) => true,
            Type::Tuple(fs) => fs.iter().all(Type::is_complete),
            Type::Func(f) => f.params.iter().all(Type::is_complete) && f.ret.is_complete(),
            Type::Incomplete => false,
            Type::Named(n) => n.args.iter().all(Type::is_complete),
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(v) => write!(f, "{v}"),
            Dim::Static64(v) => write!(f, "{v}i64"),
            Dim::Any => f.write_str("?"),
            Dim::Meta(key, i) => write!(f, "meta[{key}][{i}]"),
        }
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.shape.is_empty() {
            return fmt::Display::fmt(&self.dtype, f);
        }
        f.write_str("Tensor[(")?;
        for (i, d) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        write!(f, "), {}]", self.dtype)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => fmt::Display::fmt(&**t, f),
            Type::Tuple(fields) => {
                f.write_str("(")?;
                for (i, t) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if fields.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Type::Func(ft) => {
                f.write_str("fn (")?;
                for (i, t) in ft.params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ") -> {}", ft.ret)
            }
            Type::Incomplete => f.write_str("_"),
            Type::Named(n) => {
                let (name, args) = (&n.name, &n.args);
                f.write_str(name)?;
                if !args.is_empty() {
                    f.write_str("[")?;
                    for (i, t) in args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{t}")?;
                    }
                    f.write_str("]")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_tvm() {
        let t = Type::tensor(
            vec![Dim::Static(1), Dim::Any, Dim::Static64(3)],
            DType::FLOAT32,
        );
        assert_eq!(t.to_string(), "Tensor[(1, ?, 3i64), float32]");
        assert_eq!(
            Type::tensor(vec![Dim::Static(64)], DType::FLOAT32).to_string(),
            "Tensor[(64), float32]"
        );
        assert_eq!(Type::scalar(DType::INT32).to_string(), "int32");
        assert_eq!(
            Type::tuple(vec![Type::scalar(DType::BOOL)]).to_string(),
            "(bool,)"
        );
        assert_eq!(Type::tuple(vec![]).to_string(), "()");
        let f = Type::func(vec![Type::scalar(DType::INT32)], Type::Incomplete);
        assert_eq!(f.to_string(), "fn (int32) -> _");
    }
}
