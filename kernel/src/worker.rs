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

/// Why a job brought no result back.
#[derive(Debug, PartialEq, Eq)]
pub enum JobError {
    /// The job panicked (a bug). The session itself goes on, with its variables: `execute`
    /// undoes a statement that panics, and the other jobs only read the session.
    Panicked(String),
    /// The session thread is gone.
    Stopped,
}

impl JobError {
    /// What a user is told: `what` failed (a request, a cell), and whether the session is
    /// still there.
    pub fn explain(&self, what: &str) -> String {
        match self {
            JobError::Panicked(m) => format!(
                "{what} failed with an internal error (a bug in passlab): {m}; \
                 the session and its variables are intact"
            ),
            JobError::Stopped => {
                format!("{what} failed: the session is not running; restart the kernel")
            }
        }
    }
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

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
                // Each job catches its own panic (see `run`), so none takes the thread down.
                for job in rx {
                    job(&mut session);
                }
                // The kernel is going away: exit entered contexts so instruments finish.
                let _ = session.exit_all_contexts();
            })
            .expect("spawn the session thread");
        let interrupt = flag_rx.recv().expect("the session thread starts");
        Worker { jobs, interrupt }
    }

    /// Runs `f` on the session and waits for its result. A panic in `f` is caught on the
    /// session thread: the session goes on and the caller gets the panic's message.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, JobError> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |s| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(s)));
            let r = r.map_err(|payload| {
                let m = panic_message(&*payload);
                crate::log!("a request panicked in the session ({m}); the session goes on");
                JobError::Panicked(m)
            });
            let _ = tx.send(r);
        });
        self.jobs.send(job).map_err(|_| JobError::Stopped)?;
        rx.await.unwrap_or(Err(JobError::Stopped))
    }

    /// Asks a running pipeline to stop at the next pass boundary.
    pub fn interrupt(&self) {
        self.interrupt
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use passlab::session::Value;

    /// A job that panics fails alone: its caller hears why, and the session, with its
    /// variables, answers the next job.
    #[test]
    fn a_panicking_job_leaves_the_session_running() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let worker = Worker::start(std::env::temp_dir());
        rt.block_on(async {
            worker.run(|s| s.set_var("x", Value::Int(7))).await.unwrap();
            let err = worker.run(|_| -> u8 { panic!("boom") }).await.unwrap_err();
            assert_eq!(err, JobError::Panicked("boom".into()));
            assert_eq!(
                err.explain("completion"),
                "completion failed with an internal error (a bug in passlab): boom; \
                 the session and its variables are intact"
            );
            let x = worker.run(|s| s.execute("x").plain()).await.unwrap();
            assert_eq!(x, "7\n");
        });
    }
}
