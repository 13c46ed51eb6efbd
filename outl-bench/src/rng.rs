//! A small seeded random number generator with a fixed algorithm, so that a generated
//! workspace is the same bytes for the same seed on every platform and every release.
//!
//! xoshiro256** (Blackman and Vigna), seeded through SplitMix64. Integer arithmetic only:
//! floating-point functions (`ln`, `exp`) may round differently across platforms, and one
//! different bit would change every page after it.

pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut mix = seed;
        let mut next = || {
            mix = mix.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = mix;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng {
            state: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (`n > 0`), without modulo bias (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let threshold = n.wrapping_neg() % n;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(n);
            if (product as u64) >= threshold {
                return (product >> 64) as u64;
            }
        }
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below((high - low) as u64 + 1) as usize
    }

    /// True `percent` times in a hundred.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// One word of a word list.
    pub fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len() as u64) as usize]
    }

    /// An index into `weights`, each chosen in proportion to its weight.
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        for (i, &weight) in weights.iter().enumerate() {
            if roll < weight {
                return i;
            }
            roll -= weight;
        }
        weights.len() - 1
    }

    /// A Pareto-distributed size (tail exponent 1: `P(X >= x) = scale / x`), at least 1 and
    /// at most `cap`: most draws are near `scale`, a few are hundreds of times larger, the
    /// long tail of real notes where a handful of pages hold a large share of the text.
    pub fn heavy_tail(&mut self, scale: u64, cap: u64) -> u64 {
        let uniform = self.next_u64() >> 32; // 0..2^32
        let draw = (scale << 32) / (uniform + 1);
        draw.clamp(1, cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_fixed() {
        // Reference values of xoshiro256** seeded by SplitMix64 from 0: if these change, every
        // generated workspace changes with them.
        let mut rng = Rng::new(0);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                0x99ec_5f36_cb75_f2b4,
                0xbf6e_1f78_4956_452a,
                0x1a5f_849d_4933_e6e0
            ]
        );
    }

    #[test]
    fn below_and_weighted_stay_in_range() {
        let mut rng = Rng::new(7);
        let mut seen = [0usize; 5];
        for _ in 0..10_000 {
            seen[rng.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 1_500), "{seen:?}");
        let mut picks = [0usize; 3];
        for _ in 0..10_000 {
            picks[rng.weighted(&[1, 0, 3])] += 1;
        }
        assert_eq!(picks[1], 0);
        assert!(picks[2] > 2 * picks[0], "{picks:?}");
    }

    #[test]
    fn heavy_tail_has_a_median_near_scale_and_a_long_tail() {
        let mut rng = Rng::new(3);
        let mut draws: Vec<u64> = (0..20_000).map(|_| rng.heavy_tail(4, 1_000)).collect();
        draws.sort_unstable();
        let median = draws[draws.len() / 2];
        assert!((6..=10).contains(&median), "median {median}");
        assert!(draws.iter().all(|&d| (1..=1_000).contains(&d)));
        let large = draws.iter().filter(|&&d| d >= 100).count();
        // P(X >= 100) = 4 / 100.
        assert!(
            (500..1_100).contains(&large),
            "{large} draws of 100 or more"
        );
    }
}
