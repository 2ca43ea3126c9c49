//! Issue #19 (the box from what it reports): `tpsim import-topo` reads the `nvidia-smi topo -m`
//! matrix of a user's box into a hardware preset. Each bundled PCIe preset's own matrix (as `tpsim
//! topo` prints it, PHB for GPUs under one `rc…` host bridge, NODE between host bridges) imports into
//! a preset that prints the same matrix, pair for pair; the CLI writes a file a scenario loads and
//! refuses bad input with exit code 2 naming what is wrong. The two public matrices the parser was
//! checked on (noonghunna/club-3090 issue 46, kubernetes issue 53497) are `tpsim::import_topo`'s unit
//! tests.

use crate::common::{scratch, tpsim};
use tpsim::import_topo::{Link, Options, import, parse_matrix};

/// The preset's `extends` and `cpu_vendor` keys.
fn keys(name: &str) -> (String, String) {
    let v: toml::Value = toml::from_str(tpsim::presets::hardware(name).unwrap()).unwrap();
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("amd").to_string();
    (s("extends"), s("cpu_vendor"))
}

#[test]
fn every_bundled_pcie_preset_round_trips_through_its_matrix() {
    let dir = scratch("roundtrip");
    let (mut done, mut nvlink) = (Vec::new(), Vec::new());
    for name in tpsim::presets::names("hardware") {
        let o = tpsim(&["topo", "--hardware", name]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let m = parse_matrix(&o.stdout).unwrap_or_else(|e| panic!("{name}: {e}\n{}", o.stdout));
        if m.links.iter().flatten().any(|l| matches!(l, Link::Nv(_))) {
            nvlink.push(name);
            continue;
        }
        let (template, vendor) = keys(name);
        let opts = Options {
            template,
            cpu_vendor: vendor,
            name: None,
            p2p: None,
            pcie: None,
            host: Default::default(),
        };
        let imported = import(&o.stdout, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, &imported.text).unwrap();
        let again = tpsim(&["topo", "--hardware", file.to_str().unwrap()]);
        assert_eq!(again.code, 0, "{name}: {}\n{}", again.stderr, imported.text);
        let m2 = parse_matrix(&again.stdout).unwrap();
        assert_eq!(m.links, m2.links, "{name}: {}\n{}", o.stdout, again.stdout);
        done.push(name);
    }
    // 71 bundled presets: 59 on PCIe alone (the single-GPU ones included; stop 57 added deploys32's
    // rtx-pro-6000-max-q-8x-kvm-xeon-8468v and shm57's rtx-5090-8x-dual-turin-p2p-aikitoria, stop 60
    // deploys36's rtx-5090-2x-ryzen-9950x3d-gen5x8); NVLink or an xGMI mesh on
    // every pair in the 12 others (B200, GB200, H100 SXM, H200 (one box and two), H20, the bridged
    // H100 NVL / H100 PCIe / RTX A6000 pairs, MI300X, MI325X, MI355X); hwpresets64 added four NVLink
    // boxes (8x A100 SXM4 80 / 40 GB on NVSwitch, 2x / 4x H200 NVL bridged) and one GPU (gh200-1x).
    assert_eq!((done.len(), nvlink.len()), (60, 16), "{nvlink:?}");
    assert!(
        done.contains(&"rtx-pro-6000-8x-3switch-trpro-hierarchy"),
        "{done:?}"
    );
    assert!(
        done.contains(&"rtx-pro-6000-8x-2switch-trpro-shared-rc"),
        "{done:?}"
    );
}

/// The hierarchy box of local-inference-lab/rtx6kpro (two root switches, two leaves each): its
/// matrix imports to the preset's own tree, names aside: a root switch above two leaf switches per
/// root port.
#[test]
fn a_switch_hierarchy_is_rebuilt_two_levels_deep() {
    let o = tpsim(&["topo", "--hardware", "rtx-pro-6000-8x-3switch-trpro-hierarchy"]);
    let i = import(
        &o.stdout,
        &Options {
            template: "rtx-pro-6000-server".into(),
            cpu_vendor: "amd".into(),
            name: None,
            p2p: None,
            pcie: None,
            host: Default::default(),
        },
    )
    .unwrap();
    assert_eq!(
        i.paths,
        vec![
            "socket0/root0/switch0/switch1",
            "socket0/root0/switch0/switch1",
            "socket0/root0/switch0/switch2",
            "socket0/root0/switch0/switch2",
            "socket0/root1/switch3/switch4",
            "socket0/root1/switch3/switch4",
            "socket0/root1/switch3/switch5",
            "socket0/root1/switch3/switch5",
        ]
    );
}

#[test]
fn the_cli_writes_a_preset_a_scenario_runs_on() {
    let dir = scratch("cli");
    // A 4-GPU workstation: two pairs behind two host bridges of one socket, P2P on every pair.
    let topo = dir.join("topo.txt");
    std::fs::write(
        &topo,
        "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n\
         GPU0\t X \tPHB\tNODE\tNODE\t0-63\t0\t\tN/A\n\
         GPU1\tPHB\t X \tNODE\tNODE\t0-63\t0\t\tN/A\n\
         GPU2\tNODE\tNODE\t X \tPHB\t0-63\t0\t\tN/A\n\
         GPU3\tNODE\tNODE\tPHB\t X \t0-63\t0\t\tN/A\n",
    )
    .unwrap();
    let p2p = dir.join("p2p.txt");
    std::fs::write(
        &p2p,
        " \tGPU0\tGPU1\tGPU2\tGPU3\t\n GPU0\tX\tOK\tOK\tOK\t\n GPU1\tOK\tX\tOK\tOK\t\n GPU2\tOK\tOK\tX\tOK\t\n GPU3\tOK\tOK\tOK\tX\t\n",
    )
    .unwrap();
    let out = dir.join("box.toml");
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-pro-6000-workstation",
        "--cpu-vendor",
        "amd",
        "--p2p",
        p2p.to_str().unwrap(),
        topo.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("note: socket0: NUMA node 0"), "{}", o.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("\"socket0/rc0/root0\",   # GPU0 (NUMA 0)"),
        "{text}"
    );
    assert!(
        text.contains("\"socket0/rc1/root3\",   # GPU3 (NUMA 0)"),
        "{text}"
    );
    assert!(text.contains("p2p = true"), "{text}");
    // A TP 4 scenario on it runs: Llama-3.1-8B under SGLang.
    let scen = dir.join("s.toml");
    std::fs::write(
        &scen,
        "seed = 1\n[hardware]\npreset = \"./box.toml\"\n[model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\nname = \"sglang\"\ntp = 4\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n",
    )
    .unwrap();
    let r = tpsim(&["run", scen.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("imported from nvidia-smi topo -m"),
        "{}",
        r.stdout
    );
}

#[test]
fn bad_input_exits_2_with_the_reason() {
    let dir = scratch("bad");
    let topo = dir.join("topo.txt");
    std::fs::write(&topo, "GPU0 GPU1\nGPU0 X PIX\nGPU1 SYS X\n").unwrap();
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-5090",
        "--cpu-vendor",
        "amd",
        topo.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("GPU0–GPU1: the matrix says PIX one way and SYS the other"),
        "{}",
        o.stderr
    );
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-5090",
        "--cpu-vendor",
        "arm",
        topo.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--cpu-vendor `arm`: expected amd or intel"),
        "{}",
        o.stderr
    );
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-5090",
        "--cpu-vendor",
        "amd",
        "/nonexistent/topo.txt",
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("/nonexistent/topo.txt"), "{}", o.stderr);
}

