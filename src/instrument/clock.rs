//! Clocks for timing instruments: the real monotonic clock, and a manual one that tests (and
//! deterministic transcripts) advance by hand.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A monotonic clock: time elapsed since some fixed origin.
pub trait Clock: Send + Sync {
    fn now(&self) -> Duration;

    /// A reading in the clock's own units (for the TSC clock, CPU ticks): cheaper than
    /// [`Clock::now`], for callers that keep readings and convert only their differences.
    fn raw(&self) -> u64 {
        u64::try_from(self.now().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Nanoseconds between two [`Clock::raw`] readings (0 when `end` is not after `start`).
    fn raw_delta_nanos(&self, start: u64, end: u64) -> u64 {
        end.saturating_sub(start)
    }
}

/// The machine's monotonic clock, read through `quanta` (the CPU's invariant time-stamp
/// counter, calibrated against the OS clock once per process): about 10 ns a read where the
/// OS clock costs 35 ns on this VM, and PassTimingInstrument reads it twice per pass. Falls
/// back to the OS clock where no usable TSC exists.
///
/// `raw` is the bare counter read (no scaling, no thread-local lookup of a mocked clock): the
/// timing instrument keeps raw readings and scales only the difference when a pass ends.
#[derive(Clone, Debug)]
pub struct SystemClock {
    clock: quanta::Clock,
    origin: u64,
}

/// One calibrated clock per process: calibrating takes up to a few milliseconds, so every
/// `SystemClock` clones this one (clones share the calibration).
fn process_clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

impl SystemClock {
    pub fn new() -> SystemClock {
        let clock = process_clock().clone();
        let origin = clock.raw();
        SystemClock { clock, origin }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.raw_delta_nanos(self.origin, self.clock.raw()))
    }

    #[inline]
    fn raw(&self) -> u64 {
        self.clock.raw()
    }

    fn raw_delta_nanos(&self, start: u64, end: u64) -> u64 {
        self.clock.delta_as_nanos(start, end)
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
