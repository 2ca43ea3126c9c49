//! The task-graph executor: runs a DAG of tasks (kernels, collectives, host work, syncs, transfers,
//! barriers) over serial resources (GPU streams, copy engines, host threads, links) and returns when
//! each task started and ended, in integer picoseconds.
//!
//! # Scheduling rule
//!
//! Every task has a *key* `(ready_time, task id)`, where `ready_time` is the latest end of its
//! dependencies (or its `not_before` time if later, or 0). Each resource serves its waiting tasks in
//! strict FIFO order of that key, with no backfilling: a ready task starts as soon as
//!
//! 1. every one of its resources is free, **and**
//! 2. it is the waiting task with the smallest key on every one of its resources.
//!
//! A multi-resource ("gang") task, such as an allreduce occupying all eight compute streams, acquires
//! all of its resources at the same instant. Because every resource orders its waiters by the same
//! global key, the waiting task with the smallest key overall is at the head of all of its queues and
//! only has to wait for running tasks to end: the rule cannot deadlock. The price is that a small task
//! waits behind a gang task queued before it even while its stream is idle (no backfill), which is
//! also what a CUDA stream does with work enqueued in order.
//!
//! Decisions are taken once per instant, after every event of that instant (task ends, tasks
//! becoming ready, chains of zero-duration resource-free barriers) has been processed, so ties at
//! the same instant are resolved by the key and never by event order. A task without resources is a
//! pure delay (or, with duration 0, a barrier/join): it starts at its ready time. A zero-duration
//! task *with* resources is an event of its instant too: the tasks that may start at an instant
//! start in key order, and once a zero-duration one has started the rest are decided again after
//! its end, so that what its end makes ready competes by key.
//!
//! Everything is integer time and ordered containers: the same graph gives the same schedule on
//! every machine (DESIGN.md §2.1).
//!
//! # Invariants
//!
//! The state machine is checked in every build (release too; a violation is an engine bug and
//! panics with a message starting `exec invariant (<name>)`), at O(1) per task, per (task,
//! resource) and per dependency edge, on data the executor touches anyway:
//!
//! - *states*: a task goes blocked → queued → running → done, each step once, and every task is
//!   done when the events run out (no stall);
//! - *exclusion*: a resource holds one task at a time and is released only by its holder, at the
//!   holder's recorded end; hence no two tasks overlap on a resource (the post-hoc sort that checked
//!   this in debug builds only is gone: it cost O(n log n) and an allocation per run for a property
//!   these O(1) checks already imply);
//! - *queues*: a task starts only after waiting in the queue of every one of its resources, and a
//!   task that did not start at its ready time starts at an instant one of its resources was
//!   released;
//! - *dependencies*: when a task ends, each of its dependents is still blocked, waiting for it (so
//!   no task becomes ready or starts before all its dependencies ended), and a task starts no
//!   earlier than its ready time.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use tpsim_model::units::Duration;

use crate::engine::EventQueue;

/// Index of a resource in a [`Resources`] registry (dense, starting at 0, in order of addition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ResourceId(pub u32);

impl ResourceId {
    /// The id as a vector index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Direction of a DMA copy engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CopyDir {
    /// Host memory → this GPU.
    HostToDevice,
    /// This GPU → host memory.
    DeviceToHost,
    /// This GPU → another GPU (peer-to-peer DMA).
    PeerToPeer,
}

/// What a serial resource physically is. Used to name it and to lay it out in traces
/// (one process per GPU, one for the host, one per link).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A CUDA stream of GPU `gpu` (e.g. stream 0 = compute, 1 = communication).
    GpuStream {
        /// GPU index in the box.
        gpu: u32,
        /// Stream index on that GPU.
        stream: u32,
    },
    /// A DMA copy engine of GPU `gpu` in one direction.
    CopyEngine {
        /// GPU index in the box.
        gpu: u32,
        /// Direction served by this engine.
        dir: CopyDir,
    },
    /// A host (CPU) thread, such as the scheduler thread of the serving engine.
    Host {
        /// Thread index.
        thread: u32,
    },
    /// A link of the interconnect (a PCIe lane bundle, a switch port…).
    Link {
        /// Link index in the topology.
        id: u32,
    },
}

/// The registry of serial resources a [`TaskGraph`] runs on. Ids are dense and given in order of
/// [`Resources::add`]; iteration is in id order.
#[derive(Debug, Clone, Default)]
pub struct Resources {
    entries: Vec<(ResourceKind, String)>,
    by_kind: BTreeMap<ResourceKind, ResourceId>,
}

