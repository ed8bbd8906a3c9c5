//! A pipeline run on its own thread, so it can pause (a run without breakpoints cannot pause,
//! and runs on the session's thread instead: see [`Run::start`]). The session hands the worker a
//! [`PassCx`] (which owns everything a run needs) with an observer installed; the observer
//! records every pass into the run's history and, at a breakpoint or after a `step`, sends a
//! [`Pause`] to the session and blocks until it is told to continue, step or abort. The
//! session thread waits for the worker's next message (a pause or the end), so only one of
//! the two threads works at a time.
//!
//! Two channels: worker -> session (`Msg`: paused, or done with the run's result) and session
//! -> worker (`Resume`). Dropping the session's [`Run`] sends `Abort` (and a closed channel
//! reads as `Abort`), so a paused run never keeps a session from going away: the worker
//! unwinds with an `Aborted` error and ends on its own; nothing joins it.

use super::breakpoint::{check, AfterPass, Breakpoints};
use crate::ir::Module;
use crate::pass::error::PassErrorKind;
use crate::pass::observer::{Flow, PassEvent, PassObserver};
use crate::pass::sink::lock;
use crate::pass::{Pass, PassCx, PassError, PassInfo};
use crate::session::history::{RunHistory, RunStatus, Step};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Stack for the worker thread: deep programs are normal (passes also grow their stack on
/// demand with `stacker`).
const WORKER_STACK: usize = 64 << 20;

/// Worker -> session.
pub(crate) enum Msg {
    Paused(Pause),
    Done(Result<Module, PassError>),
}

/// Session -> worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Run to the next breakpoint or the end.
    Continue,
    /// Run until the next pass (not a Sequential) has finished, then pause after it.
    Step,
    Abort,
}

/// Where a pass sits in its parent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// (k, n): the parent's k-th of n children (1-based).
    pub index: Option<(usize, usize)>,
    /// A pass the parent Sequential runs because this child requires it.
    pub required_by: Option<String>,
}

/// A paused run: where, and the module at that point.
#[derive(Clone)]
pub struct Pause {
    pub after: bool,
    pub info: PassInfo,
    /// The enclosing passes, outermost first.
    pub stack: Vec<PassInfo>,
    pub place: Place,
    /// The pass's input (before) or output (after).
    pub module: Module,
    /// Why the conditional breakpoints that hit did (`breakpoint 3: ...`).
    pub reasons: Vec<String>,
    /// After the pass: whether it changed the module (structurally) and how long its body
    /// took.
    pub outcome: Option<(bool, std::time::Duration)>,
}

impl Pause {
    /// `paused before FoldConstant (2 of 4) in sequential`.
    pub fn describe(&self) -> String {
        let when = if self.after { "after" } else { "before" };
        let mut s = format!("paused {when} {}", self.info.name());
        if let Some((k, n)) = self.place.index {
            s.push_str(&format!(" ({k} of {n})"));
        } else if let Some(by) = &self.place.required_by {
            s.push_str(&format!(" (required by {by})"));
        }
        if let Some(parent) = self.stack.last() {
            s.push_str(&format!(" in {}", parent.name()));
        }
        s
    }

    /// [`Pause::describe`], then after a pass whether it changed the module and how long it
    /// took (`paused after FoldConstant (2 of 4) in sequential: changed, 38.2 ms`).
    pub fn describe_outcome(&self) -> String {
        let mut s = self.describe();
        if let Some((changed, took)) = self.outcome {
            let what = if changed { "changed" } else { "unchanged" };
            s.push_str(&format!(
                ": {what}, {}",
                crate::instrument::timing::human_duration(took)
            ));
        }
        s
    }

    /// `sequential > FoldConstant`.
    pub fn stack_line(&self) -> String {
        let mut names: Vec<&str> = self.stack.iter().map(PassInfo::name).collect();
        names.push(self.info.name());
        names.join(" > ")
    }
}

