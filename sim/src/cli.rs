//! (in progress)
use std::io::Write;
pub fn main_with_args(_args: &[std::ffi::OsString], _out: &mut dyn Write, _err: &mut dyn Write) -> i32 {
    0
}