impl Resources {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a resource of kind `kind` with a human name (shown in traces as the thread name,
    /// e.g. `"compute"`). Adding a kind that is already registered returns the existing id and keeps
    /// the first name, so callers may "get or add" freely.
    ///
    /// # Panics
    /// Beyond 2^32 resources (an engine bug: a box has a few dozen).
    pub fn add(&mut self, kind: ResourceKind, name: String) -> ResourceId {
        if let Some(&id) = self.by_kind.get(&kind) {
            return id;
        }
        let id = ResourceId(u32::try_from(self.entries.len()).expect("more than 2^32 resources"));
        self.entries.push((kind, name));
        self.by_kind.insert(kind, id);
        id
    }

    /// The id of the resource of kind `kind`, if registered.
    pub fn lookup(&self, kind: &ResourceKind) -> Option<ResourceId> {
        self.by_kind.get(kind).copied()
    }

    /// The id of the first resource called `name`, if any.
    pub fn by_name(&self, name: &str) -> Option<ResourceId> {
        self.iter().find(|(_, _, n)| *n == name).map(|(id, _, _)| id)
    }

    /// The human name of `id`; `None` if `id` is not from this registry.
    pub fn name(&self, id: ResourceId) -> Option<&str> {
        self.entries.get(id.index()).map(|(_, n)| n.as_str())
    }

    /// The kind of `id`; `None` if `id` is not from this registry.
    pub fn kind(&self, id: ResourceId) -> Option<ResourceKind> {
        self.entries.get(id.index()).map(|(k, _)| *k)
    }

    /// Number of registered resources.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no resource is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All resources as `(id, kind, name)`, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (ResourceId, ResourceKind, &str)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, (k, n))| (ResourceId(i as u32), *k, n.as_str()))
    }
}

/// What a task's time counts as in the per-iteration breakdown ("where did the time go").
/// Serialized in lowercase (`"compute"`, `"collective"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// GPU kernels (GEMMs, attention, MoE experts, norms…).
    Compute,
    /// Collectives (allreduce, all-gather…) and their steps.
    Collective,
    /// Host-side overhead: scheduling, launches, sampling bookkeeping.
    Host,
    /// Synchronisations: device→host syncs, events, barriers with a cost.
    Sync,
    /// Data movement that is not a collective (H2D/D2H/P2P copies).
    Transfer,
    /// Anything else.
    Other,
    /// Pseudo-category of [`Schedule::critical_path_by_category`]: time on the critical path during
    /// which nothing on it ran. Tasks should not use it.
    Idle,
}

impl Category {
    /// Every category, in order (the order of `Ord` and of breakdown tables).
    pub const ALL: [Category; 7] = [
        Category::Compute,
        Category::Collective,
        Category::Host,
        Category::Sync,
        Category::Transfer,
        Category::Other,
        Category::Idle,
    ];

    /// The lowercase name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Compute => "compute",
            Category::Collective => "collective",
            Category::Host => "host",
            Category::Sync => "sync",
            Category::Transfer => "transfer",
            Category::Other => "other",
            Category::Idle => "idle",
        }
    }
}

/// Index of a task in its [`TaskGraph`] (dense, in order of [`TaskGraph::add`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct TaskId(pub u32);

impl TaskId {
    /// The id as a vector index (for [`Schedule::records`]).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One unit of work: it occupies all of `resources` for `duration` once all `deps` have ended.
///
/// No resources = a pure delay (duration > 0) or a barrier/join (duration 0). Several resources =
/// a gang task that acquires them all at once (see the module's scheduling rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Human name (shown in traces).
    pub name: String,
    /// What its time counts as.
    pub category: Category,
    /// The serial resources it occupies for its whole duration; no duplicates.
    pub resources: Vec<ResourceId>,
    /// How long it runs, in integer picoseconds.
    pub duration: Duration,
    /// Tasks that must end before it may start; each must have been added before it.
    pub deps: Vec<TaskId>,
}

impl Task {
    /// A task with no resources and no dependencies; chain [`Task::on`] and [`Task::after`].
    pub fn new(name: impl Into<String>, category: Category, duration: Duration) -> Self {
        Task {
            name: name.into(),
            category,
            resources: Vec::new(),
            duration,
            deps: Vec::new(),
        }
    }

    /// Sets the resources it occupies.
    pub fn on(mut self, resources: impl IntoIterator<Item = ResourceId>) -> Self {
        self.resources = resources.into_iter().collect();
        self
    }

    /// Sets its dependencies.
    pub fn after(mut self, deps: impl IntoIterator<Item = TaskId>) -> Self {
        self.deps = deps.into_iter().collect();
        self
    }
}

/// An error building or running a task graph. These are errors of the code that builds graphs;
/// they are reported, never panicked on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// A dependency that is not an earlier task (which is what keeps the graph acyclic).
    #[error("task `{task}` (#{id}) depends on #{dep}, which is not an earlier task of the graph")]
    BadDep {
        /// Name of the offending task.
        task: String,
        /// The id it would have had.
        id: u32,
        /// The bad dependency.
        dep: u32,
    },
    /// The same resource listed twice by one task.
    #[error("task `{task}` (#{id}) lists resource #{resource} more than once")]
    DuplicateResource {
        /// Name of the offending task.
        task: String,
        /// The id it would have had.
        id: u32,
        /// The repeated resource.
        resource: u32,
    },
    /// A resource id not registered in the [`Resources`] passed to [`run`].
    #[error(
        "task `{task}` (#{id}) uses resource #{resource}, but only {registered} resources are registered"
    )]
    UnknownResource {
        /// Name of the offending task.
        task: String,
        /// Its id.
        id: u32,
        /// The unknown resource.
        resource: u32,
        /// How many resources the registry holds.
        registered: usize,
    },
    /// More than 2^32 tasks.
    #[error("task graph is too large (more than {max} tasks)")]
    TooManyTasks {
        /// The limit.
        max: u64,
    },
}