/// `tpsim validate --hardware FILE --explain KEY`'s value line: `KEY = VALUE`.
fn explained(hardware: &str, key: &str) -> String {
    let o = tpsim(&["validate", "--hardware", hardware, "--explain", key]);
    assert_eq!(o.code, 0, "{hardware}: {}", o.stderr);
    let first = o.stdout.lines().next().unwrap_or_default().to_string();
    first
        .strip_prefix(&format!("{key} = "))
        .unwrap_or_else(|| panic!("{hardware}: {first}"))
        .to_string()
}

/// The CSV nvidia-smi prints for `--query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,
/// pcie.link.width.max,pcie.link.width.current --format=csv`, one row per (gen max, gen current,
/// width max, width current).
fn query_csv(rows: &[(u32, u32, u32, u32)]) -> String {
    let mut s = "index, pci.bus_id, pcie.link.gen.max, pcie.link.gen.current, pcie.link.width.max, pcie.link.width.current\n".to_string();
    for (i, r) in rows.iter().enumerate() {
        s.push_str(&format!(
            "{i}, 00000000:{:02X}:00.0, {}, {}, {}, {}\n",
            i + 1,
            r.0,
            r.1,
            r.2,
            r.3
        ));
    }
    s
}

/// pcie19 round trip: the bundled `rtx-3090-2x-ryzen-5900x` (r/LocalLLaMA 1kkvqti: "pcie 4.0 x16 + pcie
/// 4.0 x4", written as gpu.pcie_width = 4 over the rtx-3090 template's x16) imported from its own
/// matrix and what nvidia-smi reports on such a box (GPU0 Gen4 x16; GPU1 an x16 card trained at x4,
/// idle at Gen1) comes back as the same link, Gen4 x4, with a warning for GPU1; without `--pcie` the
/// template's x16 stands, so the report is what sets it. `l40s-8x-pcie` (Gen4 x16, the l40s template)
/// round-trips from a report of eight Gen4 x16 GPUs with no warning.
#[test]
fn a_pcie_report_sets_the_gpu_link_and_round_trips() {
    let dir = scratch("pcie-roundtrip");
    for (name, rows, warns) in [
        ("rtx-3090-2x-ryzen-5900x", vec![(4, 4, 16, 16), (4, 1, 16, 4)], 2),
        ("l40s-8x-pcie", vec![(4, 4, 16, 16); 8], 0),
    ] {
        let (template, vendor) = keys(name);
        let matrix = dir.join(format!("{name}.topo.txt"));
        let m = tpsim(&["topo", "--hardware", name]);
        std::fs::write(&matrix, &m.stdout).unwrap();
        let csv = dir.join(format!("{name}.pcie.csv"));
        std::fs::write(&csv, query_csv(&rows)).unwrap();
        let out = dir.join(format!("{name}.toml"));
        let args = |pcie: bool| {
            let mut a = vec![
                "import-topo".to_string(),
                "--gpu".into(),
                template.clone(),
                "--cpu-vendor".into(),
                vendor.clone(),
                matrix.to_str().unwrap().into(),
                "-o".into(),
                out.to_str().unwrap().into(),
            ];
            if pcie {
                a.extend(["--pcie".into(), csv.to_str().unwrap().into()]);
            }
            a
        };
        let a: Vec<String> = args(true);
        let o = tpsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert_eq!(
            o.stderr.matches("warning: ").count(),
            warns,
            "{name}: {}",
            o.stderr
        );
        let file = out.to_str().unwrap();
        for key in ["hardware.gpu.pcie_gen", "hardware.gpu.pcie_width"] {
            assert_eq!(explained(file, key), explained(name, key), "{name} {key}");
        }
        if name == "rtx-3090-2x-ryzen-5900x" {
            assert_eq!(explained(file, "hardware.gpu.pcie_width"), "4");
            assert!(
                o.stderr
                    .contains("warning: GPU1: pcie.link.width.current x4 is below pcie.link.width.max x16"),
                "{}",
                o.stderr
            );
            let a: Vec<String> = args(false);
            let o = tpsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(o.code, 0, "{}", o.stderr);
            assert_eq!(explained(file, "hardware.gpu.pcie_width"), "16");
        }
    }
}

