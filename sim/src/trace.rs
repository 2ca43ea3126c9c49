//! Chrome / Perfetto trace-event JSON for simulated schedules (open in `ui.perfetto.dev` or
//! `chrome://tracing`).
//!
//! Layout: one process per GPU (`"GPU 0"`, …; its streams and copy engines are its threads), one
//! process for the host (its threads), one process per link (`"link 3"`). Each task is a complete
//! event (`ph: "X"`) on the track of every resource it holds, so a gang allreduce over eight streams
//! appears eight times. Tasks without resources (pure delays, barriers) have no track and are not
//! drawn. Thread names are the resource names given to [`Resources::add`]; only tracks with at least
//! one event get metadata.
//!
//! Times are **simulated** time (never wall clock), written as `ts`/`dur` in microseconds as `f64`
//! per the trace-event format; `displayTimeUnit` is `"ns"`. Output order is deterministic: metadata
//! sorted by (pid, tid), then events in the order schedules were added, tasks in id order, each
//! task's resources in its own order.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;
use tpsim_model::units::Duration;

use crate::exec::{CopyDir, ResourceKind, Resources, Schedule, TaskGraph, TaskId};

/// Trace pid of the host process. GPUs use their index as pid (a box has far fewer than this many);
/// kept below 2^32 because Perfetto's JSON importer reads pids as 32-bit integers.
pub const HOST_PID: u32 = 1_000_000;
/// Trace pid of the serving loop's counters (issue #18), below the host's and the links' pids.
pub const SERVING_PID: u32 = HOST_PID - 1;
/// Trace pid of link 0; link `i` is `LINK_PID_BASE + i`.
pub const LINK_PID_BASE: u32 = 1_000_001;
/// Trace tid of a GPU's first copy engine: copy engines follow the streams (tid = stream index).
pub const COPY_ENGINE_TID_BASE: u32 = 1_000;

/// An error assembling a trace: the graph, registry and schedule passed together do not belong
/// together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    /// The schedule has a different number of records than the graph has tasks.
    #[error("schedule has {records} task records but the graph has {tasks} tasks")]
    Mismatch {
        /// Tasks in the graph.
        tasks: usize,
        /// Records in the schedule.
        records: usize,
    },
    /// A task uses a resource that is not in the registry.
    #[error("task #{task} uses resource #{resource}, which is not in the resource registry")]
    UnknownResource {
        /// The task.
        task: u32,
        /// The resource id.
        resource: u32,
    },
}

/// `args` of an event: metadata carries a name; complete events carry their task id and the index
/// of the schedule they came from (the order of [`TraceBuilder::add_schedule`] calls).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Args {
    Meta {
        name: String,
    },
    Task {
        task: u32,
        schedule: usize,
    },
    /// Issue #18: a counter sample (`ph: "C"`): the serving loop's state at one instant.
    Serving {
        running: u32,
        waiting: u32,
        kv_utilisation: f64,
        preemptions: u64,
    },
    Flow {
        bytes: u64,
    },
}

/// One trace event, as in the Trace Event Format document (Chrome/Perfetto).
#[derive(Debug, Clone, Serialize)]
struct TraceEvent {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    args: Args,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TraceFile<'a> {
    trace_events: &'a [TraceEvent],
    display_time_unit: &'static str,
}

/// Where a resource is drawn: `(pid, tid, process name)`.
fn track(kind: ResourceKind) -> (u32, u32, String) {
    match kind {
        ResourceKind::GpuStream { gpu, stream } => (gpu.min(HOST_PID - 1), stream, format!("GPU {gpu}")),
        ResourceKind::CopyEngine { gpu, dir } => {
            let d = match dir {
                CopyDir::HostToDevice => 0,
                CopyDir::DeviceToHost => 1,
                CopyDir::PeerToPeer => 2,
            };
            (
                gpu.min(HOST_PID - 1),
                COPY_ENGINE_TID_BASE + d,
                format!("GPU {gpu}"),
            )
        }
        ResourceKind::Host { thread } => (HOST_PID, thread, "host".to_string()),
        ResourceKind::Link { id } => (LINK_PID_BASE.saturating_add(id), 0, format!("link {id}")),
    }
}

