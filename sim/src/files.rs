//! Reading input files safely: every file tpsim and tpsim-calibrate read on a user's behalf (scenario
//! files, `preset = "…"` hardware/model/engine presets and their `config.json`/`quant.toml`, profiles,
//! acceptance traces, baselines, TSV/JSON/log inputs) goes through [`read_text`], which refuses what
//! is not a regular file (a directory, `/dev/zero`, a FIFO that would block forever) and files larger
//! than [`MAX_INPUT_BYTES`], before reading a byte of them.

use std::io::Read;
use std::path::Path;

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

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path)?).map_err(|e| ReadError::NotText(e.utf8_error().to_string()))
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
}
