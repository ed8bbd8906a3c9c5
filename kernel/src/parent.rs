//! Exit when the process that started the kernel dies, as ipykernel does: Jupyter servers and
//! clients set `JPY_PARENT_PID` when they launch a kernel, and a kernel whose parent was killed
//! (`kill -9` of the server, a crashed editor) would otherwise run on, orphaned, holding its
//! ports and its memory. A thread polls the parent process id; when it changes (the kernel was
//! reparented to init or a subreaper) the kernel exits.

use std::time::Duration;

/// How often the parent is checked.
const POLL: Duration = Duration::from_millis(500);

/// Starts the watcher when `JPY_PARENT_PID` is set (to anything: like ipykernel, the signal is
/// that a Jupyter launcher started us, and the parent we had at start is the one watched).
pub fn watch_from_env() {
    if std::env::var_os("JPY_PARENT_PID").is_none() {
        return;
    }
    let parent = std::os::unix::process::parent_id();
    if parent <= 1 {
        // Started by init (or already orphaned): nothing to watch.
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("parent-watch".into())
        .spawn(move || loop {
            std::thread::sleep(POLL);
            let now = std::os::unix::process::parent_id();
            if now != parent {
                crate::log!("the parent process {parent} is gone: exiting");
                std::process::exit(0);
            }
        });
    if let Err(e) = spawned {
        crate::log!("cannot watch the parent process: {e}");
    }
}