/// A directed acyclic graph of [`Task`]s. Dependencies may only point to earlier tasks, so the graph
/// is acyclic by construction and task ids are a topological order.
#[derive(Debug, Clone, Default)]
pub struct TaskGraph {
    tasks: Vec<Task>,
    not_before: Vec<Duration>,
}

impl TaskGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `task` and returns its id.
    ///
    /// # Errors
    /// [`ExecError::BadDep`] if a dependency is not an earlier task, [`ExecError::DuplicateResource`]
    /// if a resource is listed twice, [`ExecError::TooManyTasks`] past 2^32 tasks.
    pub fn add(&mut self, task: Task) -> Result<TaskId, ExecError> {
        self.add_not_before(task, Duration::ZERO)
    }

    /// Appends `task`, which may not start before the absolute simulated time `not_before` even if
    /// its dependencies are done (e.g. a request arriving, or a host timer). The wait is reported as
    /// idle time on the critical path. Errors as [`TaskGraph::add`].
    pub fn add_not_before(&mut self, task: Task, not_before: Duration) -> Result<TaskId, ExecError> {
        let id = u32::try_from(self.tasks.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(ExecError::TooManyTasks {
                max: u64::from(u32::MAX),
            })?;
        if let Some(dep) = task.deps.iter().find(|d| d.0 >= id) {
            return Err(ExecError::BadDep {
                task: task.name.clone(),
                id,
                dep: dep.0,
            });
        }
        for (i, r) in task.resources.iter().enumerate() {
            if task.resources[..i].contains(r) {
                return Err(ExecError::DuplicateResource {
                    task: task.name.clone(),
                    id,
                    resource: r.0,
                });
            }
        }
        self.tasks.push(task);
        self.not_before.push(not_before);
        Ok(TaskId(id))
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the graph has no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The task `id`, if it exists.
    pub fn get(&self, id: TaskId) -> Option<&Task> {
        self.tasks.get(id.index())
    }

    /// The earliest start time given to [`TaskGraph::add_not_before`] (zero for [`TaskGraph::add`]).
    pub fn not_before(&self, id: TaskId) -> Option<Duration> {
        self.not_before.get(id.index()).copied()
    }

    /// All tasks with their ids, in id (= topological) order.
    pub fn iter(&self) -> impl Iterator<Item = (TaskId, &Task)> + '_ {
        self.tasks.iter().enumerate().map(|(i, t)| (TaskId(i as u32), t))
    }
}

/// When one task ran, in absolute simulated time (picoseconds from the start of the graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRecord {
    /// When it started.
    pub start: Duration,
    /// When it ended (`start + duration`).
    pub end: Duration,
}

/// The result of [`run`]: when every task ran, and the derived breakdowns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// One record per task, indexed by [`TaskId::index`].
    pub records: Vec<TaskRecord>,
    /// End of the last task (zero for an empty graph).
    pub makespan: Duration,
    ready: Vec<Duration>,
    categories: Vec<Category>,
    /// The task whose end determined this task's start (a dependency or the previous holder of one
    /// of its resources); `None` for a task that started at its `not_before` time with no deps.
    cause: Vec<Option<u32>>,
    busy: Vec<Duration>,
}

impl Schedule {
    /// The record of task `id`, if it exists.
    pub fn record(&self, id: TaskId) -> Option<TaskRecord> {
        self.records.get(id.index()).copied()
    }

    /// When task `id` became ready (all dependencies done and `not_before` passed). `start − ready`
    /// is the time it queued for its resources.
    pub fn ready_time(&self, id: TaskId) -> Option<Duration> {
        self.ready.get(id.index()).copied()
    }

    /// Total time `resource` was occupied (sum of the durations of the tasks that used it);
    /// zero for a resource no task used or that is not registered.
    pub fn busy_time(&self, resource: ResourceId) -> Duration {
        self.busy.get(resource.index()).copied().unwrap_or(Duration::ZERO)
    }

    /// Sum of task durations per category, each task counted once however many resources it held.
    /// Contains every category used by at least one task.
    pub fn time_by_category(&self) -> BTreeMap<Category, Duration> {
        let mut m = BTreeMap::new();
        for (rec, &cat) in self.records.iter().zip(&self.categories) {
            *m.entry(cat).or_insert(Duration::ZERO) += rec.end - rec.start;
        }
        m
    }

    /// The critical path, in time order: starting from the task that ends last (ties: lowest id), walk
    /// back through the task whose end determined each task's start — the last dependency to end if
    /// the task started when it became ready, otherwise the previous holder of the resource it was
    /// waiting for. Empty for an empty graph.
    pub fn critical_path(&self) -> Vec<TaskId> {
        let mut last: Option<usize> = None;
        for (i, r) in self.records.iter().enumerate() {
            if last.is_none_or(|l| r.end > self.records[l].end) {
                last = Some(i);
            }
        }
        let mut path = Vec::new();
        let mut cur = last.map(|l| l as u32);
        while let Some(c) = cur {
            path.push(TaskId(c));
            cur = self.cause[c as usize];
        }
        path.reverse();
        path
    }