/// The public `nvidia-smi -a` excerpt of zenn.dev/yuyakato/articles/12a19c019b1339 (one GPU, bus
/// 2D:00.0, PCIe Generation Max 3 / Current 1, Link Width 16x / 16x) with a one-GPU matrix: Gen3 x16
/// (the maximum generation; the idle Gen1 is a note, not a warning).
#[test]
fn the_public_nvidia_smi_q_excerpt() {
    let dir = scratch("pcie-zenn");
    let matrix = dir.join("topo.txt");
    std::fs::write(
        &matrix,
        "\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-11\t0\n",
    )
    .unwrap();
    let pcie = crate::common::data_path("nvidia-smi-pcie/zenn-12a19c019b1339-nvidia-smi-a.txt");
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "t4",
        "--cpu-vendor",
        "intel",
        "--pcie",
        pcie.to_str().unwrap(),
        matrix.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stderr.contains("warning:"), "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "note: the GPUs' own links from nvidia-smi -q GPU Link Info: Gen3 x16; the generation is PCIe Generation Max (the current one drops when the GPU is idle: PCIe Generation Current below it on GPU0)"
        ),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("\npcie_gen = 3    "), "{}", o.stdout);
    assert!(o.stdout.contains("\npcie_width = 16    "), "{}", o.stdout);
}

