//! The deterministic discrete-event core: an event queue over integer simulated time and the
//! named, seeded random streams (DESIGN.md §2.1).
//!
//! - [`EventQueue`] orders events by (time in picoseconds, insertion sequence number), so two events
//!   at the same instant always come out in the order they were pushed, on every machine.
//! - [`RngStreams`] derives one ChaCha8 stream per (seed, name): adding a new random consumer never
//!   shifts the draws of the existing ones.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use tpsim_model::units::Duration;

/// A priority queue of events of type `E`, ordered by simulated time and then by insertion order.
///
/// The heap holds `(time_ps, seq, slot)` keys only; the events themselves live in a slot vector, so
/// `E` needs no ordering. Freed slots are reused, so memory stays proportional to the number of
/// pending events.
///
/// Invariants (checked with `assert!`, as they are bugs of the caller, never user input):
/// - time never goes back: each pop returns a time ≥ the previous pop's time;
/// - an event may not be pushed earlier than [`EventQueue::now`] (the time of the last pop).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    slots: Vec<Option<E>>,
    free: Vec<usize>,
    next_seq: u64,
    now: Duration,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue whose clock stands at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
            now: Duration::ZERO,
        }
    }

    /// An empty queue with room for `n` pending events before reallocating.
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(n),
            slots: Vec::with_capacity(n),
            free: Vec::new(),
            next_seq: 0,
            now: Duration::ZERO,
        }
    }

    /// Schedules `ev` at simulated time `at`. Events at equal times pop in push order.
    ///
    /// # Panics
    /// If `at` is earlier than [`EventQueue::now`]: scheduling into the past is an engine bug.
    pub fn push(&mut self, at: Duration, ev: E) {
        assert!(
            at >= self.now,
            "event pushed into the past: at {} ps < now {} ps",
            at.as_ps(),
            self.now.as_ps()
        );
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(ev);
                s
            }
            None => {
                self.slots.push(Some(ev));
                self.slots.len() - 1
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse((at.as_ps(), seq, slot)));
    }

    /// Removes and returns the earliest event (ties: first pushed), advancing [`EventQueue::now`]
    /// to its time. `None` when the queue is empty (the clock then stays where it was).
    pub fn pop(&mut self) -> Option<(Duration, E)> {
        let Reverse((t, _seq, slot)) = self.heap.pop()?;
        let at = Duration::from_ps(t);
        assert!(
            at >= self.now,
            "time went back: popped {} ps after {} ps",
            t,
            self.now.as_ps()
        );
        self.now = at;
        let ev = self.slots[slot].take();
        self.free.push(slot);
        // A slot is filled on push and emptied only here, once per heap entry.
        assert!(ev.is_some(), "event slot {slot} popped twice");
        ev.map(|e| (at, e))
    }

    /// Time of the next event without removing it; `None` when empty.
    pub fn peek_time(&self) -> Option<Duration> {
        self.heap.peek().map(|Reverse((t, _, _))| Duration::from_ps(*t))
    }

    /// The current simulated time: the time of the most recently popped event (zero initially).
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// FNV-1a 64-bit offset basis, from the FNV specification (Fowler, Noll, Vo;
/// <http://www.isthe.com/chongo/tech/comp/fnv/> and draft-eastlake-fnv).
const FNV64_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime (2^40 + 2^8 + 0xb3), from the same FNV specification.
const FNV64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of `bytes`, written out so it is stable across Rust versions and platforms
/// (`std`'s `DefaultHasher` explicitly is not).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h = FNV64_OFFSET_BASIS;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV64_PRIME);
    }
    h
}

/// A family of independent random streams derived from one scenario seed.
///
/// Each stream is `ChaCha8Rng::seed_from_u64(seed)` with its stream number set to
/// [`stable_hash`]`(name)`: the draws of the stream `"workload"` depend only on the seed and that
/// name, so adding, removing or reordering other consumers never changes them (DESIGN.md §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    /// Streams for the scenario seed `seed`.
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    /// The scenario seed these streams derive from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A fresh generator for the stream called `name`, positioned at its first draw. Calling this
    /// twice with the same name gives two identical generators.
    pub fn stream(&self, name: &str) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(stable_hash(name.as_bytes()));
        rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::Rng;

    fn draws(s: &RngStreams, name: &str) -> [u64; 4] {
        let mut r = s.stream(name);
        [r.next_u64(), r.next_u64(), r.next_u64(), r.next_u64()]
    }

    #[test]
    fn queue_orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(Duration::from_ps(30), "c");
        q.push(Duration::from_ps(10), "a1");
        q.push(Duration::from_ps(20), "b");
        q.push(Duration::from_ps(10), "a2");
        assert_eq!(q.len(), 4);
        assert_eq!(q.peek_time(), Some(Duration::from_ps(10)));
        let mut out = Vec::new();
        while let Some((t, e)) = q.pop() {
            out.push((t.as_ps(), e));
        }
        assert_eq!(out, vec![(10, "a1"), (10, "a2"), (20, "b"), (30, "c")]);
        assert!(q.is_empty());
        assert_eq!(q.now(), Duration::from_ps(30));
    }

    #[test]
    fn queue_allows_push_at_now_and_reuses_slots() {
        let mut q = EventQueue::new();
        q.push(Duration::from_us(1), 1u32);
        assert_eq!(q.pop(), Some((Duration::from_us(1), 1)));
        q.push(Duration::from_us(1), 2);
        q.push(Duration::from_us(2), 3);
        assert_eq!(q.pop(), Some((Duration::from_us(1), 2)));
        assert_eq!(q.pop(), Some((Duration::from_us(2), 3)));
        assert_eq!(q.pop(), None);
        assert_eq!(q.slots.len(), 2);
    }

    #[test]
    #[should_panic(expected = "into the past")]
    fn queue_rejects_push_into_past() {
        let mut q = EventQueue::new();
        q.push(Duration::from_ps(100), ());
        q.pop();
        q.push(Duration::from_ps(99), ());
    }

    #[test]
    fn fnv1a_known_answers() {
        // Test vectors from the FNV specification's reference test suite.
        assert_eq!(stable_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(stable_hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn same_seed_and_name_same_draws() {
        let s = RngStreams::new(7);
        assert_eq!(draws(&s, "workload"), draws(&s, "workload"));
        assert_eq!(draws(&s, "workload"), draws(&RngStreams::new(7), "workload"));
    }

    #[test]
    fn different_names_differ() {
        let s = RngStreams::new(7);
        assert_ne!(draws(&s, "workload"), draws(&s, "acceptance"));
    }

    #[test]
    fn different_seeds_differ() {
        assert_ne!(
            draws(&RngStreams::new(1), "workload"),
            draws(&RngStreams::new(2), "workload")
        );
    }

    #[test]
    fn stream_known_answer_seed_42_workload() {
        // Pins cross-version stability: if a rand_chacha upgrade, a change to `stable_hash` or to the
        // seeding scheme alters this value, every scenario's random draws change. Computed once with
        // rand_chacha 0.10.0 and pinned.
        let first = RngStreams::new(42).stream("workload").next_u64();
        assert_eq!(first, PINNED_WORKLOAD_SEED_42);
    }

    const PINNED_WORKLOAD_SEED_42: u64 = 13_406_728_603_395_948_620;
}