    /// Where the makespan went along the [`Schedule::critical_path`]: each task on the path adds its
    /// duration to its category, and every gap between a task's start and the end of its predecessor
    /// on the path (or time zero) is added to [`Category::Idle`]. The values sum exactly to
    /// [`Schedule::makespan`]; this is the per-iteration breakdown the report shows. Contains every
    /// category on the path, and `Idle` always (possibly zero).
    pub fn critical_path_by_category(&self) -> BTreeMap<Category, Duration> {
        let mut m = BTreeMap::new();
        m.insert(Category::Idle, Duration::ZERO);
        let mut prev_end = Duration::ZERO;
        for id in self.critical_path() {
            let rec = self.records[id.index()];
            assert!(
                rec.start >= prev_end,
                "critical path overlaps its predecessor at task #{}",
                id.0
            );
            *m.entry(Category::Idle).or_insert(Duration::ZERO) += rec.start - prev_end;
            *m.entry(self.categories[id.index()]).or_insert(Duration::ZERO) += rec.end - rec.start;
            prev_end = rec.end;
        }
        let total = m.values().fold(0u128, |a, d| a + u128::from(d.as_ps()));
        assert_eq!(
            total,
            u128::from(self.makespan.as_ps()),
            "critical path does not sum to makespan"
        );
        m
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Blocked,
    Queued,
    Running,
    Done,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// `not_before` reached for a task whose dependencies are all done.
    Ready(u32),
    /// A running task ends.
    End(u32),
}

/// Mutable state of one [`run`].
struct Runner<'g> {
    tasks: &'g [Task],
    not_before: &'g [Duration],
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    remaining: Vec<u32>,
    state: Vec<State>,
    ready: Vec<Duration>,
    records: Vec<TaskRecord>,
    dep_cause: Vec<Option<u32>>,
    cause: Vec<Option<u32>>,
    holder: Vec<Option<u32>>,
    last_holder: Vec<Option<u32>>,
    waiting: Vec<BTreeSet<(u64, u32)>>,
    busy: Vec<Duration>,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    /// Scratch of `dispatch_in_key_order`: the tasks that may start now.
    startable: Vec<u32>,
    /// Queued tasks with resources and zero duration (while there are none, `dispatch` needs no
    /// ordering).
    zero_queued: usize,
    queue: EventQueue<Ev>,
}

