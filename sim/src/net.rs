//! Flow-level network: transfers as flows over paths of directed links, sharing link capacity
//! max-min fairly, with PCIe's posted-write collapse (DESIGN.md §3.2,
//! `reference/pcie-collectives.md` "PCIe").
//!
//! A [`Network`] is a set of directed links (capacity in bytes/s per direction) and of
//! [`CollapseGroup`]s. A [`FlowSim`] moves flows over it in integer simulated time (picoseconds):
//! the caller adds flows ([`FlowSim::add_flow`]) and pulls completions one at a time
//! ([`FlowSim::next_completion`]); a completion may trigger new flows (a ring step's end starts the
//! next step), which the caller adds with a start time ≥ [`FlowSim::now`] before pulling again.
//!
//! # Fairness rule: max-min by progressive filling
//!
//! Whenever the set of transmitting flows changes (a flow starts, a flow's last byte leaves, and
//! hence whenever a collapse group changes state), every transmitting flow's rate is recomputed:
//!
//! 1. every link starts with its current capacity (a collapse port: see below) and the count of
//!    unfrozen flows crossing it;
//! 2. the smallest fair share `capacity left ÷ unfrozen flows` over the links is this round's
//!    water level; every link whose share is within 10⁻¹² (relative) of it is a bottleneck of the
//!    round: each unfrozen flow crossing a bottleneck is frozen at the level, which is subtracted
//!    from every link on the flow's path;
//! 3. repeat until every flow is frozen.
//!
//! The result is the max-min fair allocation: no flow can go faster without slowing a flow that is
//! no faster. Cost per recomputation: O(rounds × (links used + flows × path length)), rounds ≤
//! links used; no allocation once the scratch buffers have grown.
//!
//! # Posted-write collapse
//!
//! Measured on AMD Turin / Threadripper hosts: when one source switch (or root) writes concurrently
//! to GPUs behind two or more different destination root complexes, its write bandwidth drops by
//! 75–93 % (e.g. 52.5 → 13.5 GB/s); reads on the same paths are unaffected (53.2 GB/s). The
//! threshold on the number of concurrently writing source GPUs depends on the platform (≥ 2 with
//! Broadcom PEX890xx + Turin, ≥ 4 with Microchip + Threadripper). Modelled as follows:
//!
//! - a [`CollapseGroup`] owns a virtual *port* link that the caller puts in the path of every write
//!   flow leaving the group (switch or root), and tags those flows with a [`CollapseTag`]
//!   (group, source GPU, destination root complex);
//! - at every recomputation, for each group, count the distinct `dest_root`s and the distinct
//!   `source`s among the **transmitting [`FlowKind::Write`] flows** tagged with that group. If
//!   `dest_roots ≥ min_dest_roots` **and** `sources ≥ min_sources` the port's capacity is
//!   `collapsed_bps`, otherwise `normal_bps`;
//! - [`FlowKind::Read`] flows never count towards the thresholds (their tag is ignored), but if they
//!   cross the port they share its capacity like any flow: when collapsed, a read crossing the port
//!   is slowed too. Put reads on a separate path if the hardware keeps them apart.
//!
//! Flows that have sent their last byte and only wait out their propagation latency no longer
//! count: the collapse ends as soon as the traffic stops.
//!
//! # Time and determinism
//!
//! Rates and remaining bytes are `f64` (bytes/s, bytes); event times are integer picoseconds, each
//! rounded once from `f64` (`now + ⌈remaining ÷ rate⌉`, a value less than 10⁻³ ps above an integer is
//! taken as that integer so exact arithmetic is not pushed 1 ps late by float noise). All loops run
//! in a fixed order over `Vec`s, so the same inputs give the same completions bit for bit. At one
//! instant the order is: flows whose last byte leaves now (then rates are recomputed), completions
//! due now (lowest [`FlowId`] first, one per call), flows starting now (all together, then one
//! recomputation).
//!
//! # Invariants
//!
//! Asserted in every build (release too: a violation is an engine bug, never bad input, and panics
//! with a message starting `net invariant (<name>)`), at O(1) per event and O(links used + active
//! flows) per recomputation, i.e. within the cost of the recomputation itself:
//!
//! - *time*: the clock never goes back;
//! - *phases*: a flow goes pending → transmitting → tail → done, each step once; it completes exactly
//!   once, and when no event is left every flow added has completed;
//! - *positive rates*: every fair share, hence every transmitting flow's rate, is finite and > 0;
//! - *every flow frozen*: progressive filling gives every transmitting flow a rate;
//! - *link capacity*: after each recomputation the rates crossing a link sum to at most its
//!   capacity (+ 10⁻⁹ relative);
//! - *conservation*: a flow ends its transmission having sent its bytes, to within 1 B + 10⁻⁶
//!   relative either way (its drain time is rounded to the picosecond; float noise).
//!
//! The randomized tests of `vopr.rs` drive random networks against these and against end-to-end
//! properties (max-min fairness, exact lone-flow times, bytes per link).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tpsim_model::units::{Bandwidth, Duration, PS_PER_S};

/// Index of a directed link in a [`Network`] (the order of [`Network::add_link`] calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// Index of a [`CollapseGroup`] in a [`Network`] (the order of [`Network::add_collapse_group`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupId(pub u32);

/// Index of a flow in a [`FlowSim`] (the order of [`FlowSim::add_flow`] calls). Ties between
/// completions at the same picosecond are broken by the lowest `FlowId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// One directed link (one direction of a PCIe link, a root complex's internal path, a collapse
/// port…).
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Human-readable name for reports, e.g. `"gpu3.up"`.
    pub name: String,
    /// Capacity in bytes per second in this direction; finite and > 0. For a collapse port this is
    /// the group's `normal_bps`; the simulator lowers it while the group is collapsed.
    pub capacity_bps: f64,
}

/// A source switch or root whose outgoing posted writes collapse when they fan out to several
/// destination root complexes (see the module documentation for the rule).
#[derive(Debug, Clone, PartialEq)]
pub struct CollapseGroup {
    /// Human-readable name for reports, e.g. `"switch0"`.
    pub name: String,
    /// The virtual link the caller puts in the path of every write flow leaving the group. Its
    /// capacity is replaced by `normal_bps` / `collapsed_bps`; a link can be the port of one group.
    pub port: LinkId,
    /// Port capacity without collapse, bytes/s (e.g. 52.5e9 measured on Turin).
    pub normal_bps: f64,
    /// Port capacity while collapsed, bytes/s (e.g. 13.5e9 measured on Turin); ≤ `normal_bps`.
    pub collapsed_bps: f64,
    /// Distinct destination root complexes among the group's active writes needed to collapse (≥ 1;
    /// 2 in every measurement so far).
    pub min_dest_roots: u32,
    /// Distinct source GPUs among the group's active writes needed to collapse (≥ 1; 2 for Broadcom
    /// PEX890xx + Turin, 4 for Microchip + Threadripper).
    pub min_sources: u32,
}

