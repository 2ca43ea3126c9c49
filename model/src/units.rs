//! Units: integer time in picoseconds, bytes, bandwidth in bytes per second, and the parsing of
//! human strings such as `"96GiB"`, `"53.6GB/s"` or `"1.2us"`.
//!
//! Conventions (DESIGN.md §2.1, reference/engine-memory.md):
//! - time is an integer number of picoseconds (`u64`, ≈ 213 days of range);
//! - `GB`, `MB`, `KB` are decimal (10^9, 10^6, 10^3) as in nccl-tests' GB/s; `GiB`, `MiB`, `KiB` binary.
//!   Engines print "GB" when they mean GiB: convert at the ingestion edge, never here;
//! - a bare `K`, `M`, `G` suffix on a size is binary, as nccl-tests' `-b 4K -e 256M` reads it;
//! - bandwidth is an integer number of bytes per second; a transfer time is rounded **up** to the
//!   next picosecond so that a non-empty transfer never takes zero time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::str::FromStr;

/// Error parsing a human-readable quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("empty value: expected {expected}")]
    Empty { expected: &'static str },
    #[error("`{input}` is not a number followed by a unit: expected {expected}")]
    BadNumber { input: String, expected: &'static str },
    #[error("unknown unit `{unit}` in `{input}`: expected {expected}")]
    UnknownUnit {
        input: String,
        unit: String,
        expected: &'static str,
    },
    #[error("`{input}` is negative: expected a value ≥ 0")]
    Negative { input: String },
    #[error("`{input}` is too large to represent")]
    Overflow { input: String },
}

const BYTES_EXPECTED: &str =
    "a size such as 4096, 14KB, 96GiB (B, KB, MB, GB, TB = 10^3^k; KiB, MiB, GiB, TiB, K, M, G = 2^10k)";
const TIME_EXPECTED: &str = "a duration such as 1.2us, 250µs, 30ms (ps, ns, us/µs, ms, s)";
const BW_EXPECTED: &str = "a bandwidth such as 53.6GB/s, 1.79TB/s, 900MB/s (B/s, KB/s, MB/s, GB/s, TB/s decimal; KiB/s, MiB/s, GiB/s binary)";

/// Picoseconds in one nanosecond, microsecond, millisecond and second.
pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// A span or point of simulated time, in integer picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(u64);

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        Duration(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Self {
        Duration(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        Duration(ms * PS_PER_MS)
    }
    /// Rounds a cost computed in floating point to the nearest picosecond. This is the one place
    /// where model arithmetic in `f64` crosses into scheduled integer time (rust-notes.md).
    /// Non-finite or negative inputs are clamped to 0 / `MAX` so no NaN can reach a schedule.
    pub fn from_us_f64(us: f64) -> Self {
        Self::from_ps_f64(us * PS_PER_US as f64)
    }
    /// See [`Duration::from_us_f64`].
    pub fn from_ps_f64(ps: f64) -> Self {
        if ps.is_nan() || ps <= 0.0 {
            Duration(0)
        } else if ps >= u64::MAX as f64 {
            Duration::MAX
        } else {
            Duration(ps.round() as u64)
        }
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / PS_PER_NS as f64
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / PS_PER_US as f64
    }
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / PS_PER_MS as f64
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn checked_add(self, other: Duration) -> Option<Duration> {
        self.0.checked_add(other.0).map(Duration)
    }
    pub fn saturating_sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
    /// `self × n`, saturating.
    pub fn times(self, n: u64) -> Duration {
        Duration(self.0.saturating_mul(n))
    }
}

impl Add for Duration {
    type Output = Duration;
    /// Saturating: a simulated clock that overflows 213 days has already gone wrong elsewhere,
    /// and the engine asserts its own invariants.
    fn add(self, rhs: Duration) -> Duration {
        Duration(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}
impl Sub for Duration {
    type Output = Duration;
    /// Saturating at zero.
    fn sub(self, rhs: Duration) -> Duration {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for Duration {
    /// Human form with an auto-scaled unit, e.g. `21.700 µs`, `30.12 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps < PS_PER_NS {
            write!(f, "{ps} ps")
        } else if ps < PS_PER_US {
            write!(f, "{:.3} ns", self.as_ns_f64())
        } else if ps < PS_PER_MS {
            write!(f, "{:.3} µs", self.as_us_f64())
        } else if ps < PS_PER_S {
            write!(f, "{:.3} ms", self.as_ms_f64())
        } else {
            write!(f, "{:.3} s", self.as_secs_f64())
        }
    }
}

impl FromStr for Duration {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let (num, unit) = split_number(s, TIME_EXPECTED)?;
        let factor: u128 = match unit {
            "ps" => 1,
            "ns" => PS_PER_NS as u128,
            "us" | "µs" | "μs" => PS_PER_US as u128,
            "ms" => PS_PER_MS as u128,
            "s" => PS_PER_S as u128,
            "" => {
                return Err(UnitError::UnknownUnit {
                    input: s.to_string(),
                    unit: "(none)".into(),
                    expected: TIME_EXPECTED,
                });
            }
            other => return Err(unknown(s, other, TIME_EXPECTED)),
        };
        num.scale(factor, s).map(|v| Duration(v as u64))
    }
}

/// A number of bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl Bytes {
    pub const KIB: u64 = 1 << 10;
    pub const MIB: u64 = 1 << 20;
    pub const GIB: u64 = 1 << 30;

    pub const fn get(self) -> u64 {
        self.0
    }
    pub fn from_gib_f64(gib: f64) -> Bytes {
        Bytes((gib * Self::GIB as f64).round().max(0.0) as u64)
    }
    pub fn as_kib_f64(self) -> f64 {
        self.0 as f64 / Self::KIB as f64
    }
    pub fn as_mib_f64(self) -> f64 {
        self.0 as f64 / Self::MIB as f64
    }
    pub fn as_gib_f64(self) -> f64 {
        self.0 as f64 / Self::GIB as f64
    }
    /// Decimal gigabytes (10^9 B), the unit of datasheets and nccl-tests.
    pub fn as_gb_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, rhs: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(rhs.0))
    }
}

