//! Draft trees under positional acceptance (Sequoia; reference/spec-decode.md "Acceptance"), and the
//! acceptance models a run draws from: positional (chains and trees) or a replayed trace.
//!
//! A node at depth d that is its parent's rank-r child (rank 1 = the draft's top choice) matches the
//! target's token, given its parent was accepted, with the *marginal* probability p(d, r):
//! p(d, 1) = a_d (the chain's conditional rate) and, for r ≥ 2,
//! p(d, r) = (1 − a_d) · (1 − s_2) ⋯ (1 − s_(r−1)) · s_r, where s_r is the conditional acceptance of
//! rank r given ranks 1 … r − 1 were rejected (`siblings`). Greedy verification accepts at most one
//! child, so the events are disjoint and a tree's expected acceptance length is
//! 1 + Σ over its nodes of the product of p along the path (Sequoia).
//!
//! The tree is built the way SGLang's `eagle_utils` does it: depth 1 holds the root's topk
//! children; at each further step the topk best nodes of the previous depth (by cumulative score)
//! expand topk children each; finally the num_draft_tokens − 1 highest-scoring candidates are kept.
//! The score is the product along the path of the draft's own probability of each candidate
//! (`draft_scores`, by rank), or of p when the draft's scores are not given (a calibrated draft:
//! then the tree is the greedy best tree under p, and a tree never does worse than the chain).

use super::Acceptance;

/// Positional acceptance of a draft tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Positional {
    /// Conditional acceptance of the rank-1 child at each depth (the chain's rates).
    pub chain: Acceptance,
    /// Conditional acceptance s_r of the rank-r child (r = 2, 3, …) given ranks 1 … r − 1 were
    /// rejected; ranks beyond the list reuse its last value; empty = siblings never match.
    pub siblings: Vec<f64>,
    /// The draft's mean probability of its rank-r candidate (r = 1, 2, …), by which SGLang ranks
    /// tree nodes; ranks beyond the list reuse its last value. `None`: ranked by p (calibrated).
    pub draft_scores: Option<Vec<f64>>,
}

/// How accept lengths are produced.
#[derive(Debug, Clone, PartialEq)]
pub enum AcceptanceModel {
    /// Drawn from positional acceptance (chains and trees).
    Positional(Positional),
    /// Replayed in order, cyclically, one accept length per request-iteration.
    Trace(Vec<u32>),
}

/// One node of a draft tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// Index of the parent in the tree's node list; `None` = child of the root.
    pub parent: Option<usize>,
    /// Depth, 1 = a child of the root.
    pub depth: u32,
    /// Rank among its parent's candidates, 1 = the draft's top choice.
    pub rank: u32,
    /// Product of the marginal acceptance along the path: P(this node is accepted).
    pub reach: f64,
    /// Product of the scores along the path (what SGLang ranks by).
    pub score: f64,
}

/// The draft tree one iteration verifies (num_draft_tokens − 1 nodes plus the root).
#[derive(Debug, Clone, PartialEq)]
pub struct DraftTree {
    pub nodes: Vec<Node>,
    topk: u32,
    positional: Positional,
}

fn nth_or_last(v: &[f64], i: usize) -> f64 {
    v.get(i).or(v.last()).copied().unwrap_or(0.0)
}

impl Positional {
    /// Positional acceptance of a chain with no sibling information.
    pub fn chain(chain: Acceptance) -> Self {
        Positional {
            chain,
            siblings: Vec::new(),
            draft_scores: None,
        }
    }

    /// p(depth, rank), both 1-based: the marginal probability that the rank-`rank` child of an
    /// accepted node at depth − 1 matches the target.
    pub fn marginal(&self, depth: u32, rank: u32) -> f64 {
        let a = self.chain.rate(depth.saturating_sub(1) as usize);
        if rank <= 1 {
            return a;
        }
        let mut rest = 1.0 - a;
        for r in 2..rank {
            rest *= 1.0 - nth_or_last(&self.siblings, r as usize - 2);
        }
        rest * nth_or_last(&self.siblings, rank as usize - 2)
    }

