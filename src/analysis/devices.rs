//! The GPU work of each device of a rank, for the analyses that look at one device at a time
//! (`transfers`, `patterns`, `rocprof_stats`' per-GPU table), on Kineto and rocprof traces alike.
//!
//! A GPU operation's device is its `args.device` ([`IntArg::Device`]: Kineto's `device`,
//! rocprof v1's `gpu-id`, rocprofv3's agent), else, in Chrome-trace JSON, its `pid` (Kineto
//! puts each GPU in a process of its own number), else -1 (a rocprof host-to-host copy). Only
//! complete events (phase `X`) count.

use crate::model::events::IntArgsInOrder;
use crate::model::{EventId, Format, IntArg, Kind, Phase, RankTrace};

/// A GPU operation: start and end (ns, trace clock) and its row in the rank's event table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Op {
    /// Start, ns.
    pub start: i64,
    /// End, ns.
    pub end: i64,
    /// Row in the rank's events.
    pub event: EventId,
}

impl Op {
    /// Duration, ns.
    pub fn dur(&self) -> i64 {
        self.end - self.start
    }
}

/// One device's GPU work in one rank, each list in time order (start, then end).
#[derive(Debug, Clone, Default)]
pub struct DeviceOps {
    /// Device number.
    pub device: i64,
    /// Kernels.
    pub kernels: Vec<Op>,
    /// Memory copies.
    pub copies: Vec<Op>,
    /// Memory sets.
    pub memsets: Vec<Op>,
}

impl DeviceOps {
    /// Every operation (kernels, copies, memsets) in time order.
    pub fn all(&self) -> Vec<Op> {
        let mut all: Vec<Op> = self.kernels.iter().chain(&self.copies).chain(&self.memsets).copied().collect();
        // three sorted runs: the stable sort merges them
        all.sort();
        all
    }
}

/// The device of GPU event `e` (see the module doc), in a pass over rows in ascending order
/// (`args` from `r.events.int_args_in_order()`).
pub fn device_in_order(r: &RankTrace, e: EventId, args: &mut IntArgsInOrder<'_>) -> i64 {
    let table = matches!(r.format, Some(Format::RocprofV1Csv | Format::RocprofV3Csv | Format::RocprofV3Json));
    args.get(e, IntArg::Device).unwrap_or(if table { -1 } else { i64::from(r.events.pid.get(e as usize)) })
}

/// The kernels, copies and memsets of rank `r`, per device (devices ascending; devices without
/// any of them are left out).
pub fn device_ops(r: &RankTrace) -> Vec<DeviceOps> {
    let ev = &r.events;
    let mut devices: Vec<DeviceOps> = Vec::new();
    let mut args = ev.int_args_in_order();
    for e in 0..ev.len() {
        let kind = ev.kind[e];
        if !matches!(kind, Kind::Kernel | Kind::Memcpy | Kind::Memset) || ev.phase[e] != Phase::Complete {
            continue;
        }
        let device = device_in_order(r, e as EventId, &mut args);
        let d = match devices.iter().position(|d| d.device == device) {
            Some(i) => i,
            None => {
                devices.push(DeviceOps { device, ..Default::default() });
                devices.len() - 1
            }
        };
        let op = Op { start: ev.ts[e], end: ev.ts[e] + ev.dur.get(e).max(0), event: e as EventId };
        match kind {
            Kind::Kernel => devices[d].kernels.push(op),
            Kind::Memcpy => devices[d].copies.push(op),
            _ => devices[d].memsets.push(op),
        }
    }
    // mostly in start order already (a stream's work is), which the stable sort's runs exploit;
    // every op is distinct (its row), so the order is the unstable sort's
    for d in &mut devices {
        d.kernels.sort();
        d.copies.sort();
        d.memsets.sort();
    }
    devices.sort_by_key(|d| d.device);
    devices
}

/// Total length of the intersection of two merged interval lists (each sorted, disjoint), ns.
pub fn intersection(a: &[(i64, i64)], b: &[(i64, i64)]) -> i64 {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if hi > lo {
            total += hi - lo;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_of_unions() {
        assert_eq!(intersection(&[(0, 10), (20, 30)], &[(5, 25)]), 10);
        assert_eq!(intersection(&[(0, 10)], &[(10, 20)]), 0);
        assert_eq!(intersection(&[], &[(0, 5)]), 0);
        assert_eq!(intersection(&[(0, 100)], &[(1, 2), (3, 4), (50, 150)]), 52);
    }
}