/// The static network: directed links and collapse groups. Build it once, then simulate any number
/// of [`FlowSim`]s over it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Network {
    links: Vec<Link>,
    groups: Vec<CollapseGroup>,
}

/// Direction semantics of a flow: only matters for the posted-write collapse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FlowKind {
    /// A posted write pushed by the source: counts towards its group's collapse.
    Write,
    /// A (non-posted) read: the data still travels along the path from the memory owner to the
    /// reader, so the path is written in data direction, but it never triggers a collapse.
    Read,
}

/// Marks a write flow as leaving a [`CollapseGroup`] (only meaningful for [`FlowKind::Write`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CollapseTag {
    /// The group the write leaves; its port must be on the flow's path.
    pub group: GroupId,
    /// Source GPU id (caller's numbering), counted towards `min_sources`.
    pub source: u32,
    /// Destination root complex id (caller's numbering), counted towards `min_dest_roots`.
    pub dest_root: u32,
}

/// Everything needed to start one flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    /// Directed links in data order; each at most once. May be empty only when `bytes == 0`.
    pub path: Vec<LinkId>,
    /// Payload in bytes (on the wire: apply protocol efficiency before).
    pub bytes: u64,
    /// When the first byte may leave; ≥ [`FlowSim::now`] at the time of [`FlowSim::add_flow`].
    pub start: Duration,
    /// Write or read (collapse rule only).
    pub kind: FlowKind,
    /// The collapse group this write leaves, if any.
    pub collapse: Option<CollapseTag>,
    /// Fixed propagation delay after the last byte leaves: completion = drain time + latency.
    pub latency: Duration,
    /// Caller's label, handed back in the [`Completion`].
    pub tag: u64,
}

/// A flow has completed: its last byte has arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Which flow.
    pub flow: FlowId,
    /// The flow's [`FlowSpec::tag`].
    pub tag: u64,
    /// Completion time (drain time + latency), picoseconds since time zero.
    pub time: Duration,
}

/// Per-link statistics since time zero, see [`FlowSim::link_stats`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkStats {
    /// Bytes of the flows crossing this link whose last byte has left (exact, integer).
    pub bytes: u64,
    /// Time-weighted load, as time at full capacity: ∫ (sum of rates ÷ capacity at that instant) dt,
    /// rounded to the picosecond. A collapsed port that is saturated counts as fully busy.
    pub busy: Duration,
    /// `busy ÷ now` in [0, 1] (0 while `now` is 0).
    pub utilisation: f64,
}

/// Bad input to the network or to a flow: a clear error, never a panic (DESIGN.md §2.5).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NetError {
    /// A [`LinkId`] that the network does not have.
    #[error("unknown link id {0} (the network has {1} links)")]
    UnknownLink(u32, usize),
    /// A [`GroupId`] that the network does not have.
    #[error("unknown collapse group id {0} (the network has {1} groups)")]
    UnknownGroup(u32, usize),
    /// A flow carrying bytes over no link would have infinite rate.
    #[error("flow with {0} bytes has an empty path (only a 0-byte flow may have no links)")]
    EmptyPath(u64),
    /// A link listed twice in one path.
    #[error("link {0:?} appears twice in the flow's path")]
    DuplicateLink(String),
    /// A flow starting before the simulator's clock.
    #[error("flow starts at {start_ps} ps, before the current time {now_ps} ps")]
    StartInPast {
        /// The requested start, ps.
        start_ps: u64,
        /// The simulator's clock, ps.
        now_ps: u64,
    },
    /// A collapse-tagged write whose path does not cross its group's port.
    #[error("write tagged with collapse group {group:?} does not cross its port link {port:?}")]
    PortNotOnPath {
        /// Group name.
        group: String,
        /// Port link name.
        port: String,
    },
    /// A collapse group with impossible parameters.
    #[error("collapse group {name:?}: {what}")]
    BadGroup {
        /// Group name.
        name: String,
        /// What was expected.
        what: String,
    },
    /// More than 2³² flows or links.
    #[error("too many {0} (at most 2^32)")]
    TooMany(&'static str),
}

impl Network {
    /// An empty network.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a directed link of capacity `bw` (per direction; `Bandwidth` is never zero, so no flow
    /// can get a zero rate). Returns its id.
    ///
    /// # Panics
    /// Past 2³² links.
    pub fn add_link(&mut self, name: impl Into<String>, bw: Bandwidth) -> LinkId {
        let id = u32::try_from(self.links.len()).expect("more than 2^32 links");
        self.links.push(Link {
            name: name.into(),
            capacity_bps: bw.bytes_per_s() as f64,
        });
        LinkId(id)
    }

    /// Adds a collapse group and sets its port's capacity to `normal_bps`.
    ///
    /// # Errors
    /// [`NetError::UnknownLink`] for a bad port, [`NetError::BadGroup`] if the rates are not finite
    /// and > 0, if `collapsed_bps > normal_bps`, if a threshold is 0, or if the port already belongs
    /// to another group.
    pub fn add_collapse_group(&mut self, g: CollapseGroup) -> Result<GroupId, NetError> {
        let bad = |what: &str| {
            Err(NetError::BadGroup {
                name: g.name.clone(),
                what: what.to_string(),
            })
        };
        self.check_link(g.port)?;
        if !(g.normal_bps.is_finite() && g.normal_bps > 0.0) {
            return bad("normal_bps must be a finite rate > 0 bytes/s");
        }
        if !(g.collapsed_bps.is_finite() && g.collapsed_bps > 0.0) {
            return bad("collapsed_bps must be a finite rate > 0 bytes/s");
        }
        if g.collapsed_bps > g.normal_bps {
            return bad("collapsed_bps must not exceed normal_bps");
        }
        if g.min_dest_roots == 0 || g.min_sources == 0 {
            return bad("min_dest_roots and min_sources must be at least 1");
        }
        if let Some(other) = self.groups.iter().find(|o| o.port == g.port) {
            let what = format!("port link is already the port of group {:?}", other.name);
            return bad(&what);
        }
        let id = u32::try_from(self.groups.len()).map_err(|_| NetError::TooMany("collapse groups"))?;
        self.links[g.port.0 as usize].capacity_bps = g.normal_bps;
        self.groups.push(g);
        Ok(GroupId(id))
    }

    /// All links, indexed by [`LinkId`].
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// One link.
    ///
    /// # Panics
    /// If `id` is not a link of this network.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// All collapse groups, indexed by [`GroupId`].
    pub fn groups(&self) -> &[CollapseGroup] {
        &self.groups
    }

