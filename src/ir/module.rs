//! Modules: an ordered list of global functions plus module attributes. A module is a value:
//! cloning it copies one pointer (the data is shared until one of the copies changes it,
//! copy-on-write), and every change makes a new module value. Passes clone modules all the
//! time, so this is what keeps the pass manager's per-pass cost in nanoseconds.

use super::attrs::AttrValue;
use super::expr::{Expr, ExprKind, Function, GlobalVar};
use super::types::Type;
use std::sync::Arc;

/// The text a module was parsed from, so diagnostics can point into it.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// An algebraic data type definition, `type List[A] { Cons(A, List[A]), Nil }`. passlab keeps
/// and prints these; programs that construct or match ADT values are not supported.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeDef {
    pub name: Arc<str>,
    pub params: Vec<Arc<str>>,
    /// Constructors: name and field types.
    pub ctors: Vec<(Arc<str>, Vec<Type>)>,
}

/// An IR module: a shared handle to [`ModuleData`]. Its fields are read through `Deref`;
/// writing one (`m.attrs.push(..)`) goes through `DerefMut`, which first copies the data if
/// another module value shares it, so no other value ever sees the change.
#[derive(Clone, Default)]
pub struct Module(Arc<ModuleData>);

/// The contents of a [`Module`].
#[derive(Clone, Default)]
pub struct ModuleData {
    /// Each function with whether every node of it is known to carry its checked type: set
    /// for InferType's output ([`Module::mark_typed`]), cleared whenever the slot gets another
    /// function, so it always speaks of the very function in the slot.
    funcs: Vec<(GlobalVar, Expr, bool)>,
    /// ADT type definitions, in the order written.
    pub type_defs: Vec<TypeDef>,
    /// Module attributes, in insertion order.
    pub attrs: Vec<(Arc<str>, AttrValue)>,
    /// The source text, when the module was parsed.
    pub source: Option<Arc<SourceFile>>,
}

/// Why a module edit was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleError {
    Duplicate(String),
    Missing(String),
    NotAFunction(String),
}

impl std::fmt::Display for ModuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleError::Duplicate(n) => write!(f, "the module already has a function @{n}"),
            ModuleError::Missing(n) => write!(f, "the module has no function @{n}"),
            ModuleError::NotAFunction(n) => write!(f, "@{n} must be bound to a function"),
        }
    }
}

impl std::error::Error for ModuleError {}

impl std::ops::Deref for Module {
    type Target = ModuleData;
    fn deref(&self) -> &ModuleData {
        &self.0
    }
}

/// `m["main"]`: the function expression bound to `@main` (as `mod["main"]` in the language).
/// Panics when there is none; [`Module::get`] asks.
impl std::ops::Index<&str> for Module {
    type Output = Expr;
    fn index(&self, name: &str) -> &Expr {
        self.get(name)
            .unwrap_or_else(|| panic!("the module has no function @{name}"))
    }
}

impl std::ops::DerefMut for Module {
    fn deref_mut(&mut self) -> &mut ModuleData {
        Arc::make_mut(&mut self.0)
    }
}

impl Module {
    pub fn new() -> Module {
        Module::default()
    }

    /// The functions in module order.
    pub fn functions(&self) -> impl Iterator<Item = (&GlobalVar, &Expr)> {
        self.funcs.iter().map(|(g, e, _)| (g, e))
    }

    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    pub fn names(&self) -> Vec<&str> {
        self.funcs.iter().map(|(g, _, _)| g.name()).collect()
    }

    /// The function expression bound to `@name`.
    pub fn get(&self, name: &str) -> Option<&Expr> {
        self.funcs
            .iter()
            .find(|(g, _, _)| g.name() == name)
            .map(|(_, e, _)| e)
    }

