//! The memory a server process holds, as Linux reports it.

/// Resident memory of a process.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// VmRSS: resident now.
    pub resident: u64,
    /// VmHWM: the most it was ever resident.
    pub peak: u64,
}

impl Memory {
    /// From `/proc/PID/status`; `None` where there is none (not Linux, or the process ended).
    pub fn of(pid: u32) -> Option<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map(|kib| kib * 1024)
        };
        Some(Memory {
            resident: field("VmRSS:")?,
            peak: field("VmHWM:")?,
        })
    }
}