/// Accumulates one or more schedules (e.g. successive decode iterations laid end to end) into one
/// trace.
#[derive(Debug, Clone, Default)]
pub struct TraceBuilder {
    events: Vec<TraceEvent>,
    /// (pid, tid) → (process name, thread name); the first name seen for a track wins.
    tracks: BTreeMap<(u32, u32), (String, String)>,
    schedules: usize,
}

impl TraceBuilder {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every task of `schedule` (which [`crate::exec::run`] made from `graph` over
    /// `resources`), shifted by `offset` of simulated time (so iteration *k* can be placed after
    /// iteration *k − 1*).
    ///
    /// # Errors
    /// [`TraceError`] if the three arguments do not belong together; nothing is added then.
    pub fn add_schedule(
        &mut self,
        graph: &TaskGraph,
        resources: &Resources,
        schedule: &Schedule,
        offset: Duration,
    ) -> Result<(), TraceError> {
        if schedule.records.len() != graph.len() {
            return Err(TraceError::Mismatch {
                tasks: graph.len(),
                records: schedule.records.len(),
            });
        }
        for (id, task) in graph.iter() {
            if let Some(r) = task.resources.iter().find(|r| resources.kind(**r).is_none()) {
                return Err(TraceError::UnknownResource {
                    task: id.0,
                    resource: r.0,
                });
            }
        }
        let index = self.schedules;
        self.schedules += 1;
        for (id, task) in graph.iter() {
            let rec = schedule.records[id.index()];
            let ts = (offset + rec.start).as_us_f64();
            let dur = (rec.end - rec.start).as_us_f64();
            for &r in &task.resources {
                let (Some(kind), Some(name)) = (resources.kind(r), resources.name(r)) else {
                    continue;
                };
                let (pid, tid, process) = track(kind);
                self.tracks
                    .entry((pid, tid))
                    .or_insert_with(|| (process, name.to_string()));
                self.events.push(TraceEvent {
                    name: task.name.clone(),
                    cat: Some(task.category.as_str()),
                    ph: "X",
                    ts: Some(ts),
                    dur: Some(dur),
                    pid,
                    tid,
                    args: Args::Task {
                        task: id.0,
                        schedule: index,
                    },
                });
            }
        }
        Ok(())
    }

    /// Adds one transfer on the track of link `link` (named `link_name`): `name` from `start` to
    /// `end` of simulated time, carrying `bytes`. Used to show which links a collective loaded.
    pub fn add_link_event(
        &mut self,
        link: u32,
        link_name: &str,
        name: &str,
        start: Duration,
        end: Duration,
        bytes: u64,
    ) {
        let pid = LINK_PID_BASE.saturating_add(link);
        self.tracks
            .entry((pid, 0))
            .or_insert_with(|| (format!("link {link_name}"), "transfers".to_string()));
        self.events.push(TraceEvent {
            name: name.to_string(),
            cat: Some("link"),
            ph: "X",
            ts: Some(start.as_us_f64()),
            dur: Some((end - start).as_us_f64()),
            pid,
            tid: 0,
            args: Args::Flow { bytes },
        });
    }

    /// Issue #18: the serving loop's time series as counter events (`ph: "C"`, one track named
    /// "serving"): running and waiting requests, KV pool utilisation (0 to 1) and preemptions so
    /// far, at each sampled instant `t_ms` of the whole run (its own time axis: the laid-out
    /// iterations start at 0 too).
    pub fn add_serving_series(&mut self, series: &[crate::serve::stats::SeriesPoint]) {
        self.tracks
            .entry((SERVING_PID, 0))
            .or_insert_with(|| ("serving loop".to_string(), "counters".to_string()));
        for pt in series {
            self.events.push(TraceEvent {
                name: "serving".to_string(),
                cat: Some("serving"),
                ph: "C",
                ts: Some(pt.t_ms * 1000.0),
                dur: None,
                pid: SERVING_PID,
                tid: 0,
                args: Args::Serving {
                    running: pt.running,
                    waiting: pt.waiting,
                    kv_utilisation: pt.kv_utilisation,
                    preemptions: pt.preemptions,
                },
            });
        }
    }

    /// Number of complete (`"X"`) events added so far.
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    fn all_events(&self) -> Vec<TraceEvent> {
        let mut out = Vec::with_capacity(self.events.len() + 2 * self.tracks.len());
        let mut last_pid = None;
        for (&(pid, tid), (process, thread)) in &self.tracks {
            if last_pid != Some(pid) {
                out.push(meta("process_name", pid, 0, process));
                last_pid = Some(pid);
            }
            out.push(meta("thread_name", pid, tid, thread));
        }
        out.extend(self.events.iter().cloned());
        out
    }

    /// The finished trace as a JSON value `{"traceEvents": [...], "displayTimeUnit": "ns"}`.
    pub fn finish(self) -> serde_json::Value {
        let events = self.all_events();
        let file = TraceFile {
            trace_events: &events,
            display_time_unit: "ns",
        };
        // Serializing plain structs of strings, integers and finite floats cannot fail.
        serde_json::to_value(&file).unwrap_or(serde_json::Value::Null)
    }

    /// Writes the finished trace as compact JSON to `w`.
    ///
    /// # Errors
    /// Any I/O error from `w`.
    pub fn write_to<W: Write>(self, w: W) -> std::io::Result<()> {
        let events = self.all_events();
        let file = TraceFile {
            trace_events: &events,
            display_time_unit: "ns",
        };
        serde_json::to_writer(w, &file).map_err(std::io::Error::other)
    }
}

fn meta(kind: &str, pid: u32, tid: u32, name: &str) -> TraceEvent {
    TraceEvent {
        name: kind.to_string(),
        cat: None,
        ph: "M",
        ts: None,
        dur: None,
        pid,
        tid,
        args: Args::Meta {
            name: name.to_string(),
        },
    }
}

/// The trace of a single schedule shifted by `offset`; shorthand for a [`TraceBuilder`] with one
/// [`TraceBuilder::add_schedule`].
///
/// # Errors
/// As [`TraceBuilder::add_schedule`].
pub fn chrome_trace(
    graph: &TaskGraph,
    resources: &Resources,
    schedule: &Schedule,
    offset: Duration,
) -> Result<serde_json::Value, TraceError> {
    let mut b = TraceBuilder::new();
    b.add_schedule(graph, resources, schedule, offset)?;
    Ok(b.finish())
}

/// The id of the task a complete event in a trace refers to (its `args.task`), for tools reading
/// traces back.
pub fn event_task(event: &serde_json::Value) -> Option<TaskId> {
    event
        .get("args")?
        .get("task")?
        .as_u64()
        .and_then(|t| u32::try_from(t).ok())
        .map(TaskId)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Category, Task, run};
    use serde_json::Value;

