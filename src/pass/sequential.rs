//! Sequential (TVM's `tvm.transform.Sequential`): an ordered list of passes, itself a pass.
//! For each child in order (duplicates run each time): the gate of the run's context
//! (disabled beats required beats `opt_level >=`; a gated-out child gets no instrument call and
//! its `required` list is not looked at); then each name in the child's `required`, looked up
//! in the registry and run through the funnel right before it (no deduplication, no transitive
//! closure; an unknown name fails only when reached); then the child through the funnel.
//! The Sequential itself is a pass around its children, seen by the instruments.

use super::{Pass, PassCx, PassError, PassImpl, PassInfo, PassKind};
use crate::ir::Module;

/// An ordered list of passes.
pub struct Sequential {
    info: PassInfo,
    passes: Vec<Pass>,
    /// What the gate needs of each child, side by side: the loop reads this array in order
    /// instead of each child's info (a cache miss per child on a long pipeline).
    gates: Vec<ChildGate>,
}

#[derive(Clone, Copy)]
struct ChildGate {
    opt_level: i32,
    has_required: bool,
}

impl Sequential {
    /// TVM's defaults: name `sequential`, opt_level 0, nothing required.
    pub fn new(passes: Vec<Pass>) -> Sequential {
        Sequential::with_info(PassInfo::new("sequential", 0), passes)
    }

    /// A Sequential with its own name, opt_level and required list.
    pub fn with_info(info: PassInfo, passes: Vec<Pass>) -> Sequential {
        let gates = passes
            .iter()
            .map(|p| ChildGate {
                opt_level: p.info().opt_level(),
                has_required: !p.info().required().is_empty(),
            })
            .collect();
        Sequential {
            info: info.of_kind(PassKind::Sequential),
            passes,
            gates,
        }
    }

    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }

    pub fn into_pass(self) -> Pass {
        Pass::new(self)
    }
}

/// A Sequential of `passes` with TVM's defaults, as a pass (`Sequential([...])` in the
/// language); [`Sequential::with_info`] names it.
pub fn sequential(passes: Vec<Pass>) -> Pass {
    Sequential::new(passes).into_pass()
}

impl PassImpl for Sequential {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    /// The children in order, each through the funnel on the previous one's output.
    fn transform(&self, m: &Module, cx: &mut PassCx) -> Result<Module, PassError> {
        let by_level = cx.context().gates_by_opt_level_only();
        let level = cx.context().opt_level();
        let mut cur = m.clone();
        for (child, gate) in self.passes.iter().zip(&self.gates) {
            let enabled = if by_level {
                level >= gate.opt_level
            } else {
                cx.context().pass_enabled(child.info())
            };
            if !enabled {
                continue;
            }
            if gate.has_required {
                let info = child.info();
                for name in info.required() {
                    cur = cx.run_required(name, info, &cur)?;
                }
            }
            cur = cx.run(child, &cur)?;
        }
        Ok(cur)
    }

    fn children(&self) -> &[Pass] {
        &self.passes
    }
}

impl From<Sequential> for Pass {
    fn from(s: Sequential) -> Pass {
        Pass::new(s)
    }
}