impl fmt::Display for Bytes {
    /// Binary units with two decimals (`72.33 GiB`), plain bytes below 1 KiB.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b < Self::KIB {
            write!(f, "{b} B")
        } else if b < Self::MIB {
            write!(f, "{:.2} KiB", self.as_kib_f64())
        } else if b < Self::GIB {
            write!(f, "{:.2} MiB", self.as_mib_f64())
        } else {
            write!(f, "{:.2} GiB", self.as_gib_f64())
        }
    }
}

impl FromStr for Bytes {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let (num, unit) = split_number(s, BYTES_EXPECTED)?;
        let factor = byte_factor(unit).ok_or_else(|| unknown(s, unit, BYTES_EXPECTED))?;
        num.scale(factor, s).map(|v| Bytes(v as u64))
    }
}

fn byte_factor(unit: &str) -> Option<u128> {
    Some(match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        "KiB" | "K" | "k" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        "TiB" | "T" => 1 << 40,
        _ => return None,
    })
}

/// A data rate in bytes per second (integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bandwidth(u64);

impl Bandwidth {
    /// `None` for zero: a link that carries nothing is a configuration error, not a rate.
    pub fn from_bytes_per_s(bps: u64) -> Option<Bandwidth> {
        (bps > 0).then_some(Bandwidth(bps))
    }
    /// From decimal GB/s (10^9 B/s); `None` unless finite and > 0.
    pub fn from_gbps(gbps: f64) -> Option<Bandwidth> {
        if gbps.is_finite() && gbps > 0.0 {
            Self::from_bytes_per_s((gbps * 1e9).round() as u64)
        } else {
            None
        }
    }
    pub const fn bytes_per_s(self) -> u64 {
        self.0
    }
    pub fn as_gbps(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time to move `bytes` at this rate, rounded up to the next picosecond.
    pub fn transfer_time(self, bytes: Bytes) -> Duration {
        let num = bytes.0 as u128 * PS_PER_S as u128;
        let ps = num.div_ceil(self.0 as u128);
        Duration(u64::try_from(ps).unwrap_or(u64::MAX))
    }
    /// `self × f` for a dimensionless efficiency `f` in (0, ∞); `None` if the result is not a rate.
    pub fn scaled(self, f: f64) -> Option<Bandwidth> {
        Self::from_gbps(self.as_gbps() * f)
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.as_gbps();
        if g >= 1000.0 {
            write!(f, "{:.3} TB/s", g / 1000.0)
        } else {
            write!(f, "{g:.2} GB/s")
        }
    }
}

impl FromStr for Bandwidth {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let (num, unit) = split_number(s, BW_EXPECTED)?;
        let per_s = unit
            .strip_suffix("/s")
            .or_else(|| unit.strip_suffix("ps").filter(|u| u.ends_with('B')));
        let factor = per_s
            .filter(|u| !u.is_empty())
            .and_then(byte_factor)
            .ok_or_else(|| unknown(s, unit, BW_EXPECTED))?;
        let v = num.scale(factor, s)?;
        Bandwidth::from_bytes_per_s(v as u64).ok_or(UnitError::BadNumber {
            input: s.to_string(),
            expected: "a bandwidth > 0",
        })
    }
}