    fn setup() -> (TaskGraph, Resources, Schedule) {
        let mut res = Resources::new();
        let c0 = res.add(ResourceKind::GpuStream { gpu: 0, stream: 0 }, "compute".into());
        let c1 = res.add(ResourceKind::GpuStream { gpu: 1, stream: 0 }, "compute".into());
        let _unused = res.add(ResourceKind::GpuStream { gpu: 1, stream: 1 }, "comm".into());
        let h = res.add(ResourceKind::Host { thread: 0 }, "scheduler".into());
        let l = res.add(ResourceKind::Link { id: 3 }, "gpu0-switch".into());
        let mut g = TaskGraph::new();
        let sched = g
            .add(Task::new("schedule", Category::Host, Duration::from_us(2)).on([h]))
            .unwrap();
        let k = g
            .add(
                Task::new("gemm", Category::Compute, Duration::from_ns(1_500))
                    .on([c0])
                    .after([sched]),
            )
            .unwrap();
        let ar = g
            .add(
                Task::new("allreduce", Category::Collective, Duration::from_us(3))
                    .on([c0, c1])
                    .after([k]),
            )
            .unwrap();
        let x = g
            .add(
                Task::new("p2p", Category::Transfer, Duration::from_us(1))
                    .on([l])
                    .after([ar]),
            )
            .unwrap();
        g.add(Task::new("join", Category::Sync, Duration::ZERO).after([x]))
            .unwrap();
        let s = run(&g, &res).unwrap();
        (g, res, s)
    }

    fn events(v: &Value) -> &Vec<Value> {
        v["traceEvents"].as_array().unwrap()
    }

