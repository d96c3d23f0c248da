//! The options of a diff, declared once ([`OPTIONS`]) for the page's Diff form and the flags of
//! `kinetoscope diff`, and their checked values ([`DiffOptions`], [`DiffOptions::from_params`]).

use super::hta::Device;
use crate::analysis::api::{AnalysisError, Opt, OptKind, Params};
use crate::analysis::decode::{start_kernel, step_name, DecodeOptions, DEFAULT_START_KERNEL};

/// The options of a diff (the flags of `kinetoscope diff` that are not inputs, ranks, the mode or
/// output choices).
pub const OPTIONS: &[Opt] = &[
    Opt { name: "by", kind: OptKind::Str, default: "op", help: "The main comparison (first table, charted): operators, GPU kernels, kernel types, steps or user annotations" },
    Opt { name: "device", kind: OptKind::Str, default: "all", help: "Events the comparison by operator counts: all, cpu (stream -1) or gpu" },
    Opt { name: "short_names", kind: OptKind::Bool, default: "false", help: "Compare short names (templates and argument lists removed; HTA's use_short_name)" },
    Opt { name: "iteration", kind: OptKind::Str, default: "", help: "Compare this profiler step only (empty: the average over every complete step; HTA mode: the first)" },
    Opt { name: "test_iteration", kind: OptKind::Str, default: "", help: "The test run's step, when its number differs (empty: the same as iteration)" },
    Opt { name: "start_kernel", kind: OptKind::Str, default: DEFAULT_START_KERNEL, help: "Decode steps (diff_decode) are cut at the first GPU operation containing this (none: at the step start)" },
    Opt { name: "step_name", kind: OptKind::Str, default: "", help: "The steps of diff_decode are the CPU-side events with exactly this name (e.g. execute_model; empty: ProfilerStep#N / ProfileStep#N)" },
    Opt { name: "by_launch", kind: OptKind::Bool, default: "false", help: "diff_decode counts a step's GPU operations by launch (correlation id), wherever they run, not by the step's window" },
];

/// The values an option of [`OPTIONS`] may take (empty: any text of its kind).
pub fn choices(name: &str) -> Vec<&'static str> {
    match name {
        "by" => By::ALL.iter().map(|b| b.as_str()).collect(),
        "device" => Device::ALL.iter().map(|d| d.as_str()).collect(),
        _ => Vec::new(),
    }
}

/// What the main comparison is by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Operators (every event of the selected device) by name.
    Op,
    /// GPU kernels, memcpy, memset by name.
    Kernel,
    /// GPU work by kernel type.
    Type,
    /// Profiler steps, the n-th against the n-th.
    Step,
    /// User annotations by name.
    Annotation,
}

impl By {
    /// Every choice, in the order of the tables.
    pub const ALL: [By; 5] = [By::Op, By::Kernel, By::Type, By::Step, By::Annotation];

    /// `op`, `kernel`, `type`, `step`, `annotation`.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Op => "op",
            By::Kernel => "kernel",
            By::Type => "type",
            By::Step => "step",
            By::Annotation => "annotation",
        }
    }

    /// The choice spelled `s`.
    pub fn parse(s: &str) -> Option<By> {
        By::ALL.into_iter().find(|b| b.as_str() == s.trim())
    }

    /// Heading of the key column.
    pub(super) fn key_column(self) -> &'static str {
        match self {
            By::Type => "kernel_type",
            By::Annotation => "annotation",
            By::Step => "step",
            By::Op | By::Kernel => "name",
        }
    }
}

/// Options of `report`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOptions {
    /// The main comparison (first table, charted).
    pub by: By,
    /// Rows `diff_by_op` counts.
    pub device: Device,
    /// Compare operator and kernel names shortened (§1.12).
    pub short_names: bool,
    /// Compare this step only (`None`: the average over every complete step).
    pub iteration: Option<i64>,
    /// The test side's step when it differs from `iteration` (HTA's `test_iteration`).
    pub test_iteration: Option<i64>,
    /// How decode steps are found for `diff_decode`.
    pub decode: DecodeOptions,
}

impl DiffOptions {
    /// The steps compared on the control and on the test side.
    pub(super) fn iterations(&self) -> (Option<i64>, Option<i64>) {
        (self.iteration, self.test_iteration.or(self.iteration))
    }
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            by: By::Op,
            device: Device::All,
            short_names: false,
            iteration: None,
            test_iteration: None,
            decode: DecodeOptions::default(),
        }
    }
}

impl DiffOptions {
    /// The options `params` (of [`OPTIONS`]) hold, checked: `by` and `device` one of their
    /// [`choices`], steps integers or empty.
    pub fn from_params(params: &Params) -> Result<DiffOptions, AnalysisError> {
        let by = params.str("by");
        let by = By::parse(by).ok_or_else(|| one_of("by", by))?;
        let device = params.str("device");
        let device = Device::parse(device).ok_or_else(|| one_of("device", device))?;
        let step = |name: &str| match params.str(name).trim() {
            "" => Ok(None),
            n => n.parse::<i64>().map(Some).map_err(|_| AnalysisError(format!("option '{name}': expected an integer, found '{n}'"))),
        };
        let (iteration, test_iteration) = (step("iteration")?, step("test_iteration")?);
        let mut o = DiffOptions { by, device, short_names: params.bool("short_names"), iteration, test_iteration, ..Default::default() };
        o.decode.start_kernel = start_kernel(params.str("start_kernel"));
        o.decode.step_name = step_name(params.str("step_name"));
        o.decode.by_launch = params.bool("by_launch");
        Ok(o)
    }
}

fn one_of(name: &str, found: &str) -> AnalysisError {
    AnalysisError(format!("option '{name}': expected one of {}, found '{found}'", choices(name).join(", ")))
}
