//! `NCCL_ALGO` and `NCCL_PROTO` as NCCL reads them (`src/graph/tuning.cc` `parseList`), reduced to
//! what an allreduce sees.
//!
//! - Through 2.23 the value is one comma list; a leading `^` enables everything except the names;
//!   names NCCL does not know are skipped silently.
//! - From 2.24 the value is `list[;func:list]…`: the first list may lack a prefix and then applies to
//!   every collective; each `func:` entry (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce,
//!   any case) replaces that collective's list; each list may start with `^`. An unknown name, an
//!   unknown prefix, or a prefix-less entry after the first fails (`ncclInvalidUsage`, with the
//!   warnings quoted in [`ListError`]).
//!
//! Either way, naming a protocol enables it outright: `LL128` named (or not excluded by `^`) is on
//! even where NCCL would leave it off by default (PCIe), because the default "2 = decide later" is
//! overwritten by 0 or 1 (`protoEnable`).

use super::versions::{ListSyntax, NcclVersion};

/// `ncclFuncStr` (init.cc).
const FUNCS: [&str; 5] = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"];
const ALLREDUCE: usize = 4;
/// `ncclProtoStr` (init.cc).
pub const PROTO_NAMES: [&str; 3] = ["LL", "LL128", "Simple"];

/// `ncclAlgoStr` (init.cc): PAT from 2.23.
pub fn algo_names(v: NcclVersion) -> &'static [&'static str] {
    const WITH_PAT: [&str; 7] = [
        "Tree",
        "Ring",
        "CollNetDirect",
        "CollNetChain",
        "NVLS",
        "NVLSTree",
        "PAT",
    ];
    if v.has_pat() { &WITH_PAT } else { &WITH_PAT[..6] }
}

/// NCCL's refusal of a list (its `WARN` text; the communicator then fails with ncclInvalidUsage).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("Unrecognized element token \"{token}\" when parsing \"{text}\" (expected {expected})")]
    Element {
        token: String,
        text: String,
        expected: String,
    },
    #[error(
        "Unrecognized prefix token \"{token}\" when parsing \"{text}\" (expected Broadcast, Reduce, AllGather, ReduceScatter or AllReduce)"
    )]
    Prefix { token: String, text: String },
    #[error("All entries except the first must have a prefix: \"{0}\"")]
    MissingPrefix(String),
}

/// The allreduce row of the enable matrix a list gives, one flag per name of `elems`; `None` when the
/// value leaves allreduce at NCCL's default (only `func:` entries for other collectives).
pub fn allreduce_row(text: &str, elems: &[&str], v: NcclVersion) -> Result<Option<Vec<bool>>, ListError> {
    match v.list_syntax() {
        ListSyntax::Flat => Ok(Some(flat(text, elems))),
        ListSyntax::Prefixed => prefixed(text, elems),
    }
}

/// ≤ 2.23: `[^]a,b,…`, unknown names ignored.
fn flat(text: &str, elems: &[&str]) -> Vec<bool> {
    let (set, list) = match text.strip_prefix('^') {
        Some(rest) => (false, rest),
        None => (true, text),
    };
    let mut row = vec![!set; elems.len()];
    for tok in list.split(',').filter(|t| !t.is_empty()) {
        if let Some(i) = elems.iter().position(|e| e.eq_ignore_ascii_case(tok)) {
            row[i] = set;
        }
    }
    row
}