    fn score(&self, depth: u32, rank: u32) -> f64 {
        match &self.draft_scores {
            Some(q) => nth_or_last(q, rank.saturating_sub(1) as usize),
            None => self.marginal(depth, rank),
        }
    }

    /// Checks every rate is finite and in [0, 1].
    pub fn validate(&self) -> Result<(), super::AcceptanceError> {
        self.chain.validate()?;
        if self.draft_scores.as_ref().is_some_and(Vec::is_empty) {
            return Err(super::AcceptanceError::EmptyList("draft_scores"));
        }
        let extra = self.siblings.iter().chain(self.draft_scores.iter().flatten());
        match extra
            .copied()
            .find(|r| !(r.is_finite() && (0.0..=1.0).contains(r)))
        {
            Some(r) => Err(super::AcceptanceError::OutOfRange(r)),
            None => Ok(()),
        }
    }

    /// SGLang's tree for (`steps`, `topk`, `num_draft_tokens`); see the module doc. Requires
    /// num_draft_tokens − 1 ≤ topk + (steps − 1) · topk² (the candidates there are).
    pub fn tree(&self, steps: u32, topk: u32, num_draft_tokens: u32) -> DraftTree {
        let mut cand: Vec<Node> = Vec::new();
        let mut beams: Vec<Option<usize>> = vec![None];
        for depth in 1..=steps {
            let first = cand.len();
            for &b in &beams {
                let (reach, score) = b.map_or((1.0, 1.0), |i| (cand[i].reach, cand[i].score));
                for rank in 1..=topk {
                    cand.push(Node {
                        parent: b,
                        depth,
                        rank,
                        reach: reach * self.marginal(depth, rank),
                        score: score * self.score(depth, rank),
                    });
                }
            }
            let mut level: Vec<usize> = (first..cand.len()).collect();
            level.sort_by(|&x, &y| cand[y].score.total_cmp(&cand[x].score).then(x.cmp(&y)));
            beams = level.into_iter().take(topk as usize).map(Some).collect();
        }
        // Keep the best num_draft_tokens − 1 by score; a child never outscores its parent and ties
        // go to the shallower node, so the kept set is a tree.
        let mut order: Vec<usize> = (0..cand.len()).collect();
        order.sort_by(|&x, &y| {
            cand[y]
                .score
                .total_cmp(&cand[x].score)
                .then(cand[x].depth.cmp(&cand[y].depth))
                .then(x.cmp(&y))
        });
        order.truncate(num_draft_tokens.saturating_sub(1) as usize);
        order.sort_unstable();
        let mut index = vec![usize::MAX; cand.len()];
        let mut nodes = Vec::with_capacity(order.len());
        for (new, &old) in order.iter().enumerate() {
            index[old] = new;
            let mut n = cand[old];
            n.parent = n.parent.map(|p| index[p]);
            nodes.push(n);
        }
        DraftTree {
            nodes,
            topk,
            positional: self.clone(),
        }
    }
}

impl DraftTree {
    /// Expected acceptance length: 1 + Σ over nodes of P(node accepted) (counts the bonus token).
    pub fn expected_accept_len(&self) -> f64 {
        1.0 + self.nodes.iter().map(|n| n.reach).sum::<f64>()
    }

    /// Deepest node's depth.
    pub fn depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }

    /// One accept length from uniform draws in [0, 1): at each accepted node one draw picks which
    /// rank (if any) matches the target; the walk goes on while that child is in the tree. A node
    /// with no children draws nothing (so a chain uses exactly the draws of a Leviathan chain).
    pub fn sample_accept_len(&self, mut uniforms: impl FnMut() -> f64) -> u32 {
        let mut at: Option<usize> = None;
        let mut len = 1;
        loop {
            let depth = at.map_or(1, |i| self.nodes[i].depth + 1);
            if !self.nodes.iter().any(|n| n.parent == at) {
                return len;
            }
            let u = uniforms();
            let mut cum = 0.0;
            let rank = (1..=self.topk).find(|&r| {
                cum += self.positional.marginal(depth, r);
                u < cum
            });
            let child = rank.and_then(|r| self.nodes.iter().position(|n| n.parent == at && n.rank == r));
            match child {
                Some(c) => {
                    at = Some(c);
                    len += 1;
                }
                None => return len,
            }
        }
    }
}

