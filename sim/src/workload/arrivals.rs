//! Arrival gaps of an open-loop client (issue #18 point 2): vLLM 0.11.0 benchmarks/serve.py
//! `get_request` draws each gap from a gamma distribution with shape = `burstiness` and scale =
//! 1 / (rate · burstiness) (mean 1 / rate; burstiness 1 is the exponential gap of a Poisson process,
//! as SGLang 0.5.9 bench_serving.py `get_request` draws it); `rate = inf` sends every request at
//! once. vLLM then rescales the cumulative delays so that the last one lands at exactly N / rate;
//! that needs every gap first, so this stream, which is lazy, does not (as SGLang does not).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrivals {
    /// A closed loop: `concurrency` clients, each sending its next request when the last finished.
    Closed,
    /// An open loop: requests at `rate` per second (may be infinite) with gamma gaps of shape
    /// `burstiness`.
    Open { rate: f64, burstiness: f64 },
}

/// A uniform draw in (0, 1].
fn unit_open(rng: &mut ChaCha8Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

/// A standard normal draw (Box–Muller, two uniforms).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1 = unit_open(rng);
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A gamma(shape, 1) draw: Marsaglia and Tsang, "A simple method for generating gamma variables"
/// (ACM TOMS 26(3), 2000), with their boost `G(k) = G(k + 1) · U^(1/k)` for shape < 1; shape 1
/// is drawn directly as an exponential (one uniform).
pub fn gamma_unit(rng: &mut ChaCha8Rng, shape: f64) -> f64 {
    // Exactly 1 (the default and Poisson), compared bit for bit.
    if shape.to_bits() == 1.0f64.to_bits() {
        return -unit_open(rng).ln();
    }
    if shape < 1.0 {
        let g = gamma_unit(rng, shape + 1.0);
        return g * unit_open(rng).powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = unit_open(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// The gap before the next request, in seconds (0 at an infinite rate).
pub fn gap_s(rng: &mut ChaCha8Rng, rate: f64, burstiness: f64) -> f64 {
    if rate.is_infinite() {
        return 0.0;
    }
    gamma_unit(rng, burstiness) / (rate * burstiness)
}