/// ≥ 2.24: entries split on `;` (empty ones skipped, as `strtok` does), each `[func:][^]list`.
fn prefixed(text: &str, elems: &[&str]) -> Result<Option<Vec<bool>>, ListError> {
    let mut rows: Vec<Option<Vec<bool>>> = vec![None; FUNCS.len()];
    for (i, entry) in text.split(';').filter(|e| !e.is_empty()).enumerate() {
        let mut parts = entry.split(':').filter(|p| !p.is_empty());
        let first = parts.next().unwrap_or("");
        let (prefix, list) = match parts.next() {
            Some(list) => (Some(first), list),
            None if i == 0 => (None, first),
            None => return Err(ListError::MissingPrefix(text.to_string())),
        };
        let (set, list) = match list.strip_prefix('^') {
            Some(rest) => (false, rest),
            None => (true, list),
        };
        let mut row = vec![!set; elems.len()];
        for tok in list.split(',').filter(|t| !t.is_empty()) {
            let Some(k) = elems.iter().position(|e| e.eq_ignore_ascii_case(tok)) else {
                return Err(ListError::Element {
                    token: tok.to_string(),
                    text: text.to_string(),
                    expected: match elems.split_last() {
                        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                        _ => elems.join(", "),
                    },
                });
            };
            row[k] = set;
        }
        let mut found = false;
        for (f, name) in FUNCS.iter().enumerate() {
            if prefix.is_none_or(|p| p.eq_ignore_ascii_case(name)) {
                rows[f] = Some(row.clone());
                found = true;
            }
        }
        if !found {
            return Err(ListError::Prefix {
                token: prefix.unwrap_or("").to_string(),
                text: text.to_string(),
            });
        }
    }
    Ok(rows.swap_remove(ALLREDUCE))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V227: NcclVersion = NcclVersion::new(27, 5);
    const V221: NcclVersion = NcclVersion::new(21, 5);

    /// The three examples of NCCL's own comment above `parseList` (tuning.cc, v2.27.5), read for
    /// allreduce.
    #[test]
    fn nccl_comment_examples() {
        let algos = algo_names(V227);
        // "ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring": allreduce gets tree and
        // collnetdirect only.
        let r = allreduce_row(
            "ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring",
            algos,
            V227,
        )
        .unwrap()
        .unwrap();
        assert_eq!(&r[..3], &[true, false, true]);
        // "LL,Simple;allreduce:^LL": everything except LL for allreduce (LL128 explicitly on).
        let r = allreduce_row("LL,Simple;allreduce:^LL", &PROTO_NAMES, V227)
            .unwrap()
            .unwrap();
        assert_eq!(r, vec![false, true, true]);
        // "^LL128;allreduce:LL128": only LL128 for allreduce.
        let r = allreduce_row("^LL128;allreduce:LL128", &PROTO_NAMES, V227)
            .unwrap()
            .unwrap();
        assert_eq!(r, vec![false, true, false]);
    }

    #[test]
    fn plain_lists_and_exclusion() {
        let r = allreduce_row("simple", &PROTO_NAMES, V227).unwrap().unwrap();
        assert_eq!(r, vec![false, false, true]);
        let r = allreduce_row("^LL", &PROTO_NAMES, V227).unwrap().unwrap();
        assert_eq!(r, vec![false, true, true]);
        // Only another collective's entry: allreduce keeps the default.
        assert_eq!(
            allreduce_row("broadcast:ring", algo_names(V227), V227).unwrap(),
            None
        );
    }

    #[test]
    fn errors_from_2_24_ignored_before() {
        let e = allreduce_row("Ring,Bogus", algo_names(V227), V227).unwrap_err();
        assert!(matches!(e, ListError::Element { .. }), "{e}");
        let e = allreduce_row("allgather:ring;alltoall:ring", algo_names(V227), V227).unwrap_err();
        assert!(matches!(e, ListError::Prefix { .. }), "{e}");
        let e = allreduce_row("allreduce:ring;tree", algo_names(V227), V227).unwrap_err();
        assert!(matches!(e, ListError::MissingPrefix(_)), "{e}");
        // 2.21: flat list, unknown names skipped, no prefixes (so "allreduce:ring" is one unknown
        // name and enables nothing).
        let r = allreduce_row("Ring,Bogus", algo_names(V221), V221)
            .unwrap()
            .unwrap();
        assert_eq!(&r[..2], &[false, true]);
        let r = allreduce_row("allreduce:ring", algo_names(V221), V221)
            .unwrap()
            .unwrap();
        assert!(r.iter().all(|&x| !x));
        // PAT is a name only from 2.23.
        assert!(allreduce_row("PAT", algo_names(V227), V227).is_ok());
        assert_eq!(algo_names(V221).len(), 6);
    }
}