    fn check_link(&self, id: LinkId) -> Result<(), NetError> {
        if (id.0 as usize) < self.links.len() {
            Ok(())
        } else {
            Err(NetError::UnknownLink(id.0, self.links.len()))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Added, start time not reached.
    Pending,
    /// Transmitting.
    Active,
    /// Last byte sent; waiting out the latency.
    Tail,
    /// Completion returned.
    Done,
}

#[derive(Debug)]
struct FlowState {
    /// The path is `FlowSim::paths[path.0 .. path.0 + path.1]` (one arena, no allocation per flow).
    path: (u32, u32),
    bytes: u64,
    latency: Duration,
    kind: FlowKind,
    collapse: Option<CollapseTag>,
    tag: u64,
    phase: Phase,
    /// Bytes still to send (valid while active, as of `FlowSim::now`).
    remaining: f64,
    /// Bytes/s since the last recomputation (0 unless active).
    rate: f64,
    /// When the last byte leaves at the current rate, ps.
    drain_at: u64,
    /// Water-filling scratch.
    frozen: bool,
}

/// Event-driven flow simulator over a [`Network`] (see the module documentation for the rules).
#[derive(Debug)]
pub struct FlowSim<'a> {
    net: &'a Network,
    now: Duration,
    flows: Vec<FlowState>,
    /// Arena of all flows' paths.
    paths: Vec<LinkId>,
    /// (start ps, flow) of flows not yet started.
    pending: BinaryHeap<Reverse<(u64, u32)>>,
    /// Flows added with `start == now` (the common case: a completion triggers the next step),
    /// kept out of the heap; always empty when the clock moves.
    starting_now: Vec<u32>,
    /// (completion ps, flow) of flows whose last byte has left.
    tails: BinaryHeap<Reverse<(u64, u32)>>,
    /// Transmitting flows, in start order.
    active: Vec<u32>,
    /// Min `drain_at` over active flows (`u64::MAX` if none).
    next_drain: u64,
    completed: usize,
    /// Per link: capacity now, bytes/s.
    cap: Vec<f64>,
    /// Per link: sum of active rates, bytes/s.
    load: Vec<f64>,
    /// Per link: ∫ load/cap dt, ps.
    busy_ps: Vec<f64>,
    /// Per link: bytes of drained flows.
    bytes: Vec<u64>,
    /// Per group: collapsed now.
    collapsed: Vec<bool>,
    /// Per group: total time collapsed, ps.
    collapsed_ps: Vec<u64>,
    // Scratch for the recomputation (kept to avoid allocating per event).
    cap_left: Vec<f64>,
    count: Vec<u32>,
    /// Links crossed by at least one active flow (since the last recomputation).
    used: Vec<u32>,
    seen_roots: Vec<u32>,
    seen_sources: Vec<u32>,
    /// Scratch: collapse tags of the active writes (recompute).
    tags: Vec<CollapseTag>,
    /// Per link: a bottleneck of the current filling round.
    bottleneck: Vec<bool>,
}

/// `flow.path` as a slice of the arena.
fn path_of(paths: &[LinkId], (start, len): (u32, u32)) -> &[LinkId] {
    &paths[start as usize..(start + len) as usize]
}

/// Picoseconds to move `bytes` at `rate` bytes/s (finite, > 0), rounded up, except that a value
/// less than 10⁻³ ps above an integer is taken as that integer (float noise, not a real fraction).
/// Saturates at `u64::MAX`. Truncating casts instead of `ceil`/`round`, which are library calls on
/// baseline x86-64.
fn ceil_ps(bytes: f64, rate: f64) -> u64 {
    let x = bytes * PS_PER_S as f64 / rate;
    if x >= u64::MAX as f64 {
        return u64::MAX;
    }
    let n = x as u64; // x ≥ 0: truncation = floor
    if x - (n as f64) < 1e-3 { n } else { n + 1 }
}

/// The panic of the *conservation* invariant, out of the hot loop.
#[cold]
#[inline(never)]
fn conservation_violated(id: u32, remaining: f64, bytes: u64) -> ! {
    panic!(
        "net invariant (conservation): flow {id} ends its transmission with {remaining} of {bytes} B unsent"
    )
}

impl<'a> FlowSim<'a> {
    /// A simulator at time zero with no flows.
    pub fn new(net: &'a Network) -> Self {
        let nl = net.links.len();
        let ng = net.groups.len();
        FlowSim {
            net,
            now: Duration::ZERO,
            flows: Vec::new(),
            paths: Vec::new(),
            pending: BinaryHeap::new(),
            starting_now: Vec::new(),
            tails: BinaryHeap::new(),
            active: Vec::new(),
            next_drain: u64::MAX,
            completed: 0,
            cap: net.links.iter().map(|l| l.capacity_bps).collect(),
            load: vec![0.0; nl],
            busy_ps: vec![0.0; nl],
            bytes: vec![0; nl],
            collapsed: vec![false; ng],
            collapsed_ps: vec![0; ng],
            cap_left: vec![0.0; nl],
            count: vec![0; nl],
            used: Vec::new(),
            seen_roots: Vec::new(),
            seen_sources: Vec::new(),
            tags: Vec::new(),
            bottleneck: vec![false; nl],
        }
    }

    /// Reserves room for `flows` more flows whose paths total `path_links` links, so that adding
    /// them does not reallocate (a collective knows its send count before it runs).
    pub fn reserve(&mut self, flows: usize, path_links: usize) {
        self.flows.reserve(flows);
        self.paths.reserve(path_links);
        self.tails.reserve(flows);
    }

    /// Forgets every flow and statistic and sets the clock back to zero, keeping the buffers: a
    /// sweep can reuse one simulator for many collectives without allocating.
    pub fn reset(&mut self) {
        self.now = Duration::ZERO;
        self.flows.clear();
        self.paths.clear();
        self.pending.clear();
        self.starting_now.clear();
        self.tails.clear();
        self.active.clear();
        self.next_drain = u64::MAX;
        self.completed = 0;
        for (c, l) in self.cap.iter_mut().zip(&self.net.links) {
            *c = l.capacity_bps;
        }
        self.load.fill(0.0);
        self.busy_ps.fill(0.0);
        self.bytes.fill(0);
        self.collapsed.fill(false);
        self.collapsed_ps.fill(0);
        self.used.clear();
        self.count.fill(0);
        self.bottleneck.fill(false);
    }

    /// The simulated clock: the time of the last event processed (the last completion returned).
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Number of flows transmitting now (started, last byte not yet sent).
    pub fn active_count(&self) -> usize {
        self.active.len()
    }

    /// Number of flows added so far.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Number of completions returned so far.
    pub fn completed_count(&self) -> usize {
        self.completed
    }

    /// The current rate of a transmitting flow in bytes/s (as set by the last recomputation, which
    /// [`FlowSim::next_completion`] performs before returning); `None` if the flow is not
    /// transmitting or unknown.
    pub fn rate(&self, flow: FlowId) -> Option<f64> {
        let f = self.flows.get(flow.0 as usize)?;
        (f.phase == Phase::Active).then_some(f.rate)
    }

    /// The current capacity of a link in bytes/s (a collapse port's capacity depends on the state
    /// of its group).
    ///
    /// # Panics
    /// If `link` is not a link of the network.
    pub fn capacity(&self, link: LinkId) -> f64 {
        self.cap[link.0 as usize]
    }

    /// Whether a collapse group is collapsed now.
    ///
    /// # Panics
    /// If `group` is not a group of the network.
    pub fn is_collapsed(&self, group: GroupId) -> bool {
        self.collapsed[group.0 as usize]
    }

