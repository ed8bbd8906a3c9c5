//! Relay types: tensors (static, `?` and symbolic dimensions), tuples, functions (with type
//! parameters for polymorphic ones), type variables, ADT types (`List[A]`), references
//! (`ref(T)`) and the incomplete type `_`. Types are small immutable values, cheap to clone.

use super::dtype::DType;
use super::sharing::Epoched;
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

    /// Number of elements when the shape is static and the count fits an `i64`.
    pub fn num_elements(&self) -> Option<i64> {
        self.shape
            .iter()
            .try_fold(1i64, |n, d| n.checked_mul(d.as_static()?))
    }
}

/// `fn (A, B) -> C`, or with type parameters `fn [A](A) -> A`.
#[derive(Clone, Eq, Debug)]
pub struct FuncType {
    /// The type variables the function is polymorphic in (empty for most functions).
    pub type_params: Vec<TypeVar>,
    pub params: Vec<Type>,
    pub ret: Type,
}

/// The name of a type variable (`A` in `fn [A](A) -> A` or `type List[A]`). Type variables are
/// compared by name, but hash to nothing: two types equal up to the renaming of bound type
/// variables (alpha-equivalent, as TVM's structural equality treats them) hash alike.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TypeVar(pub Arc<str>);

impl std::hash::Hash for TypeVar {
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

impl TypeVar {
    pub fn new(name: &str) -> TypeVar {
        TypeVar(name.into())
    }
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TypeVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Consistent with the equality up to renaming: type variables hash to nothing.
impl std::hash::Hash for FuncType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // A monomorphic function type hashes as before type parameters existed (lifted
        // functions are named by their hash).
        if !self.type_params.is_empty() {
            self.type_params.len().hash(state);
        }
        self.params.hash(state);
        self.ret.hash(state);
    }
}

impl PartialEq for FuncType {
    /// Equal up to the renaming of the type parameters (alpha-equivalence).
    fn eq(&self, other: &FuncType) -> bool {
        if self.type_params.len() != other.type_params.len()
            || self.params.len() != other.params.len()
        {
            return false;
        }
        if self.type_params == other.type_params {
            return self.params == other.params && self.ret == other.ret;
        }
        // Rename the other side's parameters to ours, then compare.
        let map: Vec<(TypeVar, Type)> = other
            .type_params
            .iter()
            .zip(&self.type_params)
            .map(|(o, s)| (o.clone(), Type::var(s.clone())))
            .collect();
        self.params
            .iter()
            .zip(&other.params)
            .all(|(a, b)| *a == b.subst(&map))
            && self.ret == other.ret.subst(&map)
    }
}

/// A Relay type: one pointer to a shared, immutable [`TypeKind`] (so an expression node's
/// `Option<Type>` is one word and the node fits a 64-byte block). Equality compares the
/// pointers first, then the structure.
#[derive(Clone)]
pub struct Type(Arc<TypeKind>);

// Types nest as deep as the programs that carry them (a million nested tuples have a
// million-deep type), so every recursion over a type grows the stack on demand, and dropping
// one is iterative (`Drop for TypeKind`).
impl PartialEq for Type {
    fn eq(&self, other: &Type) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || crate::ir::deep(|| *self.0 == *other.0)
    }
}

impl Eq for Type {}

impl std::hash::Hash for Type {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        crate::ir::deep(|| self.0.hash(state))
    }
}

/// What a [`Type`] is.
#[derive(PartialEq, Eq, Hash, Debug)]
pub enum TypeKind {
    Tensor(TensorType),
    Tuple(Vec<Type>),
    /// (Boxed, as `Named`: keeps `TypeKind` at 32 bytes, a 48-byte block with the counts.)
    Func(Box<FuncType>),
    /// `_`: to be filled in by type inference.
    Incomplete,
    /// An ADT type applied to arguments (`List[A]`, TVM's `TypeCall` of a `GlobalTypeVar`),
    /// or an ADT without parameters (`Nat`).
    Named(Box<NamedType>),
    /// A type variable bound by a function's type parameters or a type definition's.
    Var(TypeVar),
    /// The type of a reference cell, `ref(T)` (TVM's `RelayRefType`).
    Ref(Type),
}

const _: () = assert!(std::mem::size_of::<Option<Type>>() == 8);
const _: () = assert!(std::mem::size_of::<TypeKind>() == 32);

