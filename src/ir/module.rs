//! Modules: an ordered list of global functions plus module attributes. A module is a value:
//! cloning it copies one pointer (the data is shared until one of the copies changes it,
//! copy-on-write), and every change makes a new module value. Passes clone modules all the
//! time, so this is what keeps the pass manager's per-pass cost in nanoseconds.

use super::attrs::AttrValue;
use super::expr::{Expr, ExprKind, Function, GlobalVar};
use super::types::Type;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// From how many functions on a module finds a function by name through an index rather
/// than by comparing names in order (a search per lookup made every pass that looks up each
/// function's callees, or each function's own slot, quadratic in the number of functions).
const INDEXED: usize = 16;

/// The text a module was parsed from, so diagnostics can point into it.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// An algebraic data type definition, `type List[A] { Cons(A, List[A]), Nil }`: its type
/// parameters and its constructors' field types (which may mention the parameters and the
/// type itself). Constructor expressions (`ir::Constructor`) refer to it by name.
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
    /// Each function's position in `funcs` by name, kept while there are more than
    /// [`INDEXED`] functions (`None` below that). Shared between module values with the same
    /// names in the same order (as [`Module::map_functions`] makes), copied when one changes.
    index: Option<Arc<FxHashMap<Arc<str>, u32>>>,
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

    /// Where `@name` is in `funcs`.
    fn position(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).map(|&i| i as usize),
            None => self.funcs.iter().position(|(g, _, _)| g.name() == name),
        }
    }

    /// The function expression bound to `@name`.
    pub fn get(&self, name: &str) -> Option<&Expr> {
        self.position(name).map(|i| &self.funcs[i].1)
    }

    /// The global and the function expression bound to `@name`, borrowed from the module.
    pub fn entry(&self, name: &str) -> Option<(&GlobalVar, &Expr)> {
        self.position(name)
            .map(|i| (&self.funcs[i].0, &self.funcs[i].1))
    }

    /// The function bound to `@name`.
    pub fn get_function(&self, name: &str) -> Option<&Function> {
        self.get(name).and_then(Expr::as_function)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// Adds a new function; an existing name is an error.
    pub fn add(&mut self, name: &str, func: Expr) -> Result<(), ModuleError> {
        check_function(name, &func)?;
        if self.contains(name) {
            return Err(ModuleError::Duplicate(name.into()));
        }
        self.push(GlobalVar::new(name), func);
        Ok(())
    }

    /// Appends a function whose name is not in the module yet.
    fn push(&mut self, g: GlobalVar, func: Expr) {
        let data: &mut ModuleData = self;
        let at = data.funcs.len() as u32;
        if let Some(index) = &mut data.index {
            Arc::make_mut(index).insert(g.0.clone(), at);
        }
        data.funcs.push((g, func, false));
        if data.index.is_none() && data.funcs.len() > INDEXED {
            data.reindex();
        }
    }

    /// Adds or replaces a function (a replaced function keeps its position).
    pub fn update(&mut self, name: &str, func: Expr) -> Result<(), ModuleError> {
        check_function(name, &func)?;
        match self.position(name) {
            Some(i) => {
                let slot = &mut self.funcs[i];
                slot.2 &= slot.1.ptr_eq(&func);
                slot.1 = func;
            }
            None => self.push(GlobalVar::new(name), func),
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
            .position(name)
            .ok_or_else(|| ModuleError::Missing(name.into()))?;
        let data: &mut ModuleData = self;
        let (_, func, _) = data.funcs.remove(pos);
        data.reindex();
        Ok(func)
    }

    /// Keeps the functions for which `keep` is true, in order, and removes the others (one
    /// pass over the module, however many go).
    pub fn retain_functions(&mut self, mut keep: impl FnMut(&GlobalVar) -> bool) {
        let data: &mut ModuleData = self;
        let before = data.funcs.len();
        data.funcs.retain(|(g, _, _)| keep(g));
        if data.funcs.len() != before {
            data.reindex();
        }
    }

    /// A module with the same functions, each mapped through `f` (in module order).
    pub fn map_functions<E>(
        &self,
        mut f: impl FnMut(&GlobalVar, &Expr) -> Result<Expr, E>,
    ) -> Result<Module, E> {
        // Built afresh rather than cloned and overwritten: each function is then cloned once
        // (its new value), and the name index is shared, not copied.
        let mut funcs = Vec::with_capacity(self.funcs.len());
        for (g, e, typed) in &self.funcs {
            let func = f(g, e)?;
            let typed = *typed && e.ptr_eq(&func);
            funcs.push((g.clone(), func, typed));
        }
        Ok(Module(Arc::new(ModuleData {
            funcs,
            index: self.index.clone(),
            type_defs: self.type_defs.clone(),
            attrs: self.attrs.clone(),
            source: self.source.clone(),
        })))
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

    /// [`Module::known_typed`] for the function bound to `@name`: true when `func` is that
    /// very function and known to be fully typed (one lookup, not a search of the module).
    pub fn known_typed_as(&self, name: &str, func: &Expr) -> bool {
        self.position(name)
            .is_some_and(|i| self.funcs[i].2 && self.funcs[i].1.ptr_eq(func))
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

impl ModuleData {
    /// Rebuilds the name index after functions moved (or drops it below [`INDEXED`]).
    fn reindex(&mut self) {
        self.index = (self.funcs.len() > INDEXED).then(|| {
            let names = self.funcs.iter().enumerate();
            Arc::new(
                names
                    .map(|(i, (g, _, _))| (g.0.clone(), i as u32))
                    .collect(),
            )
        });
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

    /// Past sixteen functions a module finds them through an index; every edit keeps it
    /// true to the order (checked against the names in order after each edit).
    #[test]
    fn lookups_by_name_stay_right_through_every_edit_of_a_large_module() {
        let text: String = (0..40)
            .map(|i| format!("def @f{i}(%x: float32) {{ add(%x, {i}f) }}\n"))
            .collect();
        let mut m = parse_module(&text, "many").unwrap();
        let agree = |m: &super::Module| {
            for (i, name) in m.names().into_iter().enumerate() {
                assert!(m.get(name).unwrap().ptr_eq(m.functions().nth(i).unwrap().1));
                assert_eq!(m.position(name), Some(i), "@{name}");
            }
        };
        agree(&m);
        assert!(m.index.is_some() && !m.contains("f40") && m.get("nope").is_none());
        let f3 = m["f3"].clone();
        assert!(m.add("f3", f3.clone()).is_err(), "a duplicate is refused");
        assert!(m.remove("f3").unwrap().ptr_eq(&f3));
        agree(&m);
        assert!(!m.contains("f3") && m.contains("f39"));
        m.add("f3", f3.clone()).unwrap();
        agree(&m);
        assert_eq!(m.names().last(), Some(&"f3"), "a new function goes last");
        m.update("f7", f3.clone()).unwrap();
        assert!(
            m["f7"].ptr_eq(&f3) && m.names()[6] == "f7",
            "an update keeps the place"
        );
        m.retain_functions(|g| g.name().len() == 2);
        assert_eq!(
            m.names(),
            ["f0", "f1", "f2", "f4", "f5", "f6", "f7", "f8", "f9", "f3"]
        );
        agree(&m);
        assert!(m.index.is_none(), "ten functions are searched in order");
        for i in 10..30 {
            m.add(&format!("g{i}"), f3.clone()).unwrap();
        }
        agree(&m);
        assert!(m.index.is_some() && m.contains("g29") && !m.contains("f29"));
        m.mark_typed();
        assert!(m.known_typed_as("g29", &f3) && !m.known_typed_as("f0", &f3));
        assert!(!m.known_typed_as("nope", &f3));
    }

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