/// The session's handle on a run in progress.
pub(crate) struct Run {
    to_worker: Sender<Resume>,
    from_worker: Receiver<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl Run {
    /// Starts `pass` on `input`; breakpoints are read from `breakpoints` as the run goes,
    /// and every pass is recorded in `history`. A run that can pause (a breakpoint is set)
    /// goes on a new thread; one that cannot (no breakpoint: a pause only comes from a
    /// breakpoint, or from `step`, which needs a pause first, and nothing can add a
    /// breakpoint while the session waits for the run) runs to its end here, on the
    /// caller's thread, and [`wait`](Self::wait) then finds it done.
    pub fn start(
        cx: PassCx,
        pass: Pass,
        input: Module,
        breakpoints: Arc<Mutex<Breakpoints>>,
        history: Arc<Mutex<RunHistory>>,
    ) -> std::io::Result<Run> {
        let (to_worker, from_session) = channel();
        let (to_session, from_worker) = channel();
        let may_pause = !lock(&breakpoints).is_empty();
        let observer = Observer {
            breakpoints,
            history: history.clone(),
            root: pass.clone(),
            to_session: to_session.clone(),
            from_session: Mutex::new(from_session),
            state: Mutex::new(State::default()),
        };
        let mut cx = cx.with_observer(Some(Arc::new(observer)));
        let mut body = move || {
            let result = cx.run(&pass, &input);
            lock(&history).status = match &result {
                Ok(_) => RunStatus::Finished,
                Err(e) if matches!(e.kind(), PassErrorKind::Aborted { .. }) => RunStatus::Aborted,
                Err(e) => RunStatus::Failed(e.to_string()),
            };
            // The session may be gone (a paused run dropped with it): nobody to tell.
            let _ = to_session.send(Msg::Done(result));
        };
        let thread = if may_pause {
            let spawned = std::thread::Builder::new()
                .name("passlab-run".into())
                .stack_size(WORKER_STACK)
                .spawn(body)?;
            Some(spawned)
        } else {
            body();
            None
        };
        Ok(Run {
            to_worker,
            from_worker,
            thread,
        })
    }

    /// Waits for the run to pause or end.
    pub fn wait(&mut self) -> Msg {
        match self.from_worker.recv() {
            Ok(Msg::Paused(p)) => Msg::Paused(p),
            Ok(Msg::Done(r)) => {
                self.join();
                Msg::Done(r)
            }
            // Unreachable in practice: the funnel catches panics in passes and instruments.
            Err(_) => Msg::Done(Err(PassError::failed(format!(
                "the run's thread stopped unexpectedly{}",
                self.join()
            )))),
        }
    }

    /// Tells a paused run how to go on, and waits for it to pause again or end.
    pub fn resume(&mut self, how: Resume) -> Msg {
        if self.to_worker.send(how).is_err() {
            return self.wait();
        }
        self.wait()
    }

    /// Joins the finished worker; returns a panic message, if it panicked.
    fn join(&mut self) -> String {
        match self.thread.take().map(JoinHandle::join) {
            Some(Err(payload)) => {
                format!(": {}", crate::pass::error::panic_message(&*payload))
            }
            _ => String::new(),
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // A paused worker wakes up, aborts and ends by itself; a finished one ignores this.
        let _ = self.to_worker.send(Resume::Abort);
    }
}

/// The observer on the worker thread.
struct Observer {
    breakpoints: Arc<Mutex<Breakpoints>>,
    history: Arc<Mutex<RunHistory>>,
    root: Pass,
    to_session: Sender<Msg>,
    from_session: Mutex<Receiver<Resume>>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Pause after the next pass that is not a Sequential.
    stepping: bool,
    /// `break verify` already paused in this run.
    verify_fired: bool,
    /// `break numerics`: the check's state in this run (inputs made once), and whether it
    /// already paused.
    numerics: Option<crate::eval::numerics::NumericsCheck>,
    numerics_fired: bool,
    /// The running passes, outermost first, each with the next child to look for.
    cursor: Vec<Frame>,
}

struct Frame {
    pass: Option<Pass>,
    next: usize,
    place: Place,
}

impl Observer {
    /// Finds the pass starting at `depth` in its parent's children (passes run in order,
    /// so the search goes forward from the last child found).
    fn enter(&self, st: &mut State, info: &PassInfo, depth: usize) -> Place {
        st.cursor.truncate(depth);
        while st.cursor.len() < depth {
            st.cursor.push(Frame {
                pass: None,
                next: 0,
                place: Place::default(),
            });
        }
        let (pass, place) = match st.cursor.last_mut() {
            None => (Some(self.root.clone()), Place::default()),
            Some(Frame {
                pass: Some(parent),
                next,
                ..
            }) => {
                let kids = parent.children();
                match (*next..kids.len()).find(|&j| kids[j].info().same_as(info)) {
                    Some(j) => {
                        *next = j + 1;
                        let place = Place {
                            index: Some((j + 1, kids.len())),
                            required_by: None,
                        };
                        (Some(kids[j].clone()), place)
                    }
                    None => {
                        let by = kids[(*next).min(kids.len())..]
                            .iter()
                            .find(|k| k.info().required().iter().any(|r| &**r == info.name()))
                            .map(|k| k.info().name().to_string());
                        let place = Place {
                            index: None,
                            required_by: by,
                        };
                        (None, place)
                    }
                }
            }
            Some(_) => (None, Place::default()),
        };
        st.cursor.push(Frame {
            pass,
            next: 0,
            place: place.clone(),
        });
        place
    }

    /// Sends the pause and blocks until the session says how to go on.
    fn pause(&self, st: &mut State, pause: Pause) -> Flow {
        lock(&self.history).status = RunStatus::Paused;
        if self.to_session.send(Msg::Paused(pause)).is_err() {
            return Flow::Abort;
        }
        let how = lock(&self.from_session).recv().unwrap_or(Resume::Abort);
        lock(&self.history).status = RunStatus::Running;
        st.stepping = how == Resume::Step;
        match how {
            Resume::Continue | Resume::Step => Flow::Continue,
            Resume::Abort => Flow::Abort,
        }
    }
}

impl PassObserver for Observer {
    fn before_pass(&self, ev: &PassEvent<'_>) -> Flow {
        {
            let mut h = lock(&self.history);
            h.open.truncate(ev.depth);
            h.open.push((ev.info.clone(), ev.input.clone()));
        }
        let mut st = lock(&self.state);
        let place = self.enter(&mut st, ev.info, ev.depth);
        let hits = lock(&self.breakpoints).hit_before(ev.info);
        if hits.is_empty() {
            return Flow::Continue;
        }
        let pause = Pause {
            after: false,
            info: ev.info.clone(),
            stack: ev.stack.to_vec(),
            place,
            module: ev.input.clone(),
            reasons: Vec::new(),
            outcome: None,
        };
        self.pause(&mut st, pause)
    }

    fn after_pass(&self, ev: &PassEvent<'_>) -> Flow {
        let Some(output) = ev.output else {
            return Flow::Continue;
        };
        lock(&self.history).open.truncate(ev.depth);
        let mut st = lock(&self.state);
        let leaf = !ev.info.is_sequential();
        let elapsed = ev.elapsed.unwrap_or_default();
        if leaf {
            lock(&self.history).steps.push(Step {
                info: ev.info.clone(),
                parent: ev.stack.last().cloned(),
                depth: ev.depth,
                input: ev.input.clone(),
                output: output.clone(),
                elapsed,
            });
        }
        let mut bps = lock(&self.breakpoints);
        let failed = (leaf && !st.verify_fired && bps.wants_verify())
            .then(|| check(output).err())
            .flatten();
        st.verify_fired |= failed.is_some();
        let changed = (leaf && !st.numerics_fired && bps.wants_numerics())
            .then(|| numerics_changed(&mut st, ev.input, output, ev.info.name()))
            .flatten();
        st.numerics_fired |= changed.is_some();
        let hits = bps.hit_after(
            &AfterPass {
                info: ev.info,
                input: ev.input,
                output,
                elapsed,
            },
            failed.as_deref(),
            changed.as_deref(),
        );
        drop(bps);
        if hits.is_empty() && !(st.stepping && leaf) {
            return Flow::Continue;
        }
        let place = st
            .cursor
            .get(ev.depth)
            .map(|f| f.place.clone())
            .unwrap_or_default();
        let pause = Pause {
            after: true,
            info: ev.info.clone(),
            stack: ev.stack.to_vec(),
            place,
            module: output.clone(),
            reasons: hits
                .into_iter()
                .filter_map(|(id, r)| r.map(|r| format!("breakpoint {id}: {r}")))
                .collect(),
            outcome: Some((
                crate::ir::structural::module_changed(ev.input, output),
                elapsed,
            )),
        };
        self.pause(&mut st, pause)
    }
}

/// Why `break numerics` pauses after `pass`, if it does: the pass changed what `@main`
/// computes on the run's seeded inputs, or a module could not be evaluated.
fn numerics_changed(st: &mut State, input: &Module, output: &Module, pass: &str) -> Option<String> {
    use crate::eval::numerics::{NumericsCheck, DEFAULT_ATOL, DEFAULT_RTOL};
    let check = st
        .numerics
        .get_or_insert_with(|| NumericsCheck::new(DEFAULT_RTOL, DEFAULT_ATOL, 0));
    match check.compare(input, output, pass) {
        Ok(None) => None,
        Ok(Some(d)) => Some(format!("{pass} changed the numbers of @main: {d}")),
        Err(e) => Some(format!("the numbers cannot be checked after {pass}: {e}")),
    }
}
