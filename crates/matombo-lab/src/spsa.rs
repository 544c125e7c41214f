//! Simultaneous perturbation stochastic approximation (SPSA), the tuning method of
//! `matombo tune`.

/// The SPSA gain schedule (Spall's exponents): perturbation and step size at iteration
/// `k` (from 0) of `n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// Perturbation c_k.
    pub c: f64,
    /// Step factor a_k (a multiple of c_k).
    pub a: f64,
}

/// Gains at iteration `k` of `n`, from the first perturbation `c0` and learning rate `lr`:
/// `c_k = c0 / (k+1)^0.101` and `a_k = lr / (1 + k/A)^0.602`, `A` a tenth of `n`.
pub fn gains(c0: f64, lr: f64, k: usize, n: usize) -> Gains {
    let big_a = (n as f64 / 10.0).max(1.0);
    Gains { c: c0 / ((k + 1) as f64).powf(0.101), a: lr / (1.0 + k as f64 / big_a).powf(0.602) }
}

/// One SPSA step: `theta` moves by `a·c·r·Δ`, where `r` in [-1, 1] is how much better
/// θ + c·Δ scored than θ − c·Δ (wins minus losses per game), clamped to `0..=max`.
/// With ±1 directions this is θ + a·c²·ĝ for the usual estimate ĝ = r / (c·Δ).
pub fn spsa_step(theta: &mut [f64], delta: &[f64], g: Gains, r: f64, max: f64) {
    for (t, d) in theta.iter_mut().zip(delta) {
        *t = (*t + g.a * g.c * r * d).clamp(0.0, max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_follow_spalls_exponents() {
        let g = gains(10.0, 0.5, 0, 100);
        assert_eq!(g, Gains { c: 10.0, a: 0.5 });
        let g = gains(10.0, 0.5, 9, 100);
        assert!((g.c - 10.0 / 10f64.powf(0.101)).abs() < 1e-12);
        assert!((g.a - 0.5 / 1.9f64.powf(0.602)).abs() < 1e-12);
    }

    #[test]
    fn a_step_follows_the_better_side_and_stays_in_range() {
        let mut theta = vec![100.0, 100.0, 999.0];
        spsa_step(&mut theta, &[1.0, -1.0, 1.0], Gains { c: 10.0, a: 0.5 }, 0.5, 1000.0);
        assert_eq!(theta, vec![102.5, 97.5, 1000.0]);
    }
}