    /// Total simulated time the group has spent collapsed so far.
    ///
    /// # Panics
    /// If `group` is not a group of the network.
    pub fn collapsed_time(&self, group: GroupId) -> Duration {
        Duration::from_ps(self.collapsed_ps[group.0 as usize])
    }

    /// Adds a flow. It starts transmitting at `spec.start` and completes at (the time its last byte
    /// leaves) + `spec.latency`; a 0-byte flow completes at `start + latency`.
    ///
    /// # Errors
    /// [`NetError::StartInPast`], [`NetError::UnknownLink`], [`NetError::EmptyPath`] (bytes > 0 over
    /// no link: its rate would be infinite), [`NetError::DuplicateLink`],
    /// [`NetError::UnknownGroup`], [`NetError::PortNotOnPath`] (a tagged write not crossing its
    /// group's port), [`NetError::TooMany`].
    pub fn add_flow(&mut self, spec: FlowSpec) -> Result<FlowId, NetError> {
        let (start, tag) = (spec.start, spec.tag);
        self.add_flow_at(&spec, start, tag)
    }

    /// [`FlowSim::add_flow`] from a borrowed spec, with its start time and tag given separately:
    /// lets a caller keep one spec per hop and launch it many times without copying the path.
    ///
    /// # Errors
    /// As [`FlowSim::add_flow`].
    pub fn add_flow_at(&mut self, spec: &FlowSpec, start: Duration, tag: u64) -> Result<FlowId, NetError> {
        self.validate(spec, start)?;
        self.push_flow(spec, start, tag)
    }

    /// [`FlowSim::add_flow_at`] for specs this crate built from the network's own links (the
    /// collectives' hops): the checks run in debug builds only, since they cost more than the
    /// flow itself on a hot path of a few hundred flows per collective.
    ///
    /// # Errors
    /// Only [`NetError::TooMany`] in release builds; every [`FlowSim::add_flow`] error in debug.
    pub(crate) fn add_trusted_flow_at(
        &mut self,
        spec: &FlowSpec,
        start: Duration,
        tag: u64,
    ) -> Result<FlowId, NetError> {
        if cfg!(debug_assertions) {
            self.validate(spec, start)?;
        }
        self.push_flow(spec, start.max(self.now), tag)
    }

