//! Percentiles of timings and the way benchmark tables print numbers.

use std::time::Duration;

/// Sorted timings of one class of calls.
pub struct Timings(Vec<Duration>);

impl Timings {
    pub fn new(mut samples: Vec<Duration>) -> Timings {
        samples.sort_unstable();
        Timings(samples)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The nearest-rank percentile (`p` in 0..=100); zero when there are no samples.
    pub fn percentile(&self, p: u32) -> Duration {
        if self.0.is_empty() {
            return Duration::ZERO;
        }
        let rank = (u64::from(p) * self.0.len() as u64).div_ceil(100).max(1) as usize;
        self.0[rank.min(self.0.len()) - 1]
    }

    pub fn max(&self) -> Duration {
        self.0.last().copied().unwrap_or_default()
    }
}

/// A duration as a person reads it: microseconds below a millisecond, then milliseconds,
/// then seconds.
pub fn duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.0} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.2} ms", micros / 1_000.0)
    } else {
        format!("{:.2} s", micros / 1_000_000.0)
    }
}

/// A byte count in B, KiB or MiB.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}

/// How much smaller `after` is than `before`, as a percentage.
pub fn reduction(before: u64, after: u64) -> f64 {
    if before == 0 {
        return 0.0;
    }
    100.0 * (before as f64 - after as f64) / before as f64
}

/// The machine's load averages (1, 5, 15 minutes) as `/proc/loadavg` reports them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let timings = Timings::new((1..=100).rev().map(Duration::from_millis).collect());
        assert_eq!(timings.percentile(50), Duration::from_millis(50));
        assert_eq!(timings.percentile(99), Duration::from_millis(99));
        assert_eq!(timings.percentile(100), Duration::from_millis(100));
        assert_eq!(timings.percentile(0), Duration::from_millis(1));
        assert_eq!(Timings::new(vec![]).percentile(50), Duration::ZERO);
        let one = Timings::new(vec![Duration::from_micros(7)]);
        assert_eq!(one.percentile(99), Duration::from_micros(7));
    }

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(duration(Duration::from_micros(420)), "420 µs");
        assert_eq!(duration(Duration::from_micros(4_200)), "4.20 ms");
        assert_eq!(duration(Duration::from_millis(2_500)), "2.50 s");
        assert_eq!(bytes(2048), "2.0 KiB");
        assert_eq!(reduction(200, 50), 75.0);
    }
}