    #[test]
    fn single_schedule_round_trips() {
        let (g, res, s) = setup();
        let text = serde_json::to_string(&chrome_trace(&g, &res, &s, Duration::ZERO).unwrap()).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["displayTimeUnit"], "ns");
        let ev = events(&v);
        let x: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X").collect();
        // host 1 + gemm 1 + allreduce on 2 streams + p2p 1; the join has no resource.
        assert_eq!(x.len(), 5);
        let gemm = x.iter().find(|e| e["name"] == "gemm").unwrap();
        assert_eq!(gemm["ts"].as_f64(), Some(2.0));
        assert_eq!(gemm["dur"].as_f64(), Some(1.5));
        assert_eq!(gemm["cat"], "compute");
        assert_eq!((gemm["pid"].as_u64(), gemm["tid"].as_u64()), (Some(0), Some(0)));
        let ars: Vec<_> = x.iter().filter(|e| e["name"] == "allreduce").collect();
        assert_eq!(ars.len(), 2);
        assert!(
            ars.iter()
                .all(|e| e["ts"].as_f64() == Some(3.5) && e["dur"].as_f64() == Some(3.0))
        );
        assert_eq!(event_task(ars[0]), Some(TaskId(2)));
        let p2p = x.iter().find(|e| e["name"] == "p2p").unwrap();
        assert_eq!(p2p["pid"].as_u64(), Some(u64::from(LINK_PID_BASE + 3)));

        let m: Vec<(String, u64, u64, String)> = ev
            .iter()
            .filter(|e| e["ph"] == "M")
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["pid"].as_u64().unwrap(),
                    e["tid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let host = u64::from(HOST_PID);
        let link = u64::from(LINK_PID_BASE + 3);
        let want = vec![
            ("process_name".to_string(), 0, 0, "GPU 0".to_string()),
            ("thread_name".to_string(), 0, 0, "compute".to_string()),
            ("process_name".to_string(), 1, 0, "GPU 1".to_string()),
            // GPU 1's "comm" stream ran nothing: no metadata for it.
            ("thread_name".to_string(), 1, 0, "compute".to_string()),
            ("process_name".to_string(), host, 0, "host".to_string()),
            ("thread_name".to_string(), host, 0, "scheduler".to_string()),
            ("process_name".to_string(), link, 0, "link 3".to_string()),
            ("thread_name".to_string(), link, 0, "gpu0-switch".to_string()),
        ];
        assert_eq!(m, want);
        assert_eq!(ev.len(), 5 + 8);
    }

    #[test]
    fn successive_schedules_are_offset_and_deterministic() {
        let (g, res, s) = setup();
        let build = || {
            let mut b = TraceBuilder::new();
            b.add_schedule(&g, &res, &s, Duration::ZERO).unwrap();
            b.add_schedule(&g, &res, &s, s.makespan).unwrap();
            assert_eq!(b.event_count(), 10);
            b
        };
        let v = build().finish();
        let ev = events(&v);
        assert_eq!(ev.iter().filter(|e| e["ph"] == "M").count(), 8);
        let hosts: Vec<(f64, u64)> = ev
            .iter()
            .filter(|e| e["name"] == "schedule")
            .map(|e| (e["ts"].as_f64().unwrap(), e["args"]["schedule"].as_u64().unwrap()))
            .collect();
        // Makespan: 2 + 1.5 + 3 + 1 = 7.5 µs.
        assert_eq!(hosts, vec![(0.0, 0), (7.5, 1)]);
        let mut bytes = Vec::new();
        build().write_to(&mut bytes).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), v);
        assert_eq!(
            serde_json::to_string(&build().finish()).unwrap(),
            serde_json::to_string(&v).unwrap()
        );
    }

    #[test]
    fn mismatched_inputs_are_errors() {
        let (g, res, s) = setup();
        let empty = run(&TaskGraph::new(), &res).unwrap();
        assert!(matches!(
            chrome_trace(&g, &res, &empty, Duration::ZERO),
            Err(TraceError::Mismatch { tasks: 5, records: 0 })
        ));
        assert!(matches!(
            chrome_trace(&g, &Resources::new(), &s, Duration::ZERO),
            Err(TraceError::UnknownResource { .. })
        ));
    }
}
