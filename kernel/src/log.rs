//! Kernel logging: one line per event on standard error, which Jupyter servers show in their
//! console. `PASSLAB_KERNEL_DEBUG=1` also logs every message's type as it comes and goes.

use std::sync::OnceLock;

/// True when `PASSLAB_KERNEL_DEBUG` is set to anything but "0" or "".
pub fn debug_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("PASSLAB_KERNEL_DEBUG").is_ok_and(|v| !v.is_empty() && v != "0")
    })
}

/// Logs a line to standard error.
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        eprintln!("[passlab-kernel] {}", format_args!($($arg)*))
    };
}

/// Logs a line when debugging is on.
#[macro_export]
macro_rules! debug {
    ($($arg:tt)*) => {
        if $crate::log::debug_enabled() {
            eprintln!("[passlab-kernel] {}", format_args!($($arg)*))
        }
    };
}
