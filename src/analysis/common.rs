//! Building blocks shared by the HTA analyses: kernel-type classification (SPEC §1.10), interval
//! merging (§1.11), name shortening (§1.12) and pandas' statistics (`describe`, sample `std`,
//! linear `quantile`, numpy `round`), all on integer ns with floats only at the edges.

use crate::model::{Kind, RankTrace};

use super::hta_frame::HtaFrame;

/// HTA's kernel classes (§1.10), with their bit in HTA's overlap encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelType {
    /// Compute kernels (bit 1).
    Computation,
    /// NCCL/RCCL communication kernels (bit 2).
    Communication,
    /// Memcpy/memset (bit 4).
    Memory,
    /// Everything else (synchronisation).
    Other,
}

impl KernelType {
    /// HTA's upper-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelType::Computation => "COMPUTATION",
            KernelType::Communication => "COMMUNICATION",
            KernelType::Memory => "MEMORY",
            KernelType::Other => "OTHER",
        }
    }

    /// HTA's bit for the overlap states (`COMPUTATION` 1, `COMMUNICATION` 2, `MEMORY` 4).
    pub fn bit(self) -> u8 {
        match self {
            KernelType::Computation => 1,
            KernelType::Communication => 2,
            KernelType::Memory => 4,
            KernelType::Other => 0,
        }
    }
}

/// `re.match(r"^nccl.*Kernel", name)`.
fn is_comm_name(name: &str) -> bool {
    name.strip_prefix("nccl").is_some_and(|rest| first_line(rest).contains("Kernel"))
}

/// The part of `s` a regex `.*` can cover (`.` does not match a line feed).
fn first_line(s: &str) -> &str {
    s.split('\n').next().unwrap_or("")
}

/// HTA's kernel type of a GPU event name (`get_kernel_type`, §1.10), regexes spelled out:
/// COMMUNICATION `^nccl.*Kernel`; MEMORY `^(Memcpy|Memset|dma)`; COMPUTATION unless the name
/// matches `^nccl.*Kernel`, contains `Memcpy`, starts with `Memset` or contains `Sync`; else
/// OTHER. (`Stream Wait Event` is therefore COMPUTATION in HTA.)
pub fn hta_kernel_type(name: &str) -> KernelType {
    if is_comm_name(name) {
        KernelType::Communication
    } else if name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma") {
        KernelType::Memory
    } else if !(first_line(name).contains("Memcpy") || name.starts_with("Memset") || first_line(name).contains("Sync")) {
        KernelType::Computation
    } else {
        KernelType::Other
    }
}

/// The kernel type of a GPU row: HTA's by name; without `--hta` a synchronisation event
/// (`cuda_sync`: `Stream Wait Event`, `Stream Sync`, ...) is always OTHER (SPEC §5.4).
pub fn kernel_type(name: &str, kind: Kind, hta: bool) -> KernelType {
    if !hta && kind == Kind::CudaSync {
        return KernelType::Other;
    }
    hta_kernel_type(name)
}

/// HTA's memory subtype (`get_memory_kernel_type`): `Memset`, `Memcpy Unknown` for names not
/// starting with `Memcpy`, else the first 11 characters (`Memcpy DtoH`, `Memcpy HtoD`, ...).
pub fn memory_kernel_type(name: &str) -> String {
    if name.starts_with("Memset") {
        "Memset".into()
    } else if !name.starts_with("Memcpy") {
        "Memcpy Unknown".into()
    } else {
        name.chars().take(11).collect()
    }
}

/// HTA's "GPU events" of a frame: rows with `stream != -1` (kernels, memcpy, memset and, in
/// HTA, `cuda_sync` events). Without `--hta`, synchronisation events are not GPU work and are
/// left out (SPEC §5.4: HTA counts a `Context Sync` as busy GPU time).
pub fn gpu_rows(f: &HtaFrame, r: &RankTrace, hta: bool) -> Vec<usize> {
    (0..f.len()).filter(|&i| f.stream[i] != -1 && (hta || r.events.kind[f.row[i] as usize] != Kind::CudaSync)).collect()
}

/// `merge_kernel_intervals` (§1.11): `[start, end)` intervals sorted (by start, then end) and
/// merged; touching intervals merge. Returns merged intervals in time order. Times are ns
/// (`i64`), or HTA's µs floats (`f64`) where an analysis must round like HTA; NaN never occurs
/// (HTA drops rows without `dur`).
pub fn merge_intervals<T: Copy + PartialOrd>(mut iv: Vec<(T, T)>) -> Vec<(T, T)> {
    iv.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let mut out: Vec<(T, T)> = Vec::with_capacity(iv.len());
    for (s, e) in iv {
        match out.last_mut() {
            Some(last) if s <= last.1 => {
                if e > last.1 {
                    last.1 = e;
                }
            }
            _ => out.push((s, e)),
        }
    }
    out
}

/// Total length of merged intervals, ns.
pub fn covered(merged: &[(i64, i64)]) -> i64 {
    merged.iter().map(|(s, e)| e - s).sum()
}

/// `shorten_name` (§1.12): memory names and names without `<`/`(` unchanged; otherwise template
/// arguments and parameter lists are removed and the last space-separated token is kept
/// (`void foo<int>(float)` → `foo`).
pub fn shorten_name(name: &str) -> String {
    if hta_kernel_type(name) == KernelType::Memory || !name.contains(['<', '(']) {
        return name.to_string();
    }
    let s = name.replace("->", "");
    let mut stack: Vec<char> = Vec::new();
    for c in s.chars() {
        let open = match c {
            '>' => Some('<'),
            ')' => Some('('),
            _ => None,
        };
        match open {
            Some(o) => {
                while let Some(x) = stack.pop() {
                    if x == o {
                        break;
                    }
                }
            }
            None => stack.push(c),
        }
    }
    let joined: String = stack.into_iter().collect();
    joined.split(' ').next_back().unwrap_or("").to_string()
}