impl Runner<'_> {
    fn mark_dirty(&mut self, r: ResourceId) {
        if !self.is_dirty[r.index()] {
            self.is_dirty[r.index()] = true;
            self.dirty.push(r.0);
        }
    }

    /// All dependencies of `s` are done at `now` (or its `not_before` arrived).
    fn make_ready(&mut self, s: u32, now: Duration) {
        let si = s as usize;
        assert_eq!(
            self.state[si],
            State::Blocked,
            "exec invariant (states): task #{s} became ready twice"
        );
        self.ready[si] = now;
        let tasks = self.tasks;
        let task = &tasks[si];
        if task.resources.is_empty() {
            self.start(s, now, self.dep_cause[si]);
        } else {
            self.state[si] = State::Queued;
            if task.duration == Duration::ZERO {
                self.zero_queued += 1;
            }
            for &r in &task.resources {
                self.waiting[r.index()].insert((now.as_ps(), s));
                self.mark_dirty(r);
            }
        }
    }

    fn start(&mut self, s: u32, now: Duration, cause: Option<u32>) {
        let si = s as usize;
        assert!(
            now >= self.ready[si],
            "exec invariant (dependencies): task #{s} starts before it is ready"
        );
        let tasks = self.tasks;
        let task = &tasks[si];
        if task.duration == Duration::ZERO && !task.resources.is_empty() {
            self.zero_queued -= 1;
        }
        for &r in &task.resources {
            let ri = r.index();
            assert!(
                self.holder[ri].is_none(),
                "exec invariant (exclusion): resource #{} runs two tasks at once",
                r.0
            );
            let removed = self.waiting[ri].remove(&(self.ready[si].as_ps(), s));
            assert!(
                removed,
                "exec invariant (queues): task #{s} started without waiting on resource #{}",
                r.0
            );
            self.holder[ri] = Some(s);
            self.busy[ri] += task.duration;
        }
        let end = now + task.duration;
        self.records[si] = TaskRecord { start: now, end };
        self.cause[si] = cause;
        self.state[si] = State::Running;
        self.queue.push(end, Ev::End(s));
    }

    fn end(&mut self, s: u32, now: Duration) {
        let si = s as usize;
        assert_eq!(
            self.state[si],
            State::Running,
            "exec invariant (states): task #{s} ended without running"
        );
        assert_eq!(
            self.records[si].end, now,
            "exec invariant (states): task #{s} ended at the wrong time"
        );
        self.state[si] = State::Done;
        let tasks = self.tasks;
        for &r in &tasks[si].resources {
            assert_eq!(
                self.holder[r.index()],
                Some(s),
                "exec invariant (exclusion): resource #{} released by a non-holder",
                r.0
            );
            self.holder[r.index()] = None;
            self.last_holder[r.index()] = Some(s);
            self.mark_dirty(r);
        }
        let (a, b) = (self.succ_start[si] as usize, self.succ_start[si + 1] as usize);
        for k in a..b {
            let n = self.succ[k];
            let ni = n as usize;
            // O(1) per edge, on a line this loop loads anyway: no task has become ready (let alone
            // started) before every one of its dependencies ended.
            if self.state[ni] != State::Blocked || self.remaining[ni] == 0 {
                dependency_violated(n, s);
            }
            self.remaining[ni] -= 1;
            if self.remaining[ni] == 0 {
                self.dep_cause[ni] = Some(s);
                let nb = self.not_before[ni];
                if nb > now {
                    self.queue.push(nb, Ev::Ready(n));
                } else {
                    self.make_ready(n, now);
                }
            }
        }
    }

    /// Starts every queued task that may start at `now` (see the module's scheduling rule). Only the
    /// heads of resources whose state changed at this instant can have become startable.
    fn dispatch(&mut self, now: Duration) {
        if self.zero_queued > 0 {
            self.dispatch_in_key_order(now);
            return;
        }
        // No queued task takes zero time: nothing started here happens at this instant, so the
        // order of the starts does not matter (that of the dirty list is kept).
        let tasks = self.tasks;
        let dirty = std::mem::take(&mut self.dirty);
        for &r in &dirty {
            let ri = r as usize;
            self.is_dirty[ri] = false;
            if self.holder[ri].is_some() {
                continue;
            }
            let Some(&(_, s)) = self.waiting[ri].first() else {
                continue;
            };
            if self.may_start(&tasks[s as usize], s) {
                self.start_queued(s, now);
            }
        }
        // Reuse the allocation.
        self.dirty = dirty;
        self.dirty.clear();
    }

    /// [`Runner::dispatch`] while a zero-duration task is queued: its end belongs to this instant
    /// and may make tasks ready whose keys are smaller than those of other startable tasks. So the
    /// startable tasks start in key order up to the first zero-duration one, and the rest stay
    /// dirty, decided again once its end has been processed (at the same instant). Whatever that
    /// end makes ready has a larger key than the zero-duration task (a later id, ready now), hence
    /// than every task started before it: each resource still serves strictly by key.
    fn dispatch_in_key_order(&mut self, now: Duration) {
        let tasks = self.tasks;
        let mut dirty = std::mem::take(&mut self.dirty);
        let mut startable = std::mem::take(&mut self.startable);
        startable.clear();
        for &r in &dirty {
            let ri = r as usize;
            self.is_dirty[ri] = false;
            if self.holder[ri].is_some() {
                continue;
            }
            let Some(&(_, s)) = self.waiting[ri].first() else {
                continue;
            };
            // A gang task heads several dirty resources: once is enough.
            if !startable.contains(&s) && self.may_start(&tasks[s as usize], s) {
                startable.push(s);
            }
        }
        dirty.clear();
        self.dirty = dirty;
        startable.sort_unstable_by_key(|&s| (self.ready[s as usize], s));
        let mut stop = false;
        for &s in &startable {
            if stop {
                for &q in &tasks[s as usize].resources {
                    self.mark_dirty(q);
                }
                continue;
            }
            stop = tasks[s as usize].duration == Duration::ZERO;
            self.start_queued(s, now);
        }
        self.startable = startable;
    }

    /// Whether queued task `s` may start now: all its resources free, and it heads every queue.
    fn may_start(&self, task: &Task, s: u32) -> bool {
        task.resources.iter().all(|q| {
            self.holder[q.index()].is_none() && self.waiting[q.index()].first().map(|h| h.1) == Some(s)
        })
    }

    /// Starts queued task `s` at `now`, with the task whose end determined the start.
    fn start_queued(&mut self, s: u32, now: Duration) {
        let cause = if now == self.ready[s as usize] {
            self.dep_cause[s as usize]
        } else {
            // It waited: the resource released at this instant determined the start.
            let c = self.tasks[s as usize]
                .resources
                .iter()
                .filter_map(|q| self.last_holder[q.index()])
                .find(|&h| self.records[h as usize].end == now);
            assert!(
                c.is_some(),
                "exec invariant (queues): task #{s} started late with no resource released at that time"
            );
            c
        };
        self.start(s, now, cause);
    }
}

