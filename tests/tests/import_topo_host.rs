//! Issue #19 point 1 (shmhost19): `tpsim import-topo` writes a `[host]` section from the host's facts
//! (`--cpu-model`, `--sockets`, … or `--lscpu` / `--dmidecode` output), so an imported box's SHM paths
//! are costed from its own host, not at the template's 2.2 GB/s. Round trips: the facts of
//! `rtx-pro-6000-4x-turin-same-numa-shm` given as flags, and the public lscpu / dmidecode of
//! cloudrift's `rtx-pro-6000-ws-8x-dual-genoa-direct` box (tests/data/lscpu), reproduce those presets'
//! `[host]`, DRAM and socket-link rates and their allreduce times.

use crate::common::{data_path, scratch, tpsim};

/// Imports the bundled preset's own matrix (as `tpsim topo` prints it) with `host` flags; returns the
/// written file.
fn import_with(dir: &std::path::Path, preset: &str, gpu: &str, host: &[&str]) -> std::path::PathBuf {
    let topo = tpsim(&["topo", "--hardware", preset]);
    assert_eq!(topo.code, 0, "{}", topo.stderr);
    let m = dir.join(format!("{preset}.topo.txt"));
    std::fs::write(&m, &topo.stdout).unwrap();
    let out = dir.join(format!("{preset}.toml"));
    let mut args = vec!["import-topo", "--gpu", gpu, "--cpu-vendor", "amd"];
    args.extend_from_slice(host);
    args.extend_from_slice(&[m.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let o = tpsim(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    out
}

/// The host facts and the SHM parameters they set, of a preset and of the imported file.
fn same_host(preset: &str, imported: &std::path::Path) -> tpsim::scenario::Hardware {
    let a = tpsim::scenario::hardware_from_preset(preset).unwrap();
    let b = tpsim::scenario::hardware_from_args(imported.to_str().unwrap(), None).unwrap();
    let (ha, hb) = (a.host.clone().unwrap(), b.host.clone().unwrap());
    assert_eq!(
        (
            ha.sockets,
            ha.memory_channels,
            ha.dimm_mts,
            ha.socket_links,
            ha.socket_link_bw,
            ha.shm_buffer
        ),
        (
            hb.sockets,
            hb.memory_channels,
            hb.dimm_mts,
            hb.socket_links,
            hb.socket_link_bw,
            hb.shm_buffer
        ),
        "{preset}"
    );
    assert_eq!(a.params.host_memory_bw, b.params.host_memory_bw);
    assert_eq!(a.params.inter_socket_bw, b.params.inter_socket_bw);
    assert_eq!(a.params.shm_read_efficiency, b.params.shm_read_efficiency);
    b
}

fn time_us(hardware: &str, gpus: &str, size: &str) -> (String, String) {
    let o = tpsim(&[
        "collective",
        "--hardware",
        hardware,
        "--gpus",
        gpus,
        "--sizes",
        size,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let row = o
        .stdout
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    (row, o.stderr)
}

/// `--cpu-model "AMD EPYC 9575F" --sockets 2` and the box's own read fraction: the EPYC 9005 row of
/// the platform table gives 12 channels at DDR5-6400 (12 × 6400 MT/s × 8 B × 0.7 = 430.08 GB/s per
/// socket) and 4 xGMI links of 64 GB/s (256 GB/s), the preset's values; the 512 KiB allreduce on the 4
/// GPUs is the preset's 51.62 µs (book/src/cli.md; 59.76 measured, allreduce.tsv line 319), with no
/// warning, where the `[host]`-less import costs 723.84 µs and warns.
#[test]
fn flags_reproduce_the_turin_shm_host() {
    let dir = scratch("flags");
    let p = import_with(
        &dir,
        "rtx-pro-6000-4x-turin-same-numa-shm",
        "rtx-pro-6000-server",
        &[
            "--cpu-model",
            "AMD EPYC 9575F",
            "--sockets",
            "2",
            "--shm-read-efficiency",
            "0.6869",
        ],
    );
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("memory_channels = 12              # [datasheet] 12 DDR5 channels per SP5 socket"),
        "{text}"
    );
    assert!(text.contains("socket_link_bw = \"64GB/s\""), "{text}");
    let b = same_host("rtx-pro-6000-4x-turin-same-numa-shm", &p);
    assert!((b.params.host_memory_bw.as_gbps() - 430.08).abs() < 1e-6);
    assert!((b.params.inter_socket_bw.as_gbps() - 256.0).abs() < 1e-9);
    let (t, warn) = time_us(p.to_str().unwrap(), "4", "512K");
    assert_eq!((t.as_str(), warn.as_str()), ("51.62", ""));
    let (t0, _) = time_us("rtx-pro-6000-4x-turin-same-numa-shm", "4", "512K");
    assert_eq!(t, t0);
    // Without host facts: the template's 2.2 GB/s, and the warning names the imported file.
    let bare = dir.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let q = import_with(
        &bare,
        "rtx-pro-6000-4x-turin-same-numa-shm",
        "rtx-pro-6000-server",
        &[],
    );
    let (t, warn) = time_us(q.to_str().unwrap(), "4", "512K");
    assert_eq!(t, "723.84");
    assert!(warn.contains("has no [host] section"), "{warn}");
}

/// The public lscpu (Model name `AMD EPYC 9374F 32-Core Processor`, Socket(s) 2) and dmidecode (24
/// populated DIMMs → 12 per socket, Configured Memory Speed 4800 MT/s) of cloudrift's box: the preset's
/// `[host]` (12 × 4800 MT/s × 8 B × 0.7 = 322.56 GB/s per socket; links from the EPYC 9004 row, 4 × 64), and
/// its 8-GPU 1 MiB allreduce unchanged.
#[test]
fn lscpu_and_dmidecode_reproduce_the_genoa_host() {
    let dir = scratch("lscpu");
    let lscpu = data_path("lscpu/cloudrift-epyc-9374f-2s.lscpu.txt");
    let dmi = data_path("lscpu/cloudrift-epyc-9374f-2s.dmidecode.txt");
    let p = import_with(
        &dir,
        "rtx-pro-6000-ws-8x-dual-genoa-direct",
        "rtx-pro-6000-workstation",
        &[
            "--lscpu",
            lscpu.to_str().unwrap(),
            "--dmidecode",
            dmi.to_str().unwrap(),
            "--shm-read-efficiency",
            "0.5384",
        ],
    );
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.contains(
            "cpu_model = \"AMD EPYC 9374F 32-Core Processor\" # [measured] lscpu line 8 (Model name)"
        ),
        "{text}"
    );
    assert!(text.contains("# [measured] lscpu line 13 (Socket(s))"), "{text}");
    assert!(
        text.contains("# [measured] dmidecode: 24 populated DIMMs on 2 socket(s)"),
        "{text}"
    );
    assert!(
        text.contains("# [measured] dmidecode line 6 (Configured Memory Speed"),
        "{text}"
    );
    let b = same_host("rtx-pro-6000-ws-8x-dual-genoa-direct", &p);
    assert!((b.params.host_memory_bw.as_gbps() - 322.56).abs() < 1e-6);
    let (t, warn) = time_us(p.to_str().unwrap(), "8", "1M");
    let (t0, _) = time_us("rtx-pro-6000-ws-8x-dual-genoa-direct", "8", "1M");
    assert_eq!((t, warn.as_str()), (t0, ""));
}

/// Bad host input exits 2 naming the file, line and key (or the flag that is missing).
#[test]
fn bad_host_input_exits_2_naming_file_line_and_key() {
    let dir = scratch("bad");
    let topo = tpsim(&["topo", "--hardware", "rtx-pro-6000-4x-turin-same-numa-shm"]);
    let m = dir.join("m.txt");
    std::fs::write(&m, &topo.stdout).unwrap();
    let lscpu = dir.join("lscpu.txt");
    std::fs::write(
        &lscpu,
        "Model name:   AMD EPYC 9575F 64-Core Processor\nSocket(s):    two\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "import-topo",
            "--gpu",
            "rtx-pro-6000-server",
            "--cpu-vendor",
            "amd",
        ];
        a.extend_from_slice(extra);
        a.push(m.to_str().unwrap());
        tpsim(&a)
    };
    let o = run(&["--lscpu", lscpu.to_str().unwrap()]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(&format!(
            "{}: --lscpu line 2: Socket(s) `two` is not a count; expected a whole number ≥ 1",
            lscpu.display()
        )),
        "{}",
        o.stderr
    );
    // A CPU the table does not know needs its memory given.
    let o = run(&["--cpu-model", "AMD EPYC 7601", "--sockets", "2"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("give --memory-channels N"), "{}", o.stderr);
    let o = run(&["--cpu-model", "AMD EPYC 9575F", "--sockets", "9"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--sockets 9: expected 1 to 8 sockets"),
        "{}",
        o.stderr
    );
    let o = run(&[
        "--cpu-model",
        "AMD EPYC 9575F",
        "--sockets",
        "2",
        "--shm-read-efficiency",
        "1.5",
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("--shm-read-efficiency 1.5: expected a fraction in (0, 1]"),
        "{}",
        o.stderr
    );
    // A CPU model with no sockets.
    let o = run(&["--cpu-model", "AMD EPYC 9575F"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("no socket count: give --sockets N or --lscpu FILE"),
        "{}",
        o.stderr
    );
}