/// Garbage `--pcie` input exits 2 naming the file, the line and the key (or the GPU).
#[test]
fn bad_pcie_input_exits_2_naming_line_and_key() {
    let dir = scratch("pcie-bad");
    let matrix = dir.join("topo.txt");
    std::fs::write(
        &matrix,
        "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tPHB\t0-63\nGPU1\tPHB\t X \t0-63\n",
    )
    .unwrap();
    let good = query_csv(&[(4, 4, 16, 16), (4, 4, 16, 16)]);
    for (case, text, needle) in [
        (
            "header",
            good.replace("pcie.link.width.max", "pcie.link.width.maximum"),
            "line 1: the csv header has no `pcie.link.width.max` column",
        ),
        (
            "width",
            good.replace("4, 4, 16, 16\n1,", "4, 4, 16, x16\n1,"),
            "line 2: pcie.link.width.current `x16` is not a number",
        ),
        (
            "missing",
            query_csv(&[(4, 4, 16, 16)]),
            "GPU1: in the topology matrix but not in the --pcie report",
        ),
        (
            "extra",
            query_csv(&[(4, 4, 16, 16); 3]),
            "line 4: GPU2 is not in the topology matrix, which has 2 GPUs (GPU0 to GPU1)",
        ),
        (
            "none",
            "nothing here\n".to_string(),
            "--pcie: no PCIe link report found",
        ),
    ] {
        let f = dir.join(format!("{case}.csv"));
        std::fs::write(&f, &text).unwrap();
        let o = tpsim(&[
            "import-topo",
            "--gpu",
            "rtx-4090",
            "--cpu-vendor",
            "amd",
            "--pcie",
            f.to_str().unwrap(),
            matrix.to_str().unwrap(),
        ]);
        assert_eq!(o.code, 2, "{case}: {}", o.stderr);
        assert!(
            o.stderr.contains(&format!("{}: ", f.display())),
            "{case}: {}",
            o.stderr
        );
        assert!(o.stderr.contains(needle), "{case}: {}", o.stderr);
    }
}

/// The book's what-if (cli.md, `tpsim import-topo`): the bundled `rtx-pro-6000-8x-1switch` box's
/// matrix (`tpsim topo` output, tests/data/nvidia-smi-pcie/rtx-pro-6000-8x-1switch.topo.txt) imported
/// with every GPU at Gen5 x16 and at Gen5 x8 (`links-x16.csv`, `links-x8.csv`); the committed presets
/// `box-x16.toml` / `box-x8.toml` are what the command writes today. NCCL's model of a PCIe link is
/// width × 240 / 80 GB/s at Gen5 (`GpuSpec::nccl_pci_bandwidth_gbps`): 16 × 240 / 80 = 48 GB/s at
/// x16, 8 × 240 / 80 = 24 GB/s at x8, so its ring search's 24 GB/s channel fits twice at x16 and once
/// at x8. Llama-3.1-70B under SGLang at TP 4 (`tp4-x16.toml` / `tp4-x8.toml`): compute is the same,
/// the collectives and the TPOT grow at x8 (exact figures in the book, checked by the book test).
#[test]
fn the_book_what_if_x8_against_x16() {
    let dir = scratch("pcie-whatif");
    let data = |f: &str| crate::common::data_path(&format!("nvidia-smi-pcie/{f}"));
    for w in [16, 8] {
        let out = dir.join(format!("box-x{w}.toml"));
        let name = format!("8x RTX PRO 6000 (one switch), GPU links x{w} (pcie19 what-if)");
        let o = tpsim(&[
            "import-topo",
            "--gpu",
            "rtx-pro-6000-server",
            "--cpu-vendor",
            "amd",
            "--name",
            &name,
            "--pcie",
            data(&format!("links-x{w}.csv")).to_str().unwrap(),
            data("rtx-pro-6000-8x-1switch.topo.txt").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let committed = std::fs::read_to_string(data(&format!("box-x{w}.toml"))).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            committed,
            "box-x{w}.toml is not what import-topo writes now: regenerate it"
        );
        let t = tpsim(&[
            "topo",
            "--hardware",
            data(&format!("box-x{w}.toml")).to_str().unwrap(),
        ]);
        let channels = if w == 16 { 2 } else { 1 };
        assert!(
            t.stdout
                .contains(&format!("NCCL ring graph: {channels} channel(s) × 24.0 GB/s")),
            "x{w}: {}",
            t.stdout
        );
    }
    let run = |w: u32| crate::common::run_json(data(&format!("tp4-x{w}.toml")).to_str().unwrap());
    let (a, b) = (run(16), run(8));
    let ms = |v: &serde_json::Value, k: &str| v["breakdown"][k].as_f64().unwrap_or(f64::NAN);
    assert!(
        (ms(&a, "compute") - ms(&b, "compute")).abs() < 1e-9,
        "{} {}",
        a["breakdown"],
        b["breakdown"]
    );
    assert!(
        ms(&b, "collective") > ms(&a, "collective"),
        "{} {}",
        a["breakdown"],
        b["breakdown"]
    );
    let tpot = |v: &serde_json::Value| v["throughput"]["tpot_ms"].as_f64().unwrap_or(f64::NAN);
    assert!(tpot(&b) > tpot(&a), "{} {}", a["throughput"], b["throughput"]);
}