/// The body of [`TypeKind::Named`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NamedType {
    pub name: Arc<str>,
    pub args: Vec<Type>,
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::ir::deep(|| fmt::Debug::fmt(&*self.0, f))
    }
}

impl TypeKind {
    /// Moves the part types out onto `stack`, leaving this type without parts.
    fn take_parts(&mut self, stack: &mut Vec<Type>) {
        match self {
            TypeKind::Tensor(_) | TypeKind::Incomplete => {}
            TypeKind::Tuple(fields) => stack.append(fields),
            TypeKind::Func(f) => {
                stack.append(&mut f.params);
                stack.push(std::mem::replace(&mut f.ret, Type::incomplete()));
            }
            TypeKind::Named(n) => stack.append(&mut n.args),
            TypeKind::Var(_) => {}
            TypeKind::Ref(t) => stack.push(std::mem::replace(t, Type::incomplete())),
        }
    }

    fn parts(&self) -> impl Iterator<Item = &Type> {
        let (list, ret): (&[Type], Option<&Type>) = match self {
            TypeKind::Tensor(_) | TypeKind::Incomplete | TypeKind::Var(_) => (&[], None),
            TypeKind::Tuple(fields) => (fields, None),
            TypeKind::Func(f) => (&f.params, Some(&f.ret)),
            TypeKind::Named(n) => (&n.args, None),
            TypeKind::Ref(t) => (&[], Some(t)),
        };
        list.iter().chain(ret)
    }
}

impl Drop for TypeKind {
    fn drop(&mut self) {
        // Fast path: no part owned by this type alone has parts of its own, so dropping the
        // fields cannot recurse more than one level (almost every drop).
        let owns_a_deep_part = self
            .parts()
            .any(|p| Arc::strong_count(&p.0) == 1 && p.0.parts().next().is_some());
        if !owns_a_deep_part {
            return;
        }
        let mut stack = Vec::new();
        self.take_parts(&mut stack);
        while let Some(t) = stack.pop() {
            if let Some(mut kind) = Arc::into_inner(t.0) {
                kind.take_parts(&mut stack);
            }
        }
    }
}

impl From<TypeKind> for Type {
    fn from(k: TypeKind) -> Type {
        Type::new(k)
    }
}

impl From<TensorType> for Type {
    /// The shared type equal to `t` if this thread made one recently (see [`Type::of_tensor`]).
    fn from(t: TensorType) -> Type {
        recent_tensor(&t).unwrap_or_else(|| remember(Type::new(TypeKind::Tensor(t))))
    }
}

/// How many tensor types each thread remembers ([`Type::of_tensor`]).
const RECENT_TENSORS: usize = 256;

thread_local! {
    static RECENT: std::cell::RefCell<Epoched<Vec<Option<Type>>>> =
        std::cell::RefCell::new(Epoched::new(vec![None; RECENT_TENSORS]));
}

/// Empties a table of remembered types (a new sharing epoch, see `ir::sharing`). (Takes the
/// `Vec` itself: it is `Epoched::get`'s `clear` for a table that is one.)
#[allow(clippy::ptr_arg)]
fn forget(table: &mut Vec<Option<Type>>) {
    table.iter_mut().for_each(|t| *t = None);
}

fn recent_slot(t: &TensorType) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    t.hash(&mut h);
    // FxHash mixes into the high bits.
    (h.finish() >> 40) as usize % RECENT_TENSORS
}

fn recent_tensor(t: &TensorType) -> Option<Type> {
    let i = recent_slot(t);
    RECENT
        .try_with(|r| {
            let mut r = r.borrow_mut();
            r.get(forget)[i]
                .as_ref()
                .filter(|c| c.as_tensor() == Some(t))
                .cloned()
        })
        .ok()
        .flatten()
}

fn remember(ty: Type) -> Type {
    if let Some(t) = ty.as_tensor() {
        let i = recent_slot(t);
        // During thread teardown there is nothing to remember in; the type is still right.
        let _ = RECENT.try_with(|r| r.borrow_mut().get(forget)[i] = Some(ty.clone()));
    }
    ty
}

/// How many tuple and function types each thread remembers ([`Type::tuple`]).
const RECENT_COMPOSITES: usize = 64;