    /// The checks of [`FlowSim::add_flow`].
    fn validate(&self, spec: &FlowSpec, start: Duration) -> Result<(), NetError> {
        if start < self.now {
            return Err(NetError::StartInPast {
                start_ps: start.as_ps(),
                now_ps: self.now.as_ps(),
            });
        }
        for (i, &l) in spec.path.iter().enumerate() {
            self.net.check_link(l)?;
            if spec.path[..i].contains(&l) {
                return Err(NetError::DuplicateLink(self.net.link(l).name.clone()));
            }
        }
        if spec.bytes > 0 && spec.path.is_empty() {
            return Err(NetError::EmptyPath(spec.bytes));
        }
        if let Some(t) = spec.collapse {
            let g = self
                .net
                .groups
                .get(t.group.0 as usize)
                .ok_or(NetError::UnknownGroup(t.group.0, self.net.groups.len()))?;
            if spec.kind == FlowKind::Write && !spec.path.contains(&g.port) {
                return Err(NetError::PortNotOnPath {
                    group: g.name.clone(),
                    port: self.net.link(g.port).name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Appends a checked flow.
    fn push_flow(&mut self, spec: &FlowSpec, start: Duration, tag: u64) -> Result<FlowId, NetError> {
        let id = u32::try_from(self.flows.len()).map_err(|_| NetError::TooMany("flows"))?;
        let zero = spec.bytes == 0;
        let path_start = u32::try_from(self.paths.len()).map_err(|_| NetError::TooMany("path links"))?;
        self.paths.extend_from_slice(&spec.path);
        self.flows.push(FlowState {
            path: (path_start, spec.path.len() as u32),
            bytes: spec.bytes,
            latency: spec.latency,
            kind: spec.kind,
            collapse: spec.collapse,
            tag,
            phase: if zero { Phase::Tail } else { Phase::Pending },
            remaining: spec.bytes as f64,
            rate: 0.0,
            drain_at: u64::MAX,
            frozen: false,
        });
        if zero {
            self.tails.push(Reverse(((start + spec.latency).as_ps(), id)));
        } else {
            if start == self.now {
                self.starting_now.push(id);
            } else {
                self.pending.push(Reverse((start.as_ps(), id)));
            }
        }
        Ok(FlowId(id))
    }

    /// Advances simulated time to the next flow completion, processing flow starts and rate changes
    /// on the way, and returns it; `None` when no flow is left. Completions come in time order, ties
    /// by lowest [`FlowId`]. After it returns, flows may be added with `start ≥ now()`.
    pub fn next_completion(&mut self) -> Option<Completion> {
        loop {
            let now = self.now.as_ps();
            if !self.active.is_empty() && self.next_drain == now {
                self.drain_now();
                self.recompute();
                continue;
            }
            if let Some(&Reverse((t, id))) = self.tails.peek()
                && t == now
            {
                self.tails.pop();
                let f = &mut self.flows[id as usize];
                assert_eq!(
                    f.phase,
                    Phase::Tail,
                    "net invariant (phases): flow {id} completed twice"
                );
                f.phase = Phase::Done;
                self.completed += 1;
                return Some(Completion {
                    flow: FlowId(id),
                    tag: f.tag,
                    time: self.now,
                });
            }
            if !self.starting_now.is_empty() || self.pending.peek().is_some_and(|r| r.0.0 == now) {
                let first = self.active.len();
                while let Some(&Reverse((t, id))) = self.pending.peek() {
                    if t != now {
                        break;
                    }
                    self.pending.pop();
                    self.active.push(id);
                }
                self.active.append(&mut self.starting_now);
                for &id in &self.active[first..] {
                    let f = &mut self.flows[id as usize];
                    assert_eq!(
                        f.phase,
                        Phase::Pending,
                        "net invariant (phases): flow {id} started twice"
                    );
                    f.phase = Phase::Active;
                }
                self.recompute();
                continue;
            }
            let drain = if self.active.is_empty() {
                u64::MAX
            } else {
                self.next_drain
            };
            let tail = self.tails.peek().map_or(u64::MAX, |r| r.0.0);
            let start = self.pending.peek().map_or(u64::MAX, |r| r.0.0);
            let next = drain.min(tail).min(start);
            if next == u64::MAX {
                assert!(
                    self.active.is_empty(),
                    "net invariant (phases): {} flows transmit but none ever drains",
                    self.active.len()
                );
                assert_eq!(
                    self.completed,
                    self.flows.len(),
                    "net invariant (phases): no event left, but not every flow completed"
                );
                return None;
            }
            self.advance_to(next);
        }
    }

    /// Runs every remaining flow to completion and returns the completions in order (convenience
    /// for tests and one-shot transfers that add no flows on the way).
    pub fn run_to_end(&mut self) -> Vec<Completion> {
        let mut out = Vec::new();
        while let Some(c) = self.next_completion() {
            out.push(c);
        }
        out
    }

    /// Statistics of one link since time zero.
    ///
    /// # Panics
    /// If `link` is not a link of the network.
    pub fn link_stats(&self, link: LinkId) -> LinkStats {
        let i = link.0 as usize;
        let busy = self.busy_ps[i];
        let now = self.now.as_ps();
        LinkStats {
            bytes: self.bytes[i],
            busy: Duration::from_ps_f64(busy),
            utilisation: if now == 0 {
                0.0
            } else {
                (busy / now as f64).clamp(0.0, 1.0)
            },
        }
    }

    /// The bottleneck link: the one with the most busy time at full capacity so far (ties: lowest
    /// id); `None` if no link has carried anything.
    pub fn bottleneck(&self) -> Option<LinkId> {
        let mut best: Option<(usize, f64)> = None;
        for (i, &b) in self.busy_ps.iter().enumerate() {
            if b > 0.0 && best.is_none_or(|(_, bb)| b > bb) {
                best = Some((i, b));
            }
        }
        best.map(|(i, _)| LinkId(i as u32))
    }

    /// Moves the clock to `t`, progressing every active flow and the statistics.
    fn advance_to(&mut self, t: u64) {
        let now = self.now.as_ps();
        assert!(
            t >= now,
            "net invariant (time): time went back: {t} ps < {now} ps"
        );
        assert!(
            self.starting_now.is_empty(),
            "net invariant (phases): the clock moves past flows due to start at {now} ps"
        );
        let dt = t - now;
        if dt > 0 {
            let dtf = dt as f64;
            for &id in &self.active {
                let f = &mut self.flows[id as usize];
                // Not clamped at 0: only a flow whose drain time is `t` can overshoot (by at most its
                // rate × 1 ps, the rounding up of its drain time), and it is drained at `t` before
                // anything reads `remaining` again; `drain_now` checks what is left.
                f.remaining -= f.rate * dtf / PS_PER_S as f64;
            }
            for &l in &self.used {
                let l = l as usize;
                self.busy_ps[l] += self.load[l] / self.cap[l] * dtf;
            }
            for (g, &c) in self.collapsed.iter().enumerate() {
                if c {
                    self.collapsed_ps[g] += dt;
                }
            }
        }
        self.now = Duration::from_ps(t);
    }

    /// Ends the transmission of every active flow whose last byte leaves now.
    fn drain_now(&mut self) {
        let now = self.now.as_ps();
        let flows = &mut self.flows;
        let tails = &mut self.tails;
        let bytes = &mut self.bytes;
        let paths = &self.paths;
        self.active.retain(|&id| {
            let f = &mut flows[id as usize];
            if f.drain_at != now {
                return true;
            }
            // The drain time is rounded to the picosecond (up, or down by under 10⁻³ ps): what is
            // left, either way, is at most the rate × 1 ps plus float noise. That is under a byte
            // below 10¹² B/s, but not at the rates a fit explores (a Gen5 link × 100 moves 5 B per
            // ps), hence the rate term. (`as i64`: one instruction; a flow of 2⁶³ B or more is not a
            // flow. Written so that a NaN fails too.)
            let per_ps = f.rate / PS_PER_S as f64;
            let sent = f.remaining.abs() <= 1.0 + per_ps + 1e-6 * f.bytes as i64 as f64;
            if !sent {
                conservation_violated(id, f.remaining, f.bytes);
            }
            f.phase = Phase::Tail;
            f.remaining = 0.0;
            f.rate = 0.0;
            for l in path_of(paths, f.path) {
                bytes[l.0 as usize] += f.bytes;
            }
            tails.push(Reverse(((Duration::from_ps(now) + f.latency).as_ps(), id)));
            false
        });
    }

    /// Sets the collapse ports' capacities, then every active flow's max-min fair rate, its drain
    /// time and `next_drain`.
    fn recompute(&mut self) {
        // The previous recomputation's allocation, checked as it is cleared (one pass over the links
        // it used, which this loop visits anyway): the *every flow frozen* and *link capacity*
        // invariants. Every allocation with a transmitting flow is followed by another
        // recomputation (at the latest when its last flow drains), so each is checked.
        for &l in &self.used {
            let l = l as usize;
            let within = self.load[l] <= self.cap[l] * (1.0 + 1e-9); // a NaN fails too
            if self.count[l] != 0 || !within {
                self.capacity_violated(l);
            }
            self.load[l] = 0.0;
        }
        self.used.clear();

        // Collapse state of every group, from the active tagged writes: one pass gathers the tags
        // (usually none or a few), then each group counts its distinct roots and sources.
        self.tags.clear();
        for &id in &self.active {
            let f = &self.flows[id as usize];
            if f.kind == FlowKind::Write
                && let Some(t) = f.collapse
            {
                self.tags.push(t);
            }
        }
        for (g, grp) in self.net.groups.iter().enumerate() {
            self.seen_roots.clear();
            self.seen_sources.clear();
            for t in self.tags.iter().filter(|t| t.group.0 as usize == g) {
                if !self.seen_roots.contains(&t.dest_root) {
                    self.seen_roots.push(t.dest_root);
                }
                if !self.seen_sources.contains(&t.source) {
                    self.seen_sources.push(t.source);
                }
            }
            let c = self.seen_roots.len() >= grp.min_dest_roots as usize
                && self.seen_sources.len() >= grp.min_sources as usize;
            self.collapsed[g] = c;
            self.cap[grp.port.0 as usize] = if c { grp.collapsed_bps } else { grp.normal_bps };
        }

        // Links used, flows per link.
        for &id in &self.active {
            let f = &mut self.flows[id as usize];
            f.frozen = false;
            for &l in path_of(&self.paths, f.path) {
                let l = l.0 as usize;
                if self.count[l] == 0 {
                    self.used.push(l as u32);
                    self.cap_left[l] = self.cap[l];
                    self.load[l] = 0.0;
                }
                self.count[l] += 1;
            }
        }

        // Progressive filling. Every link whose share is within 1e-12 (relative) of the smallest is
        // a bottleneck of the same round: freezing its flows at the water level leaves the other
        // such links' shares unchanged, so this is the textbook result in fewer rounds (one round
        // for a symmetric ring step).
        let mut unfrozen = self.active.len();
        while unfrozen > 0 {
            let mut level = f64::INFINITY;
            for &l in &self.used {
                let n = self.count[l as usize];
                if n > 0 {
                    level = level.min(self.cap_left[l as usize] / f64::from(n));
                }
            }
            assert!(
                level.is_finite() && level > 0.0,
                "net invariant (positive rates): fair share {level} bytes/s is not a positive rate"
            );
            let within = level * (1.0 + 1e-12);
            for &l in &self.used {
                let l = l as usize;
                let n = self.count[l];
                self.bottleneck[l] = n > 0 && self.cap_left[l] / f64::from(n) <= within;
            }
            for &id in &self.active {
                let f = &mut self.flows[id as usize];
                if f.frozen
                    || !path_of(&self.paths, f.path)
                        .iter()
                        .any(|l| self.bottleneck[l.0 as usize])
                {
                    continue;
                }
                f.frozen = true;
                f.rate = level;
                unfrozen -= 1;
                for &l in path_of(&self.paths, f.path) {
                    let l = l.0 as usize;
                    self.cap_left[l] = (self.cap_left[l] - level).max(0.0);
                    self.count[l] -= 1;
                    self.load[l] += level;
                }
            }
        }

        // Drain times.
        let now = self.now.as_ps();
        let mut next = u64::MAX;
        for &id in &self.active {
            let f = &mut self.flows[id as usize];
            f.drain_at = now.saturating_add(ceil_ps(f.remaining, f.rate));
            next = next.min(f.drain_at);
        }
        self.next_drain = next;
    }

    /// The panic of the *every flow frozen* and *link capacity* invariants, out of the hot loop.
    #[cold]
    #[inline(never)]
    fn capacity_violated(&self, l: usize) -> ! {
        let name = &self.net.links[l].name;
        assert_eq!(
            self.count[l], 0,
            "net invariant (every flow frozen): link {name} still has unfrozen flows"
        );
        panic!(
            "net invariant (link capacity): link {name} carries {} > {} bytes/s",
            self.load[l], self.cap[l]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbps(x: f64) -> Bandwidth {
        Bandwidth::from_gbps(x).unwrap()
    }

    fn us(x: u64) -> Duration {
        Duration::from_us(x)
    }

    fn flow(path: Vec<LinkId>, bytes: u64, start: Duration, tag: u64) -> FlowSpec {
        FlowSpec {
            path,
            bytes,
            start,
            kind: FlowKind::Write,
            collapse: None,
            latency: Duration::ZERO,
            tag,
        }
    }

    fn times(c: &[Completion]) -> Vec<(u64, u64)> {
        c.iter().map(|c| (c.tag, c.time.as_ps())).collect()
    }

    #[test]
    fn a_flow_faster_than_a_byte_per_picosecond_passes_the_conservation_check() {
        // 2048 B over 5360 GB/s (a Gen5 link × 100, as a fit may try): 2048 / 5.36 B/ps = 382.09 ps,
        // rounded up to 383 ps, where 4.9 B more than the flow holds would have been sent. The
        // conservation invariant allows the rate × 1 ps of that rounding (it panicked here before).
        let mut net = Network::new();
        let l = net.add_link("l", gbps(5360.0));
        let mut sim = FlowSim::new(&net);
        let id = sim.add_flow(flow(vec![l], 2048, Duration::ZERO, 1)).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!(c.flow, id);
        assert_eq!(c.time, Duration::from_ps(383));
        assert_eq!(sim.link_stats(l).bytes, 2048);
    }

    #[test]
    fn one_flow_time_is_bytes_over_bandwidth_plus_latency() {
        // 1 MB over 10 GB/s = 1e6 / 1e10 s = 100 µs; + 1.5 µs latency = 101.5 µs.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        let mut s = flow(vec![l], 1_000_000, Duration::ZERO, 7);
        s.latency = Duration::from_ns(1_500);
        let id = sim.add_flow(s).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!(
            c,
            Completion {
                flow: id,
                tag: 7,
                time: Duration::from_ns(101_500)
            }
        );
        assert_eq!(sim.next_completion(), None);
        let st = sim.link_stats(l);
        assert_eq!(st.bytes, 1_000_000);
        // Busy exactly 100 µs of the 101.5 µs elapsed.
        assert_eq!(st.busy, us(100));
        assert!((st.utilisation - 100.0 / 101.5).abs() < 1e-12);
        assert_eq!(sim.bottleneck(), Some(l));
    }

    #[test]
    fn two_flows_share_a_link_and_finish_together() {
        // 2 × 1 MB on 10 GB/s: 5 GB/s each, both done at 2e6 / 1e10 s = 200 µs.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        sim.add_flow(flow(vec![l], 1_000_000, Duration::ZERO, 0)).unwrap();
        sim.add_flow(flow(vec![l], 1_000_000, Duration::ZERO, 1)).unwrap();
        let c = sim.run_to_end();
        assert_eq!(times(&c), vec![(0, us(200).as_ps()), (1, us(200).as_ps())]);
        assert_eq!(sim.link_stats(l).bytes, 2_000_000);
    }

    #[test]
    fn classic_max_min_three_flows_two_links() {
        // Links A = 10 GB/s, B = 20 GB/s. Flow 0 crosses A and B, flow 1 only A, flow 2 only B.
        // Round 1: shares A 10/2 = 5, B 20/2 = 10 → A is the bottleneck: flows 0, 1 get 5 GB/s.
        // Round 2: B has 20 − 5 = 15 left for flow 2 alone → 15 GB/s.
        // Flow 0: 500 kB / 5 GB/s = 100 µs. Flow 1 (1 MB): 500 kB by 100 µs, then alone on A at
        // 10 GB/s: 500 kB / 10 GB/s = 50 µs → 150 µs. Flow 2 (3 MB): 1.5 MB by 100 µs, then 20 GB/s:
        // 1.5 MB / 20 GB/s = 75 µs → 175 µs.
        let mut net = Network::new();
        let a = net.add_link("A", gbps(10.0));
        let b = net.add_link("B", gbps(20.0));
        let mut sim = FlowSim::new(&net);
        let f0 = sim
            .add_flow(flow(vec![a, b], 500_000, Duration::ZERO, 0))
            .unwrap();
        let f1 = sim.add_flow(flow(vec![a], 1_000_000, Duration::ZERO, 1)).unwrap();
        let f2 = sim.add_flow(flow(vec![b], 3_000_000, Duration::ZERO, 2)).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!((c.flow, c.time), (f0, us(100)));
        // Rates after flow 0 left: flow 1 alone on A, flow 2 alone on B.
        assert_eq!(sim.rate(f1), Some(10e9));
        assert_eq!(sim.rate(f2), Some(20e9));
        assert_eq!(sim.rate(f0), None);
        let rest = sim.run_to_end();
        assert_eq!(times(&rest), vec![(1, us(150).as_ps()), (2, us(175).as_ps())]);
        // A busy 150 µs, B: (5 + 15)/20 × 100 µs + 75 µs = 175 µs → B is the bottleneck.
        assert_eq!(sim.link_stats(a).busy, us(150));
        assert_eq!(sim.link_stats(b).busy, us(175));
        assert_eq!(sim.bottleneck(), Some(b));
    }

    #[test]
    fn initial_rates_are_max_min() {
        // Same network as above, checked right after the first event (flow 3, 0 bytes, at 1 µs)
        // while all three flows still run: 5, 5 and 15 GB/s.
        let mut net = Network::new();
        let a = net.add_link("A", gbps(10.0));
        let b = net.add_link("B", gbps(20.0));
        let mut sim = FlowSim::new(&net);
        let f0 = sim
            .add_flow(flow(vec![a, b], 500_000, Duration::ZERO, 0))
            .unwrap();
        let f1 = sim.add_flow(flow(vec![a], 1_000_000, Duration::ZERO, 1)).unwrap();
        let f2 = sim.add_flow(flow(vec![b], 3_000_000, Duration::ZERO, 2)).unwrap();
        sim.add_flow(flow(vec![], 0, us(1), 3)).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!((c.tag, c.time), (3, us(1)));
        assert_eq!(sim.active_count(), 3);
        assert_eq!(sim.rate(f0), Some(5e9));
        assert_eq!(sim.rate(f1), Some(5e9));
        assert_eq!(sim.rate(f2), Some(15e9));
    }

    #[test]
    fn later_flow_reshares() {
        // Flow 0: 1 MB at 10 GB/s from 0. Flow 1: 1 MB from 50 µs. At 50 µs flow 0 has 500 kB left;
        // both get 5 GB/s → flow 0 done at 50 + 100 = 150 µs; flow 1 has sent 500 kB by then and
        // finishes alone at 10 GB/s: 150 + 50 = 200 µs.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        sim.add_flow(flow(vec![l], 1_000_000, Duration::ZERO, 0)).unwrap();
        sim.add_flow(flow(vec![l], 1_000_000, us(50), 1)).unwrap();
        assert_eq!(
            times(&sim.run_to_end()),
            vec![(0, us(150).as_ps()), (1, us(200).as_ps())]
        );
    }

    #[test]
    fn completion_triggers_next_flow() {
        // A two-step chain: step 2 (1 MB) added when step 1 (1 MB, 1 µs latency) completes at
        // 101 µs → step 2 ends at 101 + 100 + 1 = 202 µs.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        let mut s = flow(vec![l], 1_000_000, Duration::ZERO, 1);
        s.latency = us(1);
        sim.add_flow(s.clone()).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!(c.time, us(101));
        s.start = c.time;
        s.tag = 2;
        sim.add_flow(s).unwrap();
        let c2 = sim.next_completion().unwrap();
        assert_eq!((c2.tag, c2.time), (2, us(202)));
        assert_eq!(sim.completed_count(), 2);
    }

    #[test]
    fn zero_byte_flow_completes_at_start_plus_latency() {
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        let mut s = flow(vec![l], 0, us(3), 9);
        s.latency = us(2);
        sim.add_flow(s).unwrap();
        let c = sim.next_completion().unwrap();
        assert_eq!((c.tag, c.time), (9, us(5)));
        assert_eq!(sim.link_stats(l).busy, Duration::ZERO);
        assert_eq!(sim.bottleneck(), None);
    }

    #[test]
    fn ties_complete_lowest_flow_id_first() {
        // Flow 0 ends at 100 µs + 0 latency; flow 1 (0 bytes, added later) at 100 µs too.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        sim.add_flow(flow(vec![], 0, us(100), 5)).unwrap();
        sim.add_flow(flow(vec![l], 1_000_000, Duration::ZERO, 4)).unwrap();
        let c = sim.run_to_end();
        assert_eq!(times(&c), vec![(5, us(100).as_ps()), (4, us(100).as_ps())]);
        assert_eq!(c[0].flow, FlowId(0));
    }

    /// One source switch: port (collapse group), four source GPUs, four destination GPU downlinks
    /// at 53.6 GB/s (never the bottleneck here). `roots[i]` is the dest root of flow i.
    fn collapse_case(kind: FlowKind, roots: [u32; 4], bytes: [u64; 4]) -> (Vec<Completion>, bool, Duration) {
        let mut net = Network::new();
        let port = net.add_link("sw0.port", gbps(52.5));
        let g = net
            .add_collapse_group(CollapseGroup {
                name: "sw0".into(),
                port,
                normal_bps: 52.5e9,
                collapsed_bps: 13.5e9,
                min_dest_roots: 2,
                min_sources: 2,
            })
            .unwrap();
        let downs: Vec<LinkId> = (0..4)
            .map(|i| net.add_link(format!("gpu{}.down", 4 + i), gbps(53.6)))
            .collect();
        let mut sim = FlowSim::new(&net);
        for i in 0..4 {
            sim.add_flow(FlowSpec {
                path: vec![port, downs[i]],
                bytes: bytes[i],
                start: Duration::ZERO,
                kind,
                collapse: Some(CollapseTag {
                    group: g,
                    source: i as u32,
                    dest_root: roots[i],
                }),
                latency: Duration::ZERO,
                tag: i as u64,
            })
            .unwrap();
        }
        let first = sim.next_completion().unwrap();
        let was = sim.collapsed_time(g) > Duration::ZERO;
        let mut all = vec![first];
        all.extend(sim.run_to_end());
        (all, was, sim.collapsed_time(g))
    }

    #[test]
    fn writes_to_two_roots_collapse() {
        // 4 writes × 1.35 MB from 4 sources to roots {0, 0, 1, 1}: 2 roots ≥ 2, 4 sources ≥ 2 →
        // port at 13.5 GB/s (reference: 52.5 → 13.5). 5.4 MB / 13.5 GB/s = 400 µs for all four.
        let (c, _, t) = collapse_case(FlowKind::Write, [0, 0, 1, 1], [1_350_000; 4]);
        assert!(c.iter().all(|c| c.time == us(400)), "{c:?}");
        assert_eq!(t, us(400));
    }

    #[test]
    fn reads_do_not_collapse() {
        // Same flows as reads: port stays 52.5 GB/s. 5.4 MB / 52.5 GB/s = 102.857142857… µs
        // → ⌈102 857 142.857⌉ = 102 857 143 ps.
        let (c, was, t) = collapse_case(FlowKind::Read, [0, 0, 1, 1], [1_350_000; 4]);
        assert!(c.iter().all(|c| c.time.as_ps() == 102_857_143), "{c:?}");
        assert!(!was);
        assert_eq!(t, Duration::ZERO);
    }

    #[test]
    fn writes_to_one_root_do_not_collapse() {
        // All four to root 0: 1 distinct root < 2 → 52.5 GB/s, as for reads.
        let (c, _, t) = collapse_case(FlowKind::Write, [0, 0, 0, 0], [1_350_000; 4]);
        assert!(c.iter().all(|c| c.time.as_ps() == 102_857_143), "{c:?}");
        assert_eq!(t, Duration::ZERO);
    }

    #[test]
    fn collapse_ends_when_fan_out_ends() {
        // Roots {0, 0, 1, 1}; the two flows to root 1 are small (337.5 kB), the two to root 0 large
        // (1.35 MB). Collapsed: 13.5 / 4 = 3.375 GB/s each; the small ones finish at
        // 337.5 kB / 3.375 GB/s = 100 µs. Then only root 0 → 52.5 GB/s for 2 flows, each with
        // 1.35 MB − 337.5 kB = 1.0125 MB left at 26.25 GB/s: 38.571428… µs → 138 571 429 ps
        // (⌈38 571 428.57⌉ after 100 µs).
        let (c, _, t) = collapse_case(
            FlowKind::Write,
            [0, 0, 1, 1],
            [1_350_000, 1_350_000, 337_500, 337_500],
        );
        assert_eq!(
            times(&c),
            vec![
                (2, us(100).as_ps()),
                (3, us(100).as_ps()),
                (0, 138_571_429),
                (1, 138_571_429)
            ]
        );
        assert_eq!(t, us(100));
    }

    #[test]
    fn one_source_to_two_roots_needs_min_sources() {
        // min_sources 2, but only source 0 writes (to roots 0 and 1) → no collapse: 2 × 1 MB at
        // 52.5 GB/s = 38.095238… µs → 38 095 239 ps.
        let mut net = Network::new();
        let port = net.add_link("port", gbps(52.5));
        let g = net
            .add_collapse_group(CollapseGroup {
                name: "sw".into(),
                port,
                normal_bps: 52.5e9,
                collapsed_bps: 13.5e9,
                min_dest_roots: 2,
                min_sources: 2,
            })
            .unwrap();
        let mut sim = FlowSim::new(&net);
        for r in 0..2 {
            let mut s = flow(vec![port], 1_000_000, Duration::ZERO, r);
            s.collapse = Some(CollapseTag {
                group: g,
                source: 0,
                dest_root: r as u32,
            });
            sim.add_flow(s).unwrap();
        }
        let c = sim.run_to_end();
        assert!(c.iter().all(|c| c.time.as_ps() == 38_095_239), "{c:?}");
        assert!(!sim.is_collapsed(g));
    }

    #[test]
    fn errors_are_reported() {
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let port = net.add_link("port", gbps(50.0));
        let grp = CollapseGroup {
            name: "sw".into(),
            port,
            normal_bps: 50e9,
            collapsed_bps: 60e9,
            min_dest_roots: 2,
            min_sources: 1,
        };
        assert!(matches!(
            net.add_collapse_group(grp.clone()),
            Err(NetError::BadGroup { .. })
        ));
        let g = net
            .add_collapse_group(CollapseGroup {
                collapsed_bps: 10e9,
                ..grp.clone()
            })
            .unwrap();
        assert!(matches!(
            net.add_collapse_group(CollapseGroup {
                collapsed_bps: 10e9,
                ..grp
            }),
            Err(NetError::BadGroup { .. })
        ));
        let mut sim = FlowSim::new(&net);
        assert_eq!(
            sim.add_flow(flow(vec![], 1, Duration::ZERO, 0)),
            Err(NetError::EmptyPath(1))
        );
        assert_eq!(
            sim.add_flow(flow(vec![LinkId(9)], 1, Duration::ZERO, 0)),
            Err(NetError::UnknownLink(9, 2))
        );
        assert!(matches!(
            sim.add_flow(flow(vec![l, l], 1, Duration::ZERO, 0)),
            Err(NetError::DuplicateLink(_))
        ));
        let mut s = flow(vec![l], 1, Duration::ZERO, 0);
        s.collapse = Some(CollapseTag {
            group: g,
            source: 0,
            dest_root: 0,
        });
        assert!(matches!(
            sim.add_flow(s.clone()),
            Err(NetError::PortNotOnPath { .. })
        ));
        s.kind = FlowKind::Read; // a read's tag is ignored
        sim.add_flow(s).unwrap();
        sim.add_flow(flow(vec![l], 1_000, us(1), 1)).unwrap();
        sim.run_to_end();
        assert!(matches!(
            sim.add_flow(flow(vec![l], 1, Duration::ZERO, 0)),
            Err(NetError::StartInPast { .. })
        ));
    }

    /// A pseudo-random mix of flows with chained follow-ups; returns every completion.
    fn mixed_run() -> Vec<Completion> {
        let mut net = Network::new();
        let links: Vec<LinkId> = (0..6)
            .map(|i| net.add_link(format!("l{i}"), gbps(10.0 + 7.3 * i as f64)))
            .collect();
        let g = net
            .add_collapse_group(CollapseGroup {
                name: "g".into(),
                port: links[0],
                normal_bps: 10e9,
                collapsed_bps: 3e9,
                min_dest_roots: 2,
                min_sources: 2,
            })
            .unwrap();
        let mut sim = FlowSim::new(&net);
        let mut x: u64 = 12345;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..40u64 {
            let a = (rnd() % 6) as usize;
            let b = (a + 1 + (rnd() % 5) as usize) % 6;
            let write = rnd() % 2 == 0;
            sim.add_flow(FlowSpec {
                path: vec![links[0], links[a.max(1)], links[b.max(1)]].into_iter().fold(
                    Vec::new(),
                    |mut v, l| {
                        if !v.contains(&l) {
                            v.push(l);
                        }
                        v
                    },
                ),
                bytes: 1 + rnd() % 3_000_000,
                start: Duration::from_ps(rnd() % 200_000_000),
                kind: if write { FlowKind::Write } else { FlowKind::Read },
                collapse: Some(CollapseTag {
                    group: g,
                    source: (rnd() % 4) as u32,
                    dest_root: (rnd() % 3) as u32,
                }),
                latency: Duration::from_ps(rnd() % 2_000_000),
                tag: i,
            })
            .unwrap();
        }
        let mut out = Vec::new();
        while let Some(c) = sim.next_completion() {
            if c.tag < 60 && c.tag % 3 == 0 {
                sim.add_flow(flow(
                    vec![links[c.tag as usize % 6]],
                    123_457,
                    c.time,
                    c.tag + 1000,
                ))
                .unwrap();
            }
            out.push(c);
        }
        assert_eq!(out.len(), sim.flow_count());
        let mut seen: Vec<u32> = out.iter().map(|c| c.flow.0).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), out.len(), "a flow completed twice");
        assert!(out.windows(2).all(|w| w[0].time <= w[1].time));
        out
    }

    #[test]
    fn deterministic_twice() {
        let a = mixed_run();
        let b = mixed_run();
        assert_eq!(a, b);
        assert!(a.len() > 40);
    }

    #[test]
    fn reset_gives_a_fresh_simulator() {
        // The re-sharing case (150 and 200 µs), run, reset, run again: same completions and stats.
        let mut net = Network::new();
        let l = net.add_link("l", gbps(10.0));
        let mut sim = FlowSim::new(&net);
        let mut runs = Vec::new();
        for _ in 0..2 {
            sim.reset();
            sim.add_flow(flow(vec![l], 1_000_000, Duration::ZERO, 0)).unwrap();
            sim.add_flow(flow(vec![l], 1_000_000, us(50), 1)).unwrap();
            runs.push((sim.run_to_end(), sim.link_stats(l), sim.flow_count()));
        }
        assert_eq!(runs[0], runs[1]);
        assert_eq!(
            times(&runs[0].0),
            vec![(0, us(150).as_ps()), (1, us(200).as_ps())]
        );
        assert_eq!(runs[0].1.bytes, 2_000_000);
    }
}
