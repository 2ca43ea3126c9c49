//! NCCL's example tuner plugin (NVIDIA/nccl `ext-tuner/example/plugin.c`, v2.27.5; moved to
//! `plugins/tuner/example` by 2.30.7 with the same logic): a CSV table of
//! `collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]`.
//!
//! What the plugin does per call (`pluginGetCollInfo`): it sets the channel count to 1, then takes
//! the **first** row whose collective, byte range (inclusive both ends), node count, rank count,
//! pipelined-op count and buffer registration match (−1 = any) and whose (algorithm, protocol) NCCL
//! has not ruled out; it gives that pair cost 0 — so NCCL picks it — and, unless the row's channels
//! is −1, that channel count. NCCL then takes the plugin's channel count over its own whenever it
//! is not 0 (`enqueue.cc` `getAlgoInfo`: `nMaxChannels == 0 ? own : plugin's`), so with the example
//! plugin loaded a call runs on 1 channel unless its row names a count — even a call no row
//! matches, and even a row with −1 (the README says −1 keeps NCCL's default; the code does not).

use super::{Algo, Proto};

/// A loaded table and what the calls look like to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TunerPlugin {
    pub rows: Vec<TunerRow>,
    /// Whether the calls count as registered buffers (`enqueue.cc`: registered, or captured in a
    /// CUDA graph with `NCCL_GRAPH_REGISTER` on, its default): the engines' decode runs in CUDA
    /// graphs.
    pub reg_buff: bool,
}

impl TunerPlugin {
    /// The first matching row (the plugin's choice) for an allreduce of `bytes` on `ranks`, among
    /// rows whose pair `enabled` allows.
    pub fn choose(&self, bytes: u64, ranks: u32, enabled: impl Fn(Algo, Proto) -> bool) -> Option<&TunerRow> {
        self.rows
            .iter()
            .find(|r| r.matches(bytes, ranks, self.reg_buff) && enabled(r.algo, r.proto))
    }
}

/// One allreduce row of the table (rows for other collectives are read and dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TunerRow {
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub algo: Algo,
    pub proto: Proto,
    /// `None` for −1.
    pub channels: Option<u32>,
    /// `None` for −1.
    pub n_nodes: Option<u32>,
    pub n_ranks: Option<u32>,
    pub num_pipe_ops: Option<u32>,
    pub reg_buff: Option<bool>,
}

impl TunerRow {
    /// Whether the row matches an allreduce of `bytes` on one node of `ranks` ranks, one op per
    /// launch, with registered buffers or not.
    pub fn matches(&self, bytes: u64, ranks: u32, reg_buff: bool) -> bool {
        (self.min_bytes..=self.max_bytes).contains(&bytes)
            && self.n_nodes.is_none_or(|n| n == 1)
            && self.n_ranks.is_none_or(|n| n == ranks)
            && self.num_pipe_ops.is_none_or(|n| n == 1)
            && self.reg_buff.is_none_or(|r| r == reg_buff)
    }
}

