//! The standard pass instruments (TVM's `tvm.ir.instrument`). The protocol they implement
//! (the [`Instrument`] trait, [`InstrumentCx`], the output sink) is `crate::pass::instrument`,
//! re-exported here; this module holds the instruments, which may use the passes (Verify
//! type-checks) and the evaluator (numerics).
//!
//! The built-ins: TVM's [`PassTimingInstrument`], [`PrintBeforeAll`], [`PrintAfterAll`],
//! [`PassPrintingInstrument`] and [`DumpIR`], and passlab's [`PrintChanged`], [`Trace`],
//! [`Skip`], [`Bisect`], [`Verify`] and [`Stats`].

pub mod bisect;
pub mod clock;
pub mod dump_ir;
pub mod events;
pub mod print;
pub mod print_changed;
pub mod skip;
pub mod stats;
pub mod timing;
pub mod timing_views;
pub mod trace;
pub mod verify;

pub use bisect::Bisect;
pub use clock::{Clock, ManualClock, SystemClock};
pub use dump_ir::DumpIR;
pub use events::{EventLog, PassEventRecord};
pub use print::{PassPrintingInstrument, PrintAfterAll, PrintBeforeAll};
pub use print_changed::PrintChanged;
pub use skip::Skip;
pub use stats::{StatRecord, Stats};
pub use timing::{PassTimingInstrument, RecordStatus, TimingRecord};
pub use trace::Trace;
pub use verify::Verify;

pub use crate::pass::instrument::{AsAny, Instrument, InstrumentCx, InstrumentRef};