/// `s` after a count other than 1 (`format!("{n} step{}", plural(n))`).
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// ns → µs as a float (output edge).
pub fn us(ns: i64) -> f64 {
    ns as f64 / 1000.0
}

/// numpy's `around(x, decimals)` (what pandas' `round` does): scale, round half to even, unscale.
pub fn np_round(x: f64, decimals: i32) -> f64 {
    let p = 10f64.powi(decimals);
    (x * p).round_ties_even() / p
}

/// pandas `describe()` of a numeric series: count, mean, sample std (NaN below 2 values), min,
/// quartiles with linear interpolation, max. NaN values are skipped, as pandas does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Describe {
    /// Number of non-NaN values.
    pub count: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (ddof = 1).
    pub std: f64,
    /// Minimum.
    pub min: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// Maximum.
    pub max: f64,
}

impl Describe {
    /// Column suffixes in pandas' order.
    pub const STATS: [&'static str; 8] = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"];

    /// `series.describe()`.
    pub fn of(values: &[f64]) -> Describe {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        v.sort_by(f64::total_cmp);
        Describe {
            count: v.len() as f64,
            mean: mean(&v),
            std: std(&v),
            min: v.first().copied().unwrap_or(f64::NAN),
            p25: quantile_sorted(&v, 0.25),
            p50: quantile_sorted(&v, 0.5),
            p75: quantile_sorted(&v, 0.75),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }

    /// The values in [`Describe::STATS`] order.
    pub fn values(&self) -> [f64; 8] {
        [self.count, self.mean, self.std, self.min, self.p25, self.p50, self.p75, self.max]
    }
}

/// Mean as pandas computes it (sum in order, then divide); NaN when empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample standard deviation (ddof = 1) as pandas computes it (two-pass); NaN below 2 values.
pub fn std(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    let m = mean(v);
    let ss: f64 = v.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (v.len() - 1) as f64).sqrt()
}

/// numpy's linear-interpolation quantile of sorted values; NaN when empty. Interpolates as
/// numpy's `_lerp` does (`a + (b - a)·t` below `t = 0.5`, `b - (b - a)·(1 - t)` from there), so
/// the result is bit-identical to pandas' `quantile`/`describe`.
pub fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = (v.len() - 1) as f64 * q;
    let lo = (pos.floor().max(0.0) as usize).min(v.len() - 1);
    let hi = (lo + 1).min(v.len() - 1);
    let t = pos - lo as f64;
    let (a, b) = (v[lo], v[hi]);
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_types_follow_hta_regexes() {
        use KernelType::*;
        assert_eq!(hta_kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), Communication);
        assert_eq!(hta_kernel_type("ncclKernel_SendRecv"), Communication);
        assert_eq!(hta_kernel_type("nccl:all_reduce"), Computation);
        assert_eq!(hta_kernel_type("Memcpy HtoD (Pageable -> Device)"), Memory);
        assert_eq!(hta_kernel_type("Memset (Device)"), Memory);
        assert_eq!(hta_kernel_type("dma_copy"), Memory);
        assert_eq!(hta_kernel_type("Stream Wait Event"), Computation);
        assert_eq!(hta_kernel_type("Context Sync"), Other);
        assert_eq!(hta_kernel_type("void at::native::MemcpyKernel"), Other);
        assert_eq!(hta_kernel_type("xMemset"), Computation);
        assert_eq!(hta_kernel_type("ampere_sgemm_128x64_nn"), Computation);
        assert_eq!(kernel_type("Stream Wait Event", Kind::CudaSync, false), Other);
        assert_eq!(kernel_type("Stream Wait Event", Kind::CudaSync, true), Computation);
    }

    #[test]
    fn memory_subtypes() {
        assert_eq!(memory_kernel_type("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD");
        assert_eq!(memory_kernel_type("Memset (Device)"), "Memset");
        assert_eq!(memory_kernel_type("dma_x"), "Memcpy Unknown");
    }

    #[test]
    fn intervals_merge_when_touching() {
        assert_eq!(merge_intervals(vec![(5, 8), (0, 2), (2, 3), (7, 10)]), vec![(0, 3), (5, 10)]);
        assert_eq!(covered(&merge_intervals(vec![(0, 10), (1, 2)])), 10);
    }

    #[test]
    fn shortened_names() {
        assert_eq!(shorten_name("void foo<int>(float)"), "foo");
        assert_eq!(shorten_name("aten::add"), "aten::add");
        assert_eq!(shorten_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"), "at::native::vectorized_elementwise_kernel");
        assert_eq!(shorten_name("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
    }

    #[test]
    fn pandas_statistics() {
        let d = Describe::of(&[1.0, 2.0, 3.0, 4.0, f64::NAN]);
        assert_eq!(d.values(), [4.0, 2.5, 1.2909944487358056, 1.0, 1.75, 2.5, 3.25, 4.0]);
        assert!(Describe::of(&[7.0]).std.is_nan());
        // numpy's lerp from the upper end for t >= 0.5 (values from np.percentile)
        assert_eq!(quantile_sorted(&[6.95, 15.96, 16.81, 52.74], 0.9), 41.961000000000006);
        assert_eq!(quantile_sorted(&[0.1, 0.7, 1.3, 2.9, 3.3], 0.8), 2.98);
        assert_eq!(quantile_sorted(&[1.0, 2.0], 1.0), 2.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
        assert_eq!(np_round(0.125, 2), 0.12);
        assert_eq!(np_round(53.555, 2), 53.56);
        assert_eq!(np_round(2.5, 0), 2.0);
    }
}