/// Reads the table's lines (`#` comments and empty lines skipped, fields trimmed) as the plugin
/// does, except that a malformed line is an error here (`Err((line index, message))`) where the
/// plugin skips it or reads an unknown name as ring / simple / allreduce.
pub fn parse_tuner_rows(lines: &[String]) -> Result<Vec<TunerRow>, (usize, String)> {
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
        if !(8..=10).contains(&f.len()) {
            return Err((
                i,
                format!(
                    "`{line}`: expected 8 to 10 comma-separated fields: collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]"
                ),
            ));
        }
        let coll = f[0];
        if !["broadcast", "reduce", "allgather", "reducescatter", "allreduce"].contains(&coll) {
            return Err((
                i,
                format!("`{coll}`: expected broadcast, reduce, allgather, reducescatter or allreduce"),
            ));
        }
        let bytes = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| (i, format!("`{s}`: expected a byte count")))
        };
        let any = |s: &str| -> Result<Option<u32>, (usize, String)> {
            match s.parse::<i64>() {
                Ok(-1) => Ok(None),
                Ok(n) if n >= 0 && n <= i64::from(u32::MAX) => Ok(Some(n as u32)),
                _ => Err((i, format!("`{s}`: expected −1 (any) or a count ≥ 0"))),
            }
        };
        let (min_bytes, max_bytes) = (bytes(f[1])?, bytes(f[2])?);
        if min_bytes > max_bytes {
            return Err((i, format!("min_bytes {min_bytes} > max_bytes {max_bytes}")));
        }
        // The plugin compares names case-sensitively (`strcmp`), lower case.
        let algo = match f[3] {
            "tree" => Some(Algo::Tree),
            "ring" => Some(Algo::Ring),
            "collnet_direct" | "collnet_chain" | "nvls" | "nvls_tree" | "pat" => None,
            a => {
                return Err((
                    i,
                    format!(
                        "`{a}`: expected tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree or pat"
                    ),
                ));
            }
        };
        let proto = match f[4] {
            "ll" => Proto::Ll,
            "ll128" => Proto::Ll128,
            "simple" => Proto::Simple,
            p => return Err((i, format!("`{p}`: expected ll, ll128 or simple"))),
        };
        let channels = any(f[5])?;
        if channels == Some(0) {
            return Err((i, "channels 0: expected −1 or a count ≥ 1".into()));
        }
        let reg_buff = match f.get(9) {
            None => None,
            Some(s) => match *s {
                "-1" => None,
                "0" => Some(false),
                "1" => Some(true),
                s => return Err((i, format!("`{s}`: regBuff expected −1, 0 or 1"))),
            },
        };
        let row = TunerRow {
            min_bytes,
            max_bytes,
            algo: algo.unwrap_or(Algo::Ring),
            proto,
            channels,
            n_nodes: any(f[6])?,
            n_ranks: any(f[7])?,
            num_pipe_ops: f.get(8).map(|s| any(s)).transpose()?.flatten(),
            reg_buff,
        };
        // Rows for other collectives, and allreduce rows naming algorithms a single PCIe/NVLink box
        // without NVLS/CollNet rules out (NCCL_ALGO_PROTO_IGNORE), never apply here.
        if coll == "allreduce" && algo.is_some() {
            rows.push(row);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    /// The example's own `nccl_tuner.conf` lines (ext-tuner/example, v2.27.5).
    #[test]
    fn example_conf_rows() {
        let rows = parse_tuner_rows(&lines(&[
            "# Single-node, small allreduce",
            "allreduce,0,65536,tree,simple,2,1,-1,-1,1",
            "allreduce,65537,1048576,ring,simple,4,4,32,1,0",
            "allreduce,1048577,4294967295,ring,ll128,-1,-1,-1,4,-1",
            "broadcast,0,32768,tree,simple,-1,1,-1",
        ]))
        .unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].channels, Some(2));
        assert!(rows[0].matches(65_536, 8, true));
        assert!(!rows[0].matches(65_536, 8, false)); // regBuff 1 only
        assert!(!rows[0].matches(65_537, 8, true));
        // 4 nodes / 32 ranks: never on one node.
        assert!(!rows[1].matches(100_000, 32, false));
        // numPipeOps 4: a single allreduce is 1 op.
        assert!(!rows[2].matches(2 << 20, 8, false));
    }

    #[test]
    fn malformed_rows_are_errors() {
        assert!(parse_tuner_rows(&lines(&["allreduce,0,10,ring,simple"])).is_err());
        assert!(parse_tuner_rows(&lines(&["allreduce,0,10,Ring,simple,1,1,-1"])).is_err());
        assert!(parse_tuner_rows(&lines(&["allreduce,10,0,ring,simple,1,1,-1"])).is_err());
        assert!(parse_tuner_rows(&lines(&["allreduce,0,10,ring,ll64,1,1,-1"])).is_err());
        assert!(parse_tuner_rows(&lines(&["allreduce,0,10,ring,ll,0,1,-1"])).is_err());
    }
}

#[cfg(test)]
mod select_tests {
    use super::*;
    use crate::nccl::NcclEnv;
    use crate::nccl::test_inputs::reference_table;
    use crate::units::Bytes;

    fn with_rows(rows: &[&str], reg_buff: bool) -> crate::nccl::TunerTable {
        let rows: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
        let env = NcclEnv {
            tuner: Some(TunerPlugin {
                rows: parse_tuner_rows(&rows).unwrap(),
                reg_buff,
            }),
            ..NcclEnv::default()
        };
        reference_table(&env)
    }

    /// The example conf's first row (`allreduce,0,65536,tree,simple,2,1,-1,-1,1`) on the reference
    /// 8-rank Gen5 table: at 14,336 B NCCL alone picks Ring/LL on 1 channel (tuner.rs
    /// `reference_worked_numbers_8_ranks_gen5`); with the row and registered buffers it runs
    /// Tree/Simple on 2 channels; without registration the row does not match and the call keeps
    /// Ring/LL on the example's 1 channel. At 256 MiB (no row) NCCL's Ring/Simple stays, on 1
    /// channel instead of 4.
    #[test]
    fn first_matching_row_wins_and_channels_follow_the_plugin() {
        let t = with_rows(&["allreduce,0,65536,tree,simple,2,1,-1,-1,1"], true);
        let c = t.select(Bytes(14_336)).unwrap();
        assert_eq!((c.algo, c.proto, c.channels), (Algo::Tree, Proto::Simple, 2));
        let c = t.select(Bytes(256 << 20)).unwrap();
        assert_eq!((c.algo, c.proto, c.channels), (Algo::Ring, Proto::Simple, 1));
        let t = with_rows(&["allreduce,0,65536,tree,simple,2,1,-1,-1,1"], false);
        let c = t.select(Bytes(14_336)).unwrap();
        assert_eq!((c.algo, c.proto, c.channels), (Algo::Ring, Proto::Ll, 1));
        // A row naming LL128, which NCCL leaves off on PCIe (cost IGNORE), is passed over for the
        // next matching row.
        let t = with_rows(
            &[
                "allreduce,0,1000000,ring,ll128,-1,-1,-1",
                "allreduce,0,1000000,ring,simple,3,-1,8",
            ],
            false,
        );
        let c = t.select(Bytes(14_336)).unwrap();
        assert_eq!((c.algo, c.proto, c.channels), (Algo::Ring, Proto::Simple, 3));
    }
}
