//! Reading input files and writing outputs safely.
//!
//! Every file tpsim and tpsim-calibrate read on a user's behalf (scenario files, `preset = "…"`
//! hardware/model/engine presets and their `config.json`/`quant.toml`, profiles, acceptance traces,
//! baselines, TSV/JSON/log inputs) goes through [`read_text`], which refuses what is not a regular
//! file (a directory, `/dev/zero`, a FIFO that would block forever) and files larger than
//! [`MAX_INPUT_BYTES`], before reading a byte of them.
//!
//! Every output file (`--out`, `--trace`, `--plot`, `regress --update`) goes through
//! [`check_output`] before the work and [`write_output`] after it: an output that is the same file
//! as one of the command's inputs (same device and inode: the same path, a symbolic or a hard link)
//! is refused, and the bytes go to a temporary file in the output's folder that is then renamed over
//! it, so a failed or interrupted write never leaves a half-written file.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The largest input file accepted: 64 MiB. The largest real inputs are measurement logs and
/// nccl-tests outputs of a few MiB (a day of SGLang server logging at one line per decode batch is
/// about 10 MiB); scenarios, presets and profiles are kilobytes. 64 MiB leaves an order of magnitude
/// of headroom while a mistaken path (a model's weights, a disk image) fails at once instead of
/// being read into memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Why a file could not be read. The message does not name the file: callers add it (with the key
/// that named the file, when there is one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The OS refused (no such file, permission denied, …).
    #[error("{0}")]
    Io(String),
    /// A directory, a device, a FIFO or a socket.
    #[error("not a regular file (a {0}): expected a file")]
    NotRegular(&'static str),
    /// Larger than [`MAX_INPUT_BYTES`].
    #[error("larger than the {} MiB an input file may have (MAX_INPUT_BYTES)", MAX_INPUT_BYTES >> 20)]
    TooLarge,
    /// Not UTF-8 text.
    #[error("not UTF-8 text: {0}")]
    NotText(String),
}

/// What kind of non-regular file `m` describes, for messages.
fn kind(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// Checks that `path` (after symbolic links) is a regular file no larger than [`MAX_INPUT_BYTES`].
pub fn check_input(path: &Path) -> Result<(), ReadError> {
    let m = std::fs::metadata(path).map_err(|e| ReadError::Io(e.to_string()))?;
    if !m.is_file() {
        return Err(ReadError::NotRegular(kind(&m)));
    }
    if m.len() > MAX_INPUT_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(())
}

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] as bytes. The bound holds while reading too
/// (a file that grows, or a pseudo-file that reports size 0).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    check_input(path)?;
    let f = std::fs::File::open(path).map_err(|e| ReadError::Io(e.to_string()))?;
    let mut bytes = Vec::new();
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// Issue #18 (load): opens a regular file to read it streaming (a request trace), without the
/// [`MAX_INPUT_BYTES`] bound: the reader bounds each record and the record count instead.
pub fn open_stream(path: &Path) -> Result<std::fs::File, ReadError> {
    let m = std::fs::metadata(path).map_err(|e| ReadError::Io(e.to_string()))?;
    if !m.is_file() {
        return Err(ReadError::NotRegular(kind(&m)));
    }
    std::fs::File::open(path).map_err(|e| ReadError::Io(e.to_string()))
}

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path)?).map_err(|e| ReadError::NotText(e.utf8_error().to_string()))
}

/// Why an output was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output is one of the command's inputs (bad input: exit 2).
    #[error(
        "{out}: refusing to write: it is the same file as the input {input}; write the output somewhere else"
    )]
    SameAsInput { out: String, input: String },
    /// The OS refused (a missing folder, permissions, a full disk; exit 1).
    #[error("{file}: cannot write: {message}")]
    Io { file: String, message: String },
}

impl WriteError {
    /// Whether it is the user's input (exit 2) rather than a failure to write (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, WriteError::SameAsInput { .. })
    }
}