thread_local! {
    static RECENT_COMPOSITE: std::cell::RefCell<Epoched<Vec<Option<Type>>>> =
        std::cell::RefCell::new(Epoched::new(vec![None; RECENT_COMPOSITES]));
}

/// The shared tuple (`ret` is `None`) or function type with exactly these parts (the same
/// shared part types, compared by pointer), or a new one, remembered. Parts that are equal
/// but not shared make a new type: still right, only not shared.
///
/// Only types whose parts are all tensor types are shared: the table then never holds a
/// deep type, whose drop (when its slot is reused, or at thread exit) would recurse once per
/// level of nesting. A deep type is freed level by level as the nodes that carry its levels
/// are dropped.
fn composite(parts: Vec<Type>, ret: Option<Type>) -> Type {
    fn make(parts: Vec<Type>, ret: Option<Type>) -> Type {
        Type::new(match ret {
            None => TypeKind::Tuple(parts),
            Some(ret) => TypeKind::Func(Box::new(FuncType {
                type_params: Vec::new(),
                params: parts,
                ret,
            })),
        })
    }
    let flat = |t: &Type| matches!(t.kind(), TypeKind::Tensor(_));
    if !(parts.iter().all(flat) && ret.as_ref().is_none_or(flat)) {
        return make(parts, ret);
    }
    let key = |t: &Type| Arc::as_ptr(&t.0) as usize;
    let mut h = parts.len().wrapping_add(ret.as_ref().map_or(0, key));
    for p in &parts {
        h = (h.rotate_left(5) ^ key(p)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    let slot = (h >> 40) % RECENT_COMPOSITES;
    let same = |t: &Type| {
        let (ps, r) = match t.kind() {
            TypeKind::Tuple(fs) => (fs, None),
            TypeKind::Func(f) if f.type_params.is_empty() => (&f.params, Some(&f.ret)),
            _ => return false,
        };
        r.is_some() == ret.is_some()
            && r.zip(ret.as_ref()).is_none_or(|(a, b)| a.ptr_eq(b))
            && ps.len() == parts.len()
            && ps.iter().zip(&parts).all(|(a, b)| a.ptr_eq(b))
    };
    let found = RECENT_COMPOSITE
        .try_with(|r| {
            r.borrow_mut().get(forget)[slot]
                .as_ref()
                .filter(|t| same(t))
                .cloned()
        })
        .ok()
        .flatten();
    found.unwrap_or_else(|| {
        let ty = make(parts, ret);
        // During thread teardown there is nothing to remember in; the type is still right.
        let _ = RECENT_COMPOSITE.try_with(|r| r.borrow_mut().get(forget)[slot] = Some(ty.clone()));
        ty
    })
}

impl Type {
    pub fn new(kind: TypeKind) -> Type {
        Type(Arc::new(kind))
    }

    #[inline]
    pub fn kind(&self) -> &TypeKind {
        &self.0
    }

    /// True when both are the same shared type (equal types need not be).
    pub fn ptr_eq(&self, other: &Type) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The address of the shared type: unique among live types (for caches keyed by identity,
    /// which must hold the type so that the address is not reused).
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// `_` (one shared instance).
    pub fn incomplete() -> Type {
        static INCOMPLETE: std::sync::OnceLock<Type> = std::sync::OnceLock::new();
        INCOMPLETE
            .get_or_init(|| Type::new(TypeKind::Incomplete))
            .clone()
    }

    pub fn is_incomplete(&self) -> bool {
        matches!(self.kind(), TypeKind::Incomplete)
    }

    pub fn tensor(shape: Vec<Dim>, dtype: DType) -> Type {
        TensorType::new(shape, dtype).into()
    }

    /// The tensor type `t`. Tensor types are made through a small per-thread table of the
    /// ones made last (a direct-mapped cache of 256, by value): equal types made by the type
    /// rules, constants and the parser share one allocation, so a model's thousands of
    /// `Tensor[(1, 64), float32]` are one block, later comparisons are pointer comparisons,
    /// and re-typing a typed module finds its nodes' own types again. Only an optimisation:
    /// equal types are equal whether shared or not.
    pub fn of_tensor(t: &TensorType) -> Type {
        recent_tensor(t).unwrap_or_else(|| remember(Type::new(TypeKind::Tensor(t.clone()))))
    }

    pub fn scalar(dtype: DType) -> Type {
        TensorType::scalar(dtype).into()
    }

    /// The tuple type of `fields`. Like tensor types, tuple and function types go through a
    /// per-thread table of the last ones made, keyed by their parts' identities: a model's
    /// thousands of `(Tensor[..], Tensor[..], Tensor[..])` (every `nn.batch_norm`) or fused
    /// kernels' `fn (Tensor[..], ..) -> Tensor[..]` made from shared parts are one block.
    pub fn tuple(fields: Vec<Type>) -> Type {
        composite(fields, None)
    }

    /// The function type `fn (params) -> ret` (shared like [`Type::tuple`]).
    pub fn func(params: Vec<Type>, ret: Type) -> Type {
        composite(params, Some(ret))
    }

    pub fn named(name: Arc<str>, args: Vec<Type>) -> Type {
        Type::new(TypeKind::Named(Box::new(NamedType { name, args })))
    }

    /// The polymorphic function type `fn [type_params](params) -> ret` (with no type
    /// parameters, [`Type::func`]).
    pub fn poly_func(type_params: Vec<TypeVar>, params: Vec<Type>, ret: Type) -> Type {
        if type_params.is_empty() {
            return Type::func(params, ret);
        }
        Type::new(TypeKind::Func(Box::new(FuncType {
            type_params,
            params,
            ret,
        })))
    }

    /// The type variable `v`.
    pub fn var(v: TypeVar) -> Type {
        Type::new(TypeKind::Var(v))
    }

    /// `ref(t)`.
    pub fn reference(t: Type) -> Type {
        Type::new(TypeKind::Ref(t))
    }

    pub fn as_var(&self) -> Option<&TypeVar> {
        match self.kind() {
            TypeKind::Var(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_named(&self) -> Option<&NamedType> {
        match self.kind() {
            TypeKind::Named(n) => Some(n),
            _ => None,
        }
    }

    /// This type with the free type variables named in `map` replaced (a function type's
    /// own type parameters shadow the map inside it). The type itself when nothing changes.
    pub fn subst(&self, map: &[(TypeVar, Type)]) -> Type {
        if map.is_empty() {
            return self.clone();
        }
        crate::ir::deep(|| self.subst_here(map))
    }

    fn subst_here(&self, map: &[(TypeVar, Type)]) -> Type {
        let all = |ts: &[Type]| -> Option<Vec<Type>> {
            let out: Vec<Type> = ts.iter().map(|t| t.subst(map)).collect();
            let changed = out.iter().zip(ts).any(|(a, b)| !a.ptr_eq(b));
            changed.then_some(out)
        };
        match self.kind() {
            TypeKind::Tensor(_) | TypeKind::Incomplete => self.clone(),
            TypeKind::Var(v) => map
                .iter()
                .find(|(k, _)| k == v)
                .map_or_else(|| self.clone(), |(_, t)| t.clone()),
            TypeKind::Tuple(fs) => all(fs).map_or_else(|| self.clone(), Type::tuple),
            TypeKind::Named(n) => {
                all(&n.args).map_or_else(|| self.clone(), |args| Type::named(n.name.clone(), args))
            }
            TypeKind::Ref(t) => {
                let u = t.subst(map);
                if u.ptr_eq(t) {
                    self.clone()
                } else {
                    Type::reference(u)
                }
            }
            TypeKind::Func(f) => {
                let inner: Vec<(TypeVar, Type)>;
                let map = if f.type_params.is_empty() {
                    map
                } else {
                    inner = map
                        .iter()
                        .filter(|(k, _)| !f.type_params.contains(k))
                        .cloned()
                        .collect();
                    &inner
                };
                let params: Vec<Type> = f.params.iter().map(|t| t.subst(map)).collect();
                let ret = f.ret.subst(map);
                let changed =
                    !ret.ptr_eq(&f.ret) || params.iter().zip(&f.params).any(|(a, b)| !a.ptr_eq(b));
                if changed {
                    Type::poly_func(f.type_params.clone(), params, ret)
                } else {
                    self.clone()
                }
            }
        }
    }

    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self.kind() {
            TypeKind::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_tuple(&self) -> Option<&[Type]> {
        match self.kind() {
            TypeKind::Tuple(fs) => Some(fs),
            _ => None,
        }
    }

    pub fn as_func(&self) -> Option<&FuncType> {
        match self.kind() {
            TypeKind::Func(f) => Some(&**f),
            _ => None,
        }
    }

    /// True when no part of the type is `_`.
    pub fn is_complete(&self) -> bool {
        crate::ir::deep(|| self.is_complete_here())
    }

    fn is_complete_here(&self) -> bool {
        match self.kind() {
            TypeKind::Tensor(_) => true,
            TypeKind::Tuple(fs) => fs.iter().all(Type::is_complete),
            TypeKind::Func(f) => f.params.iter().all(Type::is_complete) && f.ret.is_complete(),
            TypeKind::Incomplete => false,
            TypeKind::Named(n) => n.args.iter().all(Type::is_complete),
            TypeKind::Var(_) => true,
            TypeKind::Ref(t) => t.is_complete(),
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
        crate::ir::deep(|| self.display(f))
    }
}

impl Type {
    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            TypeKind::Tensor(t) => fmt::Display::fmt(t, f),
            TypeKind::Tuple(fields) => {
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
            TypeKind::Func(ft) => {
                f.write_str("fn ")?;
                if !ft.type_params.is_empty() {
                    f.write_str("[")?;
                    for (i, t) in ft.type_params.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{t}")?;
                    }
                    f.write_str("]")?;
                }
                f.write_str("(")?;
                for (i, t) in ft.params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ") -> {}", ft.ret)
            }
            TypeKind::Incomplete => f.write_str("_"),
            TypeKind::Var(v) => f.write_str(&v.0),
            TypeKind::Ref(t) => write!(f, "ref({t})"),
            TypeKind::Named(n) => {
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
        let f = Type::func(vec![Type::scalar(DType::INT32)], Type::incomplete());
        assert_eq!(f.to_string(), "fn (int32) -> _");
    }

    /// Tensor types made one after another share an allocation when equal, and only then.
    #[test]
    fn equal_tensor_types_share_one_allocation() {
        let shape = |n| vec![Dim::Static(1), Dim::Static(n)];
        let a = Type::tensor(shape(64), DType::FLOAT32);
        let b = Type::of_tensor(&TensorType::new(shape(64), DType::FLOAT32));
        assert!(a.ptr_eq(&b));
        let c = Type::tensor(shape(65), DType::FLOAT32);
        let d = Type::tensor(shape(64), DType::FLOAT16);
        assert!(!a.ptr_eq(&c) && a != c);
        assert!(!a.ptr_eq(&d) && a != d);
        assert_eq!(c, Type::tensor(shape(65), DType::FLOAT32));
        // Another thread has its own table: equal, not shared.
        let e = std::thread::spawn(move || Type::tensor(shape(64), DType::FLOAT32))
            .join()
            .unwrap();
        assert!(a == e && !a.ptr_eq(&e));
    }

    #[test]
    fn tuple_and_function_types_of_shared_tensors_share_one_allocation() {
        let t = |n| Type::tensor(vec![Dim::Static(n)], DType::FLOAT32);
        let tup = Type::tuple(vec![t(4), t(8)]);
        assert!(tup.ptr_eq(&Type::tuple(vec![t(4), t(8)])));
        assert!(!tup.ptr_eq(&Type::tuple(vec![t(8), t(4)])));
        assert!(!tup.ptr_eq(&Type::tuple(vec![t(4)])));
        let f = Type::func(vec![t(4), t(8)], t(4));
        assert!(f.ptr_eq(&Type::func(vec![t(4), t(8)], t(4))));
        assert!(
            !f.ptr_eq(&tup),
            "a function type is not the tuple of its parameters"
        );
        assert!(!f.ptr_eq(&Type::func(vec![t(4), t(8)], t(8))));
        assert_eq!(
            f.to_string(),
            "fn (Tensor[(4), float32], Tensor[(8), float32]) -> Tensor[(4), float32]"
        );
        // Parts that are not tensors: equal, never remembered (the table holds no deep type).
        let nested = Type::tuple(vec![tup.clone()]);
        let again = Type::tuple(vec![tup.clone()]);
        assert!(nested == again && !nested.ptr_eq(&again));
        // Equal tensors made apart (another thread's) make an equal, unshared tuple.
        let other = std::thread::spawn(move || Type::tuple(vec![t(4), t(8)]))
            .join()
            .unwrap();
        assert!(tup == other && !tup.ptr_eq(&other));
    }
}