/// Draws accept lengths for one run.
#[derive(Debug, Clone)]
pub enum Sampler {
    Tree(DraftTree),
    /// The trace, the next index, and the largest length the shape can accept.
    Trace {
        lengths: Vec<u32>,
        next: usize,
        max: u32,
    },
}

impl AcceptanceModel {
    /// Checks rates (positional) or that the trace is non-empty with lengths ≥ 1.
    pub fn validate(&self) -> Result<(), super::AcceptanceError> {
        match self {
            AcceptanceModel::Positional(p) => p.validate(),
            AcceptanceModel::Trace(v) if v.is_empty() => Err(super::AcceptanceError::Empty),
            AcceptanceModel::Trace(_) => Ok(()),
        }
    }

    /// The sampler for one shape: the tree (positional) or the trace, clamped to `steps + 1`.
    pub fn sampler(&self, steps: u32, topk: u32, num_draft_tokens: u32) -> Sampler {
        match self {
            AcceptanceModel::Positional(p) => Sampler::Tree(p.tree(steps, topk, num_draft_tokens)),
            AcceptanceModel::Trace(v) => Sampler::Trace {
                lengths: v.clone(),
                next: 0,
                max: steps + 1,
            },
        }
    }

    /// Expected acceptance length for the shape (a trace: the mean of its clamped lengths).
    pub fn expected_accept_len(&self, steps: u32, topk: u32, num_draft_tokens: u32) -> f64 {
        match self.sampler(steps, topk, num_draft_tokens) {
            Sampler::Tree(t) => t.expected_accept_len(),
            Sampler::Trace { lengths, max, .. } => {
                let sum: u64 = lengths.iter().map(|&l| u64::from(l.min(max))).sum();
                sum as f64 / lengths.len().max(1) as f64
            }
        }
    }
}