macro_rules! deserialize_from_str {
    ($t:ty, $what:expr) => {
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$t, E> {
                        s.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}
deserialize_from_str!(Duration, TIME_EXPECTED);
deserialize_from_str!(Bandwidth, BW_EXPECTED);

impl<'de> serde::Deserialize<'de> for Bytes {
    /// A string with a unit (`"96GiB"`) or a plain non-negative integer of bytes.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(BYTES_EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Bytes, E> {
                s.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes)
                    .map_err(|_| E::custom(format!("{v} is negative: expected a size ≥ 0")))
            }
        }
        d.deserialize_any(V)
    }
}

/// A non-negative decimal number kept exact: `mantissa / 10^decimals`.
struct Decimal {
    mantissa: u128,
    decimals: u32,
}

impl Decimal {
    /// `round(self × factor)`, half away from zero, in u64 range.
    fn scale(&self, factor: u128, input: &str) -> Result<u128, UnitError> {
        let overflow = || UnitError::Overflow {
            input: input.to_string(),
        };
        let num = self.mantissa.checked_mul(factor).ok_or_else(overflow)?;
        let den = 10u128.checked_pow(self.decimals).ok_or_else(overflow)?;
        let v = (num + den / 2) / den;
        if v > u64::MAX as u128 {
            Err(overflow())
        } else {
            Ok(v)
        }
    }
}

/// Splits `"53.6 GB/s"` into an exact decimal and the unit text (`"GB/s"`).
fn split_number<'a>(s: &'a str, expected: &'static str) -> Result<(Decimal, &'a str), UnitError> {
    let t = s.trim();
    if t.is_empty() {
        return Err(UnitError::Empty { expected });
    }
    if t.starts_with('-') {
        return Err(UnitError::Negative { input: s.to_string() });
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let bad = || UnitError::BadNumber {
        input: s.to_string(),
        expected,
    };
    let mut mantissa: u128 = 0;
    let mut decimals: u32 = 0;
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut end = t.len();
    for (i, c) in t.char_indices() {
        match c {
            '0'..='9' => {
                seen_digit = true;
                mantissa = mantissa
                    .checked_mul(10)
                    .and_then(|m| m.checked_add(u128::from(c as u8 - b'0')))
                    .ok_or_else(|| UnitError::Overflow { input: s.to_string() })?;
                if seen_dot {
                    decimals += 1;
                }
            }
            '.' if !seen_dot => seen_dot = true,
            '_' => {}
            _ => {
                end = i;
                break;
            }
        }
    }
    if !seen_digit {
        return Err(bad());
    }
    let mut rest = &t[end..];
    // Optional exponent: 1e9, 2.5E-3 (an `e` followed by a digit or sign+digit).
    let mut exp: i32 = 0;
    if let Some(r) = rest.strip_prefix(['e', 'E']) {
        let (neg, digits) = match r.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, r.strip_prefix('+').unwrap_or(r)),
        };
        let n = digits.chars().take_while(char::is_ascii_digit).count();
        if n > 0 {
            let e: i32 = digits[..n].parse().map_err(|_| bad())?;
            exp = if neg { -e } else { e };
            rest = &digits[n..];
        }
    }
    let mut dec = Decimal { mantissa, decimals };
    if exp >= 0 {
        let mul = 10u128
            .checked_pow(exp as u32)
            .ok_or_else(|| UnitError::Overflow { input: s.to_string() })?;
        dec.mantissa = dec
            .mantissa
            .checked_mul(mul)
            .ok_or_else(|| UnitError::Overflow { input: s.to_string() })?;
    } else {
        dec.decimals += exp.unsigned_abs();
    }
    Ok((dec, rest.trim()))
}