/// Runs `graph` over `resources` and returns when each task ran. See the module documentation for
/// the scheduling rule. Cost: O((tasks × resources per task + edges) × log) — a decode iteration of
/// a few thousand tasks takes well under a millisecond.
///
/// # Errors
/// [`ExecError::UnknownResource`] if a task uses a resource not in `resources`.
pub fn run(graph: &TaskGraph, resources: &Resources) -> Result<Schedule, ExecError> {
    let tasks = &graph.tasks[..];
    let n = tasks.len();
    let nres = resources.len();
    for (i, t) in tasks.iter().enumerate() {
        if let Some(r) = t.resources.iter().find(|r| r.index() >= nres) {
            return Err(ExecError::UnknownResource {
                task: t.name.clone(),
                id: i as u32,
                resource: r.0,
                registered: nres,
            });
        }
    }

    // Successor lists in compressed form: succ[succ_start[i]..succ_start[i+1]] are i's dependents,
    // one entry per dependency edge (a duplicated dep counts twice, as in `remaining`).
    let mut succ_start = vec![0u32; n + 1];
    for t in tasks {
        for d in &t.deps {
            succ_start[d.index() + 1] += 1;
        }
    }
    for i in 0..n {
        succ_start[i + 1] += succ_start[i];
    }
    let mut fill = succ_start.clone();
    let mut succ = vec![0u32; succ_start[n] as usize];
    for (i, t) in tasks.iter().enumerate() {
        for d in &t.deps {
            succ[fill[d.index()] as usize] = i as u32;
            fill[d.index()] += 1;
        }
    }

    let mut rn = Runner {
        tasks,
        not_before: &graph.not_before,
        succ_start,
        succ,
        remaining: tasks.iter().map(|t| t.deps.len() as u32).collect(),
        state: vec![State::Blocked; n],
        ready: vec![Duration::ZERO; n],
        records: vec![
            TaskRecord {
                start: Duration::ZERO,
                end: Duration::ZERO
            };
            n
        ],
        dep_cause: vec![None; n],
        cause: vec![None; n],
        holder: vec![None; nres],
        last_holder: vec![None; nres],
        waiting: vec![BTreeSet::new(); nres],
        busy: vec![Duration::ZERO; nres],
        dirty: Vec::with_capacity(nres),
        is_dirty: vec![false; nres],
        startable: Vec::new(),
        zero_queued: 0,
        queue: EventQueue::with_capacity(nres + 16),
    };
    for (i, t) in tasks.iter().enumerate() {
        if t.deps.is_empty() {
            rn.queue.push(graph.not_before[i], Ev::Ready(i as u32));
        }
    }

    while let Some(now) = rn.queue.peek_time() {
        while rn.queue.peek_time() == Some(now) {
            match rn.queue.pop() {
                Some((_, Ev::Ready(s))) => rn.make_ready(s, now),
                Some((_, Ev::End(s))) => rn.end(s, now),
                None => break,
            }
        }
        rn.dispatch(now);
    }

    for (i, st) in rn.state.iter().enumerate() {
        assert_eq!(
            *st,
            State::Done,
            "exec invariant (states): task #{i} never ran: the executor stalled"
        );
    }
    let makespan = rn.records.iter().map(|r| r.end).max().unwrap_or(Duration::ZERO);
    Ok(Schedule {
        records: rn.records,
        makespan,
        ready: rn.ready,
        categories: tasks.iter().map(|t| t.category).collect(),
        cause: rn.cause,
        busy: rn.busy,
    })
}