impl Sampler {
    /// The next accept length (a trace consumes no random draws).
    pub fn draw(&mut self, uniforms: impl FnMut() -> f64) -> u32 {
        match self {
            Sampler::Tree(t) => t.sample_accept_len(uniforms),
            Sampler::Trace { lengths, next, max } => {
                let l = lengths.get(*next).copied().unwrap_or(1);
                *next = (*next + 1) % lengths.len().max(1);
                l.clamp(1, *max)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(chain: Vec<f64>, siblings: Vec<f64>, scores: Option<Vec<f64>>) -> Positional {
        Positional {
            chain: Acceptance::PerPosition(chain),
            siblings,
            draft_scores: scores,
        }
    }

    #[test]
    fn chain_tree_is_the_leviathan_chain() {
        let p = Positional::chain(Acceptance::Alpha(0.8));
        let t = p.tree(3, 1, 4);
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.depth(), 3);
        // 1 + 0.8 + 0.64 + 0.512 = 2.952 (the α closed form).
        assert!((t.expected_accept_len() - 2.952).abs() < 1e-12);
        let mut u = [0.1, 0.2, 0.9].into_iter();
        assert_eq!(t.sample_accept_len(|| u.next().unwrap_or(1.0)), 3);
        let mut draws = 0;
        let mut u = [0.1, 0.1, 0.1, 0.1].into_iter();
        assert_eq!(
            t.sample_accept_len(|| {
                draws += 1;
                u.next().unwrap_or(1.0)
            }),
            4
        );
        assert_eq!(draws, 3, "the leaf draws nothing");
    }

    #[test]
    fn marginals_by_rank() {
        // a = 0.6, s = [0.5, 0.25]: p1 = 0.6, p2 = 0.4 · 0.5 = 0.2, p3 = 0.4 · 0.5 · 0.25 = 0.05,
        // p4 = 0.4 · 0.5 · 0.75 · 0.25 = 0.0375 (beyond the list: the last value).
        let p = pos(vec![0.6], vec![0.5, 0.25], None);
        let m: Vec<f64> = (1..=4).map(|r| p.marginal(1, r)).collect();
        for (got, want) in m.iter().zip([0.6, 0.2, 0.05, 0.0375]) {
            assert!((got - want).abs() < 1e-12, "{m:?}");
        }
    }

    #[test]
    fn calibrated_tree_is_greedy_best_and_beats_the_chain() {
        // a = 0.6 at every depth, s2 = 0.5: p1 = 0.6, p2 = 0.2. With 3 nodes and topk 2 the best
        // tree by hand: d1r1 (0.6), d2r1 (0.36), d1r2 (0.2) → 1 + 1.16 = 2.16; the chain of 3 gives
        // 1 + 0.6 + 0.36 + 0.216 = 2.176 — so at 3 nodes the chain still wins and the greedy tree is
        // the chain: candidates by value 0.6, 0.36, 0.216 (d3 under the d2 beam), 0.2 …
        let p = pos(vec![0.6], vec![0.5], None);
        let t = p.tree(3, 2, 4);
        assert!((t.expected_accept_len() - 2.176).abs() < 1e-12, "{t:?}");
        // With 5 nodes and 3 steps: 0.6, 0.36, 0.216, 0.2, then a tie at 0.12 (d2r2 under d1r1 and
        // d2r1 under d1r2; the first candidate wins): 1 + 0.6 + 0.36 + 0.216 + 0.2 + 0.12 = 2.496.
        let t = p.tree(3, 2, 6);
        assert!((t.expected_accept_len() - 2.496).abs() < 1e-12, "{t:?}");
        // At fixed num_draft_tokens = 6 and 5 steps, topk 2 keeps 0.6, 0.36, 0.216, 0.2, 0.1296 →
        // 2.5056 against the chain's 1 + 0.6 + … + 0.6^5 = 2.38336: a calibrated tree never loses.
        let tree = p.tree(5, 2, 6).expected_accept_len();
        let chain = p.tree(5, 1, 6).expected_accept_len();
        assert!((tree - 2.5056).abs() < 1e-12 && (chain - 2.38336).abs() < 1e-12);
    }

    #[test]
    fn flat_draft_scores_spread_the_budget_and_lose_depth() {
        // The draft ranks by its own probabilities 0.5 / 0.3: with 3 nodes SGLang keeps d1r1 (0.5),
        // d1r2 (0.3), d2r1 (0.25) — valued by true acceptance 0.6, 0.2, 0.36 → 2.16 < chain 2.176.
        let p = pos(vec![0.6], vec![0.5], Some(vec![0.5, 0.3]));
        let t = p.tree(3, 2, 4);
        assert_eq!(t.depth(), 2);
        assert!((t.expected_accept_len() - 2.16).abs() < 1e-12, "{t:?}");
    }

    #[test]
    fn tree_sampling_picks_a_rank_per_draw() {
        let p = pos(vec![0.6], vec![0.5], Some(vec![0.5, 0.3]));
        let t = p.tree(3, 2, 4);
        // u = 0.7 falls in rank 2 (0.6 ≤ u < 0.8): accepted d1r2, which has no children → 2.
        let mut u = [0.7].into_iter();
        assert_eq!(t.sample_accept_len(|| u.next().unwrap_or(1.0)), 2);
        // u = 0.9 ≥ 0.8: no rank matches → 1.
        let mut u = [0.9].into_iter();
        assert_eq!(t.sample_accept_len(|| u.next().unwrap_or(1.0)), 1);
        // 0.1 then 0.1: d1r1 then d2r1 → 3.
        let mut u = [0.1, 0.1].into_iter();
        assert_eq!(t.sample_accept_len(|| u.next().unwrap_or(1.0)), 3);
    }

    #[test]
    fn trace_replays_cyclically_and_clamps() {
        let m = AcceptanceModel::Trace(vec![1, 4, 9]);
        let mut s = m.sampler(3, 1, 4);
        let got: Vec<u32> = (0..5).map(|_| s.draw(|| 0.0)).collect();
        assert_eq!(got, [1, 4, 4, 1, 4]);
        assert!((m.expected_accept_len(3, 1, 4) - 3.0).abs() < 1e-12);
    }
}