fn unknown(input: &str, unit: &str, expected: &'static str) -> UnitError {
    UnitError::UnknownUnit {
        input: input.to_string(),
        unit: unit.to_string(),
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_binary_and_decimal_are_distinct() {
        assert_eq!("96GiB".parse::<Bytes>().unwrap(), Bytes(96 * (1 << 30)));
        assert_eq!("96GB".parse::<Bytes>().unwrap(), Bytes(96_000_000_000));
        assert_eq!("14336".parse::<Bytes>().unwrap(), Bytes(14_336));
        assert_eq!("4K".parse::<Bytes>().unwrap(), Bytes(4096));
        assert_eq!("256M".parse::<Bytes>().unwrap(), Bytes(256 << 20));
        assert_eq!("1.5 KiB".parse::<Bytes>().unwrap(), Bytes(1536));
        // The seed's free memory after init: 94.04 GiB = 94.04 × 2^30 = 100,974,681,128.96 B → nearest byte.
        assert_eq!("94.04GiB".parse::<Bytes>().unwrap(), Bytes(100_974_681_129));
    }

    #[test]
    fn durations_are_exact_picoseconds() {
        assert_eq!("1.2us".parse::<Duration>().unwrap(), Duration::from_ps(1_200_000));
        assert_eq!("250 µs".parse::<Duration>().unwrap(), Duration::from_us(250));
        assert_eq!("30ms".parse::<Duration>().unwrap(), Duration::from_ms(30));
        assert_eq!("0.5ns".parse::<Duration>().unwrap(), Duration::from_ps(500));
        assert_eq!("1e-6s".parse::<Duration>().unwrap(), Duration::from_us(1));
    }

    #[test]
    fn bandwidth_decimal_gb() {
        let bw: Bandwidth = "53.6GB/s".parse().unwrap();
        assert_eq!(bw.bytes_per_s(), 53_600_000_000);
        assert_eq!(
            "1.79TB/s".parse::<Bandwidth>().unwrap().bytes_per_s(),
            1_790_000_000_000
        );
        assert_eq!("1GiB/s".parse::<Bandwidth>().unwrap().bytes_per_s(), 1 << 30);
        assert_eq!(
            "24GBps".parse::<Bandwidth>().unwrap().bytes_per_s(),
            24_000_000_000
        );
    }

    #[test]
    fn transfer_time_rounds_up() {
        // 14,336 B at 12.9 GB/s = 1,111.317… ns → 1,111,318 ps (rounded up).
        let bw = Bandwidth::from_gbps(12.9).unwrap();
        assert_eq!(bw.transfer_time(Bytes(14_336)), Duration::from_ps(1_111_318));
        assert_eq!(bw.transfer_time(Bytes(0)), Duration::ZERO);
    }

    #[test]
    fn bad_strings_say_what_was_expected() {
        let e = "96 GiG".parse::<Bytes>().unwrap_err();
        assert!(e.to_string().contains("unknown unit `GiG`"), "{e}");
        assert!(matches!(
            "-3ms".parse::<Duration>(),
            Err(UnitError::Negative { .. })
        ));
        assert!(matches!(
            "fast".parse::<Bandwidth>(),
            Err(UnitError::BadNumber { .. })
        ));
        assert!(matches!("".parse::<Bytes>(), Err(UnitError::Empty { .. })));
        assert!(matches!(
            "12".parse::<Duration>(),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert!(matches!(
            "53GB".parse::<Bandwidth>(),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert!(matches!(
            "0GB/s".parse::<Bandwidth>(),
            Err(UnitError::BadNumber { .. })
        ));
        assert!(matches!(
            "99999999999TiB".parse::<Bytes>(),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn from_float_never_yields_garbage() {
        assert_eq!(Duration::from_us_f64(f64::NAN), Duration::ZERO);
        assert_eq!(Duration::from_us_f64(-1.0), Duration::ZERO);
        assert_eq!(Duration::from_us_f64(f64::INFINITY), Duration::MAX);
        assert_eq!(Duration::from_us_f64(21.7), Duration::from_ps(21_700_000));
    }
}
