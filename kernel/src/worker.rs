//! The session's own thread. The [`Session`] lives on one OS thread for the life of the kernel
//! (it is never moved), and the async side sends it jobs: closures over `&mut Session` whose
//! results come back on a oneshot channel. While a job runs, the control channel stays free to
//! set the session's interrupt flag.

use passlab::session::Session;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce(&mut Session) + Send>;

/// A handle to the session thread.
#[derive(Clone)]
pub struct Worker {
    jobs: mpsc::Sender<Job>,
    interrupt: Arc<AtomicBool>,
}

impl Worker {
    /// Starts the thread with a fresh session resolving relative paths against `base_dir`.
    pub fn start(base_dir: PathBuf) -> Worker {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (flag_tx, flag_rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("passlab-session".into())
            // Deep programs are normal; the engine grows the stack on demand, but give it room.
            .stack_size(64 << 20)
            .spawn(move || {
                let mut session = Session::new();
                // Jupyter renders ANSI colours in tracebacks: the `ansi` renderings are used
                // for errors only (values go out as plain text and HTML).
                colored::control::set_override(true);
                session.set_color(true);
                session.set_base_dir(base_dir);
                let _ = flag_tx.send(session.interrupt_flag());
                for job in rx {
                    // A panic is a bug, but it must not take the session thread down: the
                    // job's caller sees its result channel closed and reports an error.
                    let run = std::panic::AssertUnwindSafe(|| job(&mut session));
                    if std::panic::catch_unwind(run).is_err() {
                        crate::log!("a request panicked in the session; the session goes on");
                    }
                }
                // The kernel is going away: exit entered contexts so instruments finish.
                let _ = session.exit_all_contexts();
            })
            .expect("spawn the session thread");
        let interrupt = flag_rx.recv().expect("the session thread starts");
        Worker { jobs, interrupt }
    }

    /// Runs `f` on the session and waits for its result.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |s| {
            let _ = tx.send(f(s));
        });
        self.jobs.send(job).ok()?;
        rx.await.ok()
    }

    /// Asks a running pipeline to stop at the next pass boundary.
    pub fn interrupt(&self) {
        self.interrupt
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}
