//! The fit's 95 % intervals cover the truth about 95 % of the time: 400 seeded data sets from a
//! smooth two-parameter model, y = ln(a·x + b) + N(0, 0.03²) on x = 2⁻⁶ … 2¹³ (20 rows), a = 2, b = 5.
//! This checks the robust covariance (Huber's H1 form) and the Student-t quantile, apart from tpsim.

use rand::SeedableRng;
use rand::distr::Distribution;
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use tpsim_calibrate::fit::lm;

#[test]
fn intervals_cover_the_truth_95_percent_of_the_time() {
    let xs: Vec<f64> = (0..20).map(|i| 2f64.powi(i - 6)).collect();
    let noise = Normal::new(0.0, 0.03).unwrap();
    let truth = [2f64.ln(), 5f64.ln()];
    let runs = 400;
    let mut covered = [0usize; 2];
    for seed in 0..runs {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let y: Vec<f64> = xs
            .iter()
            .map(|x| (2.0 * x + 5.0_f64).ln() + noise.sample(&mut rng))
            .collect();
        let mut model = |t: &[f64]| -> Result<Vec<f64>, ()> {
            Ok(xs.iter().map(|x| (t[0].exp() * x + t[1].exp()).ln()).collect())
        };
        let s = lm::solve(&mut model, &y, &[0.0, 0.0], &[-5.0; 2], &[5.0; 2]).unwrap();
        let t = StudentsT::new(0.0, 1.0, s.dof as f64).unwrap().inverse_cdf(0.975);
        for k in 0..2 {
            if (s.theta[k] - truth[k]).abs() <= t * s.covariance[k][k].sqrt() {
                covered[k] += 1;
            }
        }
    }
    // Found 382 and 379 of 400. Binomial(400, 0.95) has σ = 4.4 runs: accept 92–98 % (±2.7σ).
    for c in covered {
        let rate = c as f64 / runs as f64;
        assert!((0.92..=0.98).contains(&rate), "coverage {covered:?} of {runs}");
    }
}
