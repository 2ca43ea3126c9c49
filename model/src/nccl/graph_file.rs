//! `NCCL_GRAPH_FILE`: the graph XML that `NCCL_GRAPH_DUMP_FILE` writes and NCCL reads back instead
//! of searching (`src/graph/search.cc` `ncclTopoCompute` → `ncclTopoGetGraphFromXml`, v2.30.7).
//!
//! The file is `<graphs version="1">` holding `<graph>` elements; NCCL takes, for each of its
//! graphs, the `<graph>` whose `id` equals the graph's (0 = ring, 1 = tree, `init.cc`) and reads
//! `pattern`, `nchannels`, `speedintra`, `speedinter`, `typeintra`, `typeinter` and one `<channel>`
//! per channel (the GPU order). A graph with channels replaces the search for that graph; one
//! missing from the file is searched as usual. tpsim keeps the channel count, the per-channel
//! bandwidth and the path type (its flows run on GPUs `0…n−1` in index order either way).

use super::GraphGiven;
use crate::hw::PathClass;

/// What a graph file fixes: the ring graph (id 0) and, when present, the tree graph (id 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphFile {
    pub ring: Option<GraphGiven>,
    pub tree: Option<GraphGiven>,
}

/// Parses the XML text of a graph file. Errors name the element or attribute at fault.
pub fn parse_graph_file(text: &str) -> Result<GraphFile, String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| format!("not XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "graphs" {
        return Err(format!(
            "root element <{}>: expected <graphs>",
            root.tag_name().name()
        ));
    }
    let mut out = GraphFile {
        ring: None,
        tree: None,
    };
    for g in root.children().filter(|n| n.has_tag_name("graph")) {
        let attr = |name: &str| {
            g.attribute(name)
                .ok_or_else(|| format!("<graph> without `{name}`"))
        };
        let id: u32 = attr("id")?
            .parse()
            .map_err(|_| format!("<graph id=\"{}\">: expected an integer", attr("id").unwrap_or("")))?;
        let channels_attr: u32 = attr("nchannels")?
            .parse()
            .map_err(|_| "<graph nchannels>: expected an integer".to_string())?;
        let speed: f64 = attr("speedintra")?
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .ok_or_else(|| format!("<graph id=\"{id}\" speedintra>: expected GB/s > 0"))?;
        let type_text = attr("typeintra")?;
        // `kvDictLinkType` (topo.cc): LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET.
        let type_intra = match type_text {
            "LOC" => PathClass::Loc,
            "NVL" | "NVB" | "C2C" => PathClass::Nvl,
            "PIX" => PathClass::Pix,
            "PXB" | "P2C" | "PXN" => PathClass::Pxb,
            "PHB" => PathClass::Phb,
            "SYS" => PathClass::Sys,
            t => {
                return Err(format!(
                    "<graph id=\"{id}\" typeintra=\"{t}\">: expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB or SYS"
                ));
            }
        };
        let listed = g.children().filter(|n| n.has_tag_name("channel")).count() as u32;
        // NCCL reads `nchannels` into the graph; the `<channel>` elements fill its rings.
        if listed != channels_attr {
            return Err(format!(
                "<graph id=\"{id}\">: nchannels=\"{channels_attr}\" but {listed} <channel> elements"
            ));
        }
        let given = GraphGiven {
            channels: channels_attr,
            bw_mbps: (speed * 1000.0).round() as u64,
            type_intra,
        };
        match id {
            0 if channels_attr > 0 => out.ring = Some(given),
            1 if channels_attr > 0 => out.tree = Some(given),
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dump in the format `ncclTopoGetXmlFromGraphs` writes (search.cc v2.30.7: `<graphs
    /// version>`, `<graph id pattern crossnic nchannels speedintra speedinter latencyinter typeintra
    /// typeinter samechannels>`, `<channel><gpu dev/>…`).
    #[test]
    fn reads_a_dump() {
        let xml = r#"<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="24" speedinter="24" latencyinter="0" typeintra="PXB" typeinter="PIX" samechannels="1">
    <channel><gpu dev="0"/><gpu dev="1"/><gpu dev="2"/><gpu dev="3"/></channel>
    <channel><gpu dev="0"/><gpu dev="1"/><gpu dev="2"/><gpu dev="3"/></channel>
  </graph>
  <graph id="1" pattern="1" crossnic="0" nchannels="1" speedintra="22.5" speedinter="22.5" latencyinter="0" typeintra="PXB" typeinter="PIX" samechannels="1">
    <channel><gpu dev="0"/><gpu dev="1"/><gpu dev="2"/><gpu dev="3"/></channel>
  </graph>
</graphs>"#;
        let g = parse_graph_file(xml).unwrap();
        let r = g.ring.unwrap();
        assert_eq!((r.channels, r.bw_mbps, r.type_intra), (2, 24_000, PathClass::Pxb));
        assert_eq!(g.tree.unwrap().bw_mbps, 22_500);
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(parse_graph_file("<graphs><graph").is_err());
        assert!(parse_graph_file("<system/>").is_err());
        let no_speed = r#"<graphs><graph id="0" nchannels="1" typeintra="PIX"><channel/></graph></graphs>"#;
        assert!(parse_graph_file(no_speed).unwrap_err().contains("speedintra"));
        let miscount = r#"<graphs><graph id="0" nchannels="2" speedintra="20" typeintra="PIX"><channel/></graph></graphs>"#;
        assert!(parse_graph_file(miscount).is_err());
        let bad_type = r#"<graphs><graph id="0" nchannels="1" speedintra="20" typeintra="USB"><channel/></graph></graphs>"#;
        assert!(parse_graph_file(bad_type).is_err());
    }
}
