//! Clocks for timing instruments: the real monotonic clock, and a manual one that tests (and
//! deterministic transcripts) advance by hand.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A monotonic clock: time elapsed since some fixed origin.
pub trait Clock: Send + Sync {
    fn now(&self) -> Duration;
}

/// The machine's monotonic clock, read through `quanta` (the CPU's invariant time-stamp
/// counter, calibrated against the OS clock once per process): about 10 ns a read where the
/// OS clock costs 35 ns on this VM, and PassTimingInstrument reads it twice per pass. Falls
/// back to the OS clock where no usable TSC exists.
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    origin: quanta::Instant,
}

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock {
            origin: quanta::Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that moves only when told to; clones share the same time.
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    pub fn new() -> ManualClock {
        ManualClock::default()
    }

    pub fn advance(&self, d: Duration) {
        self.nanos.fetch_add(d.as_nanos() as u64, Ordering::SeqCst);
    }

    /// Advances by whole microseconds.
    pub fn advance_us(&self, us: u64) {
        self.advance(Duration::from_micros(us));
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}