/// The panic of the *dependencies* invariant, out of the hot loop.
#[cold]
#[inline(never)]
fn dependency_violated(task: u32, dep: u32) -> ! {
    panic!(
        "exec invariant (dependencies): task #{task} became ready or started before its dependency #{dep} ended"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Duration {
        Duration::from_us(x)
    }

    fn span(s: &Schedule, id: TaskId) -> (u64, u64) {
        let r = s.records[id.index()];
        (r.start.as_ps() / 1_000_000, r.end.as_ps() / 1_000_000)
    }

    fn streams(n: u32) -> (Resources, Vec<ResourceId>) {
        let mut res = Resources::new();
        let ids = (0..n)
            .map(|g| {
                res.add(
                    ResourceKind::GpuStream { gpu: g, stream: 0 },
                    "compute".to_string(),
                )
            })
            .collect();
        (res, ids)
    }

    #[test]
    fn zero_duration_task_on_a_resource_is_an_event_of_its_instant() {
        // Task z takes no time on stream 0; task a (after z) and task b (no deps) want stream 1 for
        // 10 µs. Both are ready at 0 with keys (0, a) < (0, b), so a runs first, although b could
        // start before z's end (at the same instant) made a ready. Found by vopr::executor (seed 5):
        // b used to take the stream first.
        let (res, s) = streams(2);
        let mut g = TaskGraph::new();
        let z = g
            .add(Task::new("z", Category::Sync, Duration::ZERO).on([s[0]]))
            .unwrap();
        let a = g
            .add(Task::new("a", Category::Compute, us(10)).on([s[1]]).after([z]))
            .unwrap();
        let b = g
            .add(Task::new("b", Category::Compute, us(10)).on([s[1]]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(span(&sch, z), (0, 0));
        assert_eq!(span(&sch, a), (0, 10));
        assert_eq!(span(&sch, b), (10, 20));
        assert_eq!(sch.critical_path(), vec![z, a, b]);
    }

    #[test]
    fn chain() {
        let (res, s) = streams(1);
        let mut g = TaskGraph::new();
        let a = g
            .add(Task::new("a", Category::Compute, us(10)).on([s[0]]))
            .unwrap();
        let b = g.add(Task::new("b", Category::Host, us(20)).after([a])).unwrap();
        let c = g
            .add(Task::new("c", Category::Compute, us(5)).on([s[0]]).after([b]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(
            [span(&sch, a), span(&sch, b), span(&sch, c)],
            [(0, 10), (10, 30), (30, 35)]
        );
        assert_eq!(sch.makespan, us(35));
        assert_eq!(sch.busy_time(s[0]), us(15));
    }

    #[test]
    fn fork_join() {
        let (res, s) = streams(3);
        let mut g = TaskGraph::new();
        let a = g
            .add(Task::new("a", Category::Compute, us(10)).on([s[0]]))
            .unwrap();
        let b = g
            .add(Task::new("b", Category::Compute, us(20)).on([s[1]]).after([a]))
            .unwrap();
        let c = g
            .add(Task::new("c", Category::Compute, us(30)).on([s[2]]).after([a]))
            .unwrap();
        let j = g
            .add(Task::new("join", Category::Sync, Duration::ZERO).after([b, c]))
            .unwrap();
        let e = g
            .add(Task::new("e", Category::Compute, us(5)).on([s[0]]).after([j]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        let got: Vec<_> = [a, b, c, j, e].iter().map(|&t| span(&sch, t)).collect();
        assert_eq!(got, vec![(0, 10), (10, 30), (10, 40), (40, 40), (40, 45)]);
        assert_eq!(sch.makespan, us(45));
        assert_eq!(sch.critical_path(), vec![a, c, j, e]);
    }

    #[test]
    fn contention_is_fifo_by_ready_time_then_id() {
        let (res, s) = streams(1);
        let r = s[0];
        let mut g = TaskGraph::new();
        let a = g.add(Task::new("a", Category::Compute, us(10)).on([r])).unwrap();
        // Same ready time (0) as `a`: the lower id goes first.
        let b = g.add(Task::new("b", Category::Compute, us(5)).on([r])).unwrap();
        let delay = g.add(Task::new("delay", Category::Host, us(3))).unwrap();
        // `e` has the lower id but becomes ready at 10; `d` is ready at 3, so `d` goes first.
        let e = g
            .add(Task::new("e", Category::Compute, us(2)).on([r]).after([a]))
            .unwrap();
        let d = g
            .add(Task::new("d", Category::Compute, us(4)).on([r]).after([delay]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(span(&sch, a), (0, 10));
        assert_eq!(span(&sch, b), (10, 15));
        assert_eq!(span(&sch, delay), (0, 3));
        assert_eq!(span(&sch, d), (15, 19));
        assert_eq!(span(&sch, e), (19, 21));
        assert_eq!(sch.ready_time(d), Some(us(3)));
        assert_eq!(sch.busy_time(r), us(21));
        assert_eq!(sch.makespan, us(21));
    }

    #[test]
    fn gang_task_waits_for_all_streams_without_backfill() {
        let (res, s) = streams(2);
        let mut g = TaskGraph::new();
        let k0 = g
            .add(Task::new("k0", Category::Compute, us(10)).on([s[0]]))
            .unwrap();
        let k1 = g
            .add(Task::new("k1", Category::Compute, us(30)).on([s[1]]))
            .unwrap();
        let ar = g
            .add(
                Task::new("ar", Category::Collective, us(5))
                    .on([s[0], s[1]])
                    .after([k0]),
            )
            .unwrap();
        // Ready at 12 with stream 0 idle, but `ar` (ready 10) is queued first on stream 0: no backfill.
        let late = g.add(Task::new("late", Category::Host, us(12))).unwrap();
        let k2 = g
            .add(Task::new("k2", Category::Compute, us(4)).on([s[0]]).after([late]))
            .unwrap();
        let k3 = g
            .add(Task::new("k3", Category::Compute, us(1)).on([s[1]]).after([ar]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(span(&sch, k0), (0, 10));
        assert_eq!(span(&sch, k1), (0, 30));
        assert_eq!(span(&sch, ar), (30, 35));
        assert_eq!(span(&sch, k2), (35, 39));
        assert_eq!(span(&sch, k3), (35, 36));
        assert_eq!(sch.makespan, us(39));
        // k2 waited for stream 0, released by `ar`, which waited for stream 1, released by k1.
        assert_eq!(sch.critical_path(), vec![k1, ar, k2]);
        assert_eq!(sch.busy_time(s[0]), us(19));
        assert_eq!(sch.busy_time(s[1]), us(36));
        let cp = sch.critical_path_by_category();
        assert_eq!(cp[&Category::Compute], us(34));
        assert_eq!(cp[&Category::Collective], us(5));
        assert_eq!(cp[&Category::Idle], Duration::ZERO);
    }

    #[test]
    fn critical_path_breakdown_sums_to_makespan_with_idle_gaps() {
        let (res, s) = streams(2);
        let mut g = TaskGraph::new();
        let a = g
            .add(Task::new("a", Category::Compute, us(10)).on([s[0]]))
            .unwrap();
        let b = g.add(Task::new("b", Category::Host, us(5)).after([a])).unwrap();
        // Deps done at 15, but it may not start before 25: 10 µs idle on the critical path.
        let c = g
            .add_not_before(
                Task::new("c", Category::Collective, us(20))
                    .on([s[0], s[1]])
                    .after([b]),
                us(25),
            )
            .unwrap();
        let d = g
            .add(Task::new("d", Category::Compute, us(8)).on([s[1]]))
            .unwrap();
        let e = g
            .add(Task::new("e", Category::Compute, us(7)).on([s[0]]).after([c]))
            .unwrap();
        // A task that only waits for its arrival time: its wait from 0 is idle too (not on the path).
        let f = g
            .add_not_before(Task::new("f", Category::Sync, us(1)), us(4))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(span(&sch, c), (25, 45));
        assert_eq!(span(&sch, d), (0, 8));
        assert_eq!(span(&sch, e), (45, 52));
        assert_eq!(span(&sch, f), (4, 5));
        assert_eq!(sch.makespan, us(52));
        assert_eq!(sch.critical_path(), vec![a, b, c, e]);
        let cp = sch.critical_path_by_category();
        let want: BTreeMap<Category, Duration> = [
            (Category::Compute, us(17)),
            (Category::Collective, us(20)),
            (Category::Host, us(5)),
            (Category::Idle, us(10)),
        ]
        .into_iter()
        .collect();
        assert_eq!(cp, want);
        let total: u64 = cp.values().map(|d| d.as_ps()).sum();
        assert_eq!(total, sch.makespan.as_ps());
        let by_cat = sch.time_by_category();
        assert_eq!(by_cat[&Category::Compute], us(25));
        assert_eq!(by_cat[&Category::Sync], us(1));
    }

    #[test]
    fn bad_dep_is_an_error() {
        let mut g = TaskGraph::new();
        let err = g
            .add(Task::new("x", Category::Other, us(1)).after([TaskId(0)]))
            .unwrap_err();
        assert_eq!(
            err,
            ExecError::BadDep {
                task: "x".into(),
                id: 0,
                dep: 0
            }
        );
        let a = g.add(Task::new("a", Category::Other, us(1))).unwrap();
        assert!(
            g.add(Task::new("y", Category::Other, us(1)).after([a, TaskId(7)]))
                .is_err()
        );
        assert_eq!(g.len(), 1);
        assert!(err.to_string().contains("not an earlier task"));
    }

    #[test]
    fn resource_errors() {
        let (res, s) = streams(1);
        let mut g = TaskGraph::new();
        let dup = g.add(Task::new("dup", Category::Other, us(1)).on([s[0], s[0]]));
        assert!(matches!(dup, Err(ExecError::DuplicateResource { .. })));
        g.add(Task::new("far", Category::Other, us(1)).on([ResourceId(3)]))
            .unwrap();
        assert!(matches!(
            run(&g, &res),
            Err(ExecError::UnknownResource { resource: 3, .. })
        ));
    }

    #[test]
    fn zero_duration_tasks_and_empty_graph() {
        let (res, s) = streams(1);
        let empty = run(&TaskGraph::new(), &res).unwrap();
        assert_eq!(empty.makespan, Duration::ZERO);
        assert!(empty.critical_path().is_empty());
        assert_eq!(empty.critical_path_by_category()[&Category::Idle], Duration::ZERO);

        let mut g = TaskGraph::new();
        let mark = g
            .add(Task::new("mark", Category::Sync, Duration::ZERO).on([s[0]]))
            .unwrap();
        let j1 = g
            .add(Task::new("j1", Category::Sync, Duration::ZERO).after([mark]))
            .unwrap();
        let j2 = g
            .add(Task::new("j2", Category::Sync, Duration::ZERO).after([j1]))
            .unwrap();
        let k = g
            .add(Task::new("k", Category::Compute, us(2)).on([s[0]]).after([j2]))
            .unwrap();
        let sch = run(&g, &res).unwrap();
        assert_eq!(span(&sch, k), (0, 2));
        assert_eq!(sch.critical_path(), vec![mark, j1, j2, k]);
    }

    #[test]
    fn resources_registry() {
        let mut r = Resources::new();
        let a = r.add(ResourceKind::GpuStream { gpu: 0, stream: 0 }, "compute".into());
        let b = r.add(ResourceKind::Host { thread: 0 }, "scheduler".into());
        let again = r.add(ResourceKind::GpuStream { gpu: 0, stream: 0 }, "other".into());
        assert_eq!((a, b, again), (ResourceId(0), ResourceId(1), ResourceId(0)));
        assert_eq!(r.len(), 2);
        assert_eq!(r.name(a), Some("compute"));
        assert_eq!(r.kind(b), Some(ResourceKind::Host { thread: 0 }));
        assert_eq!(r.lookup(&ResourceKind::Host { thread: 0 }), Some(b));
        assert_eq!(r.by_name("scheduler"), Some(b));
        assert_eq!(r.name(ResourceId(9)), None);
        let ids: Vec<_> = r.iter().map(|(id, _, _)| id).collect();
        assert_eq!(ids, vec![a, b]);
        assert_eq!(
            serde_json::to_string(&Category::Collective).unwrap(),
            "\"collective\""
        );
    }
}