    /// The function bound to `@name`.
    pub fn get_function(&self, name: &str) -> Option<&Function> {
        self.get(name).and_then(Expr::as_function)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Adds a new function; an existing name is an error.
    pub fn add(&mut self, name: &str, func: Expr) -> Result<(), ModuleError> {
        check_function(name, &func)?;
        if self.contains(name) {
            return Err(ModuleError::Duplicate(name.into()));
        }
        self.funcs.push((GlobalVar::new(name), func, false));
        Ok(())
    }

    /// Adds or replaces a function (a replaced function keeps its position).
    pub fn update(&mut self, name: &str, func: Expr) -> Result<(), ModuleError> {
        check_function(name, &func)?;
        let funcs = &mut self.funcs;
        match funcs.iter_mut().find(|(g, _, _)| g.name() == name) {
            Some(slot) => {
                slot.2 &= slot.1.ptr_eq(&func);
                slot.1 = func;
            }
            None => funcs.push((GlobalVar::new(name), func, false)),
        }
        Ok(())
    }

    /// Replaces an existing function.
    pub fn replace(&mut self, name: &str, func: Expr) -> Result<(), ModuleError> {
        if !self.contains(name) {
            return Err(ModuleError::Missing(name.into()));
        }
        self.update(name, func)
    }

    /// Removes a function, returning it.
    pub fn remove(&mut self, name: &str) -> Result<Expr, ModuleError> {
        let pos = self
            .funcs
            .iter()
            .position(|(g, _, _)| g.name() == name)
            .ok_or_else(|| ModuleError::Missing(name.into()))?;
        Ok(self.funcs.remove(pos).1)
    }

    /// A module with the same functions, each mapped through `f` (in module order).
    pub fn map_functions<E>(
        &self,
        mut f: impl FnMut(&GlobalVar, &Expr) -> Result<Expr, E>,
    ) -> Result<Module, E> {
        let mut out = self.clone();
        for slot in out.funcs.iter_mut() {
            let func = f(&slot.0, &slot.1)?;
            slot.2 &= slot.1.ptr_eq(&func);
            slot.1 = func;
        }
        Ok(out)
    }

    /// Records that every node of every function carries its checked type (InferType's
    /// output), so the passes that need types ([`crate::passes`]' `typed_function`) do not walk
    /// a function to find out. Replacing a function forgets it for that function.
    pub fn mark_typed(&mut self) {
        for slot in self.funcs.iter_mut() {
            slot.2 = true;
        }
    }

    /// True when `func` is one of this module's functions and known to be fully typed
    /// ([`Module::mark_typed`]); false says nothing.
    pub fn known_typed(&self, func: &Expr) -> bool {
        self.funcs.iter().any(|(_, e, t)| *t && e.ptr_eq(func))
    }

    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v)
    }

    /// True when both modules hold the very same function nodes (no pass changed anything).
    pub fn same_as(&self, other: &Module) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        let same_funcs = self.funcs.len() == other.funcs.len()
            && self
                .funcs
                .iter()
                .zip(other.funcs.iter())
                .all(|((ga, ea, _), (gb, eb, _))| ga == gb && ea.ptr_eq(eb));
        same_funcs && self.attrs == other.attrs && self.type_defs == other.type_defs
    }
}

fn check_function(name: &str, func: &Expr) -> Result<(), ModuleError> {
    match func.kind() {
        ExprKind::Function(_) => Ok(()),
        _ => Err(ModuleError::NotAFunction(name.into())),
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({})", self.names().join(", "))
    }
}

#[cfg(test)]
mod tests {
    use crate::text::parse_module;

    /// The "fully typed" mark speaks of the very function in its slot: a new function there
    /// (through `update`, `replace`, `add` or `map_functions`) is unmarked; the same one keeps it.
    #[test]
    fn the_typed_mark_follows_the_function_in_the_slot() {
        let text = "def @f(%x: float32) { add(%x, 1f) }\ndef @g(%y: float32) { %y }";
        let mut m = parse_module(text, "marks").unwrap();
        let (f, g) = (m["f"].clone(), m["g"].clone());
        let fresh = parse_module(text, "fresh").unwrap()["f"].clone();
        assert!(!m.known_typed(&f));
        m.mark_typed();
        assert!(m.known_typed(&f) && m.known_typed(&g) && !m.known_typed(&fresh));
        let same = m.map_functions(|_, e| Ok::<_, ()>(e.clone())).unwrap();
        assert!(same.known_typed(&f) && same.known_typed(&g));
        let mapped = m
            .map_functions(|gv, e| {
                Ok::<_, ()>(if gv.name() == "f" {
                    fresh.clone()
                } else {
                    e.clone()
                })
            })
            .unwrap();
        assert!(!mapped.known_typed(&fresh) && !mapped.known_typed(&f));
        assert!(mapped.known_typed(&g));
        let mut updated = m.clone();
        updated.update("f", f.clone()).unwrap();
        assert!(
            updated.known_typed(&f),
            "the same function again keeps its mark"
        );
        updated.replace("f", fresh.clone()).unwrap();
        assert!(!updated.known_typed(&fresh) && !updated.known_typed(&f));
        updated.remove("g").unwrap();
        updated.add("g", g.clone()).unwrap();
        assert!(!updated.known_typed(&g), "a new slot starts unmarked");
        assert!(m.known_typed(&f), "the original module is untouched");
    }
}