/// (device, inode) of an existing file, following symbolic links.
fn identity(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses `out` when it is the same file as one of `inputs` (inputs that do not exist are
/// skipped: an output that does not exist yet cannot be one of them).
pub fn check_output<P: AsRef<Path>>(out: &Path, inputs: &[P]) -> Result<(), WriteError> {
    let Some(o) = identity(out) else {
        return Ok(());
    };
    match inputs.iter().find(|i| identity(i.as_ref()) == Some(o)) {
        Some(i) => Err(WriteError::SameAsInput {
            out: out.display().to_string(),
            input: i.as_ref().display().to_string(),
        }),
        None => Ok(()),
    }
}

/// Writes what `write` produces to `out` after [`check_output`]: into a temporary file in the same
/// folder, renamed over `out` once complete. An existing `out` that is not a regular file (e.g.
/// `/dev/null`, a FIFO) is written in place instead: a rename would replace the device.
pub fn write_output_with<P: AsRef<Path>>(
    out: &Path,
    inputs: &[P],
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    check_output(out, inputs)?;
    let io = |e: std::io::Error| WriteError::Io {
        file: out.display().to_string(),
        message: e.to_string(),
    };
    if std::fs::metadata(out).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(out).map_err(io)?;
        return write(&mut f).and_then(|()| f.flush()).map_err(io);
    }
    let tmp = temporary_beside(out);
    let result = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(f);
        write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, out)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// [`write_output_with`] for bytes already in memory.
pub fn write_output<P: AsRef<Path>>(out: &Path, inputs: &[P], bytes: &[u8]) -> Result<(), WriteError> {
    write_output_with(out, inputs, |w| w.write_all(bytes))
}

/// Issue #17 (`tpsim-calibrate run-engine`): `out` created (truncated) after [`check_output`], as a
/// `File` another process can write to (a server's log, its standard output and error).
pub fn create_output_file<P: AsRef<Path>>(out: &Path, inputs: &[P]) -> Result<std::fs::File, WriteError> {
    check_output(out, inputs)?;
    std::fs::File::create(out).map_err(|e| WriteError::Io {
        file: out.display().to_string(),
        message: e.to_string(),
    })
}

/// `DIR/.NAME.tmp-PID` beside `out`: the same file system, so the rename is atomic.
fn temporary_beside(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_directories_and_fifos_before_reading() {
        assert_eq!(
            read_text(Path::new("/dev/zero")),
            Err(ReadError::NotRegular("character device"))
        );
        assert_eq!(read_text(Path::new("/")), Err(ReadError::NotRegular("directory")));
        assert!(matches!(
            read_text(Path::new("/nonexistent/x")),
            Err(ReadError::Io(_))
        ));
        let d = std::env::temp_dir().join(format!("tpsim-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let big = d.join("big");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap(); // sparse: no disk used
        assert_eq!(read_text(&big), Err(ReadError::TooLarge));
        let bin = d.join("bin");
        std::fs::write(&bin, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&bin), Err(ReadError::NotText(_))));
        std::fs::write(&bin, "ok").unwrap();
        assert_eq!(read_text(&bin).unwrap(), "ok");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn outputs_never_overwrite_inputs_and_land_whole() {
        let d = std::env::temp_dir().join(format!("tpsim-files-out-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let input = d.join("in.toml");
        std::fs::write(&input, "input").unwrap();
        // The same path, another spelling of it, a symbolic link and a hard link to it.
        let sym = d.join("sym.toml");
        let hard = d.join("hard.toml");
        std::os::unix::fs::symlink(&input, &sym).unwrap();
        std::fs::hard_link(&input, &hard).unwrap();
        let dotted = d.join(".").join("in.toml");
        for out in [&input, &sym, &hard, &dotted] {
            let e = write_output(out, &[&input], b"x").unwrap_err();
            assert!(e.is_bad_input(), "{e}");
            assert!(e.to_string().contains("same file as the input"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "input");
        // Another file: written whole, no temporary left behind.
        let out = d.join("out.json");
        write_output(&out, &[&input], b"{}").unwrap();
        write_output(&out, &[&input], b"{\"a\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"a\": 1}");
        let names: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
        // A failing writer leaves the old file and no temporary.
        let e = write_output_with(&out, &[&input], |_| Err(std::io::Error::other("boom"))).unwrap_err();
        assert!(!e.is_bad_input() && e.to_string().contains("boom"), "{e}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"a\": 1}");
        // A device is written in place, not replaced.
        write_output(Path::new("/dev/null"), &[&input], b"x").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
