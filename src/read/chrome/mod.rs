//! Chrome Trace Event Format reader: turns one event object at a time into model rows.
//!
//! Supports what PyTorch's profiler (Kineto) wrote from 2020 to today and its relatives:
//! * phases `X` (complete), `B`/`E` (paired per thread into one row), `i`/`I`, `C` (counter
//!   samples from `args`), `M` (process/thread names; not stored as rows), flows `s`/`t`/`f`,
//!   async `b`/`e`/`n`;
//! * `ts`/`dur` in µs as integers, decimals (exact to the ns) or strings (rocprof v1);
//! * `pid`/`tid` as integers (negative too) or strings (`"13006(Python)"`, `"Traces"`);
//! * args spelling drift: `External id`/`external id`, `correlation`/`correlation_id`/
//!   `correlation id` (Paddle)/`cid`, `bytes`/`size`;
//! * top-level `schemaVersion`, `displayTimeUnit`, `baseTimeNanoseconds`, `distributedInfo`,
//!   `deviceProperties` (or `computeProperties`), `traceName`.
//!
//! Spec: <https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU>.
//! Kineto's writer: `libkineto/src/output_json.cpp`. Which file shows which variant:
//! `../shared/traces/MANIFEST.md`.
//!
//! Here: an event object's fields, its row, the per-thread `B`/`E` pairing and the tallies.
//! `args.rs`: the `args` the model keeps. `meta.rs`: the top-level keys besides `traceEvents`.

mod args;
mod meta;
mod repeat;

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHasher};

use crate::error::{excerpt, WarningKind};
use crate::model::events::flags;
use crate::model::kind::ALL_KINDS;
use crate::model::strings::split_timing_suffix;
use crate::model::time::us_text_to_ns;
use crate::model::{EventId, IdValue, IntArg, Kind, NewEvent, Phase, RankTrace, Strings};
use crate::read::json::{Gaps, JVal, ObjectReader};
use crate::read::scan::ScanSink;
use args::{parse_args, ArgVals};
use repeat::{Effect, Repeat, Warned};

/// Hints gathered while reading that decide which flavor of Chrome JSON this was.
#[derive(Debug, Default, Clone)]
pub struct FlavorHints {
    /// PaddlePaddle markers seen (top-level `ExtraInfo`/`span_index`, `ProfileStep` cat).
    pub paddle: bool,
    /// `ts` given as a string (rocprof v1).
    pub string_times: bool,
    /// Kineto categories seen.
    pub kineto: bool,
}

/// Per-event counters kept as arrays (no allocation per event); turned into
/// [`crate::model::EventCounts`] maps when the file ends.
pub(super) struct Tally {
    pub(super) kinds: [u64; 64],
    /// By category string id.
    pub(super) cats: Vec<u64>,
    /// By `ph` byte (`?` when absent).
    pub(super) phases: [u64; 256],
}

impl Default for Tally {
    fn default() -> Self {
        Tally { kinds: [0; 64], cats: Vec::new(), phases: [0; 256] }
    }
}

/// Reading state for one Chrome-trace file.
#[derive(Default)]
pub struct ChromeState {
    pub(super) counts: Tally,
    /// Open `B` events per (pid, tid), with their byte offsets.
    pub(super) open: FxHashMap<(u32, u32), Vec<(EventId, u64)>>,
    /// Reading one block of a file (`super::blocks`): an `E` with no open `B` is kept in
    /// `pending_ends` (its `B` may be in an earlier block) instead of being reported.
    pub(super) defer_ends: bool,
    /// The `E` events kept by `defer_ends`, in file order.
    pub(super) pending_ends: Vec<PendingEnd>,
    /// Flavor hints.
    pub hints: FlavorHints,
    /// Cached kind per category id.
    pub(super) kinds: FxHashMap<u32, Kind>,
    /// The last `pid`s, `tid`s (two distinct ones each) and `cat` read, with what they gave:
    /// consecutive events mostly repeat them, and comparing a few bytes costs less than parsing
    /// and interning them again.
    pub(super) last_pid: [Last<u32>; 2],
    pub(super) last_tid: [Last<u32>; 2],
    pub(super) last_cat: Last<(crate::model::StrId, Kind)>,
    /// The gaps between values that events and their `args` repeat (see [`Gaps`]).
    pub(super) gaps: KeyGaps,
    /// The warnings the element being read gave, and what the last element did if it left no
    /// row (see [`ChromeSink::repeat_last`]).
    pub(super) warned: Warned,
    pub(super) repeat: Option<Repeat>,
}

/// The [`Gaps`] of a file's event objects and of their `args`.
#[derive(Default)]
pub(super) struct KeyGaps {
    event: Gaps,
    args: Gaps,
}

/// The codes of the event keys [`ChromeSink::parse`] reads.
mod key {
    pub const PH: u8 = 0;
    pub const NAME: u8 = 1;
    pub const CAT: u8 = 2;
    pub const TS: u8 = 3;
    pub const DUR: u8 = 4;
    pub const PID: u8 = 5;
    pub const TID: u8 = 6;
    pub const ID: u8 = 7;
    pub const ARGS: u8 = 8;
    pub const OTHER: u8 = 9;

    /// The code of key `k`.
    pub fn of(k: &str) -> u8 {
        match k {
            "ph" => PH,
            "name" => NAME,
            "cat" => CAT,
            "ts" => TS,
            "dur" => DUR,
            "pid" => PID,
            "tid" => TID,
            "id" => ID,
            "args" => ARGS,
            _ => OTHER,
        }
    }
}

/// A short JSON value (number or string, up to 24 bytes) and what it gave (see
/// [`ChromeState`]'s `last_pid`).
pub(super) struct Last<T> {
    bytes: [u8; 24],
    len: usize,
    text: bool,
    value: Option<T>,
}

impl<T> Default for Last<T> {
    fn default() -> Self {
        Last { bytes: [0; 24], len: 0, text: false, value: None }
    }
}

impl<T: Copy> Last<T> {
    /// What `v` (`text`: a string) gave, if it is the value seen last.
    #[inline]
    fn peek(&self, text: bool, v: &[u8]) -> Option<T> {
        self.value.filter(|_| self.text == text && crate::model::strings::same_bytes(&self.bytes[..self.len], v))
    }

    /// Remembers what `v` gave (nothing for a value longer than 24 bytes).
    fn set(&mut self, text: bool, v: &[u8], value: T) {
        if v.len() <= self.bytes.len() {
            self.bytes[..v.len()].copy_from_slice(v);
            (self.len, self.text, self.value) = (v.len(), text, Some(value));
        } else {
            self.value = None;
        }
    }
}

/// An `E` event whose `B` was not in the same block (see [`ChromeState::defer_ends`]).
#[derive(Debug, Clone)]
pub(super) struct PendingEnd {
    pub(super) pid: u32,
    pub(super) tid: u32,
    pub(super) ts: i64,
    pub(super) offset: u64,
    pub(super) name: crate::model::StrId,
    /// Distinct warnings the block had when this `E` was read (where its warning would go).
    pub(super) warnings_before: usize,
}

/// A [`ScanSink`] writing into a rank.
pub struct ChromeSink<'a> {
    /// State that survives between chunks.
    pub st: &'a mut ChromeState,
    /// The rank being built.
    pub rank: &'a mut RankTrace,
    /// File name for warnings.
    pub file: &'a str,
}

/// Fields of one event as found in its object.
#[derive(Default)]
struct Fields<'a> {
    ph: Option<Cow<'a, str>>,
    name: Option<JVal<'a>>,
    cat: Option<Cow<'a, str>>,
    ts: Option<JVal<'a>>,
    dur: Option<JVal<'a>>,
    pid: Option<JVal<'a>>,
    tid: Option<JVal<'a>>,
    id: Option<JVal<'a>>,
    args: Option<&'a [u8]>,
    /// What `args` holds that the model keeps (`None` if there is no readable `args` object).
    argv: Option<ArgVals>,
    /// Number of keys (0 for a `{}` placeholder).
    entries: u32,
    /// Warnings found while parsing, emitted only once the event is committed (parsing may be
    /// attempted on an incomplete buffer first, see `event_direct`).
    warns: Vec<(WarningKind, String)>,
}

fn id_value(v: &JVal<'_>, strings: &mut Strings) -> IdValue {
    match v {
        JVal::Num(t) => match crate::read::json::parse_int(t) {
            Some(i) => IdValue::Int(i),
            None => IdValue::Str(strings.intern(&String::from_utf8_lossy(t))),
        },
        JVal::Str(s) => IdValue::Str(strings.intern(s)),
        _ => IdValue::Str(Strings::EMPTY),
    }
}

/// The id of a `pid` or `tid` value in `rank.ids` (`last`: the two distinct ones read last,
/// the latest first: a CPU thread's events and its GPU stream's alternate).
fn id_of(last: &mut [Last<u32>; 2], rank: &mut RankTrace, v: Option<&JVal<'_>>) -> u32 {
    let make = |rank: &mut RankTrace| {
        let v = v.map(|v| id_value(v, &mut rank.strings)).unwrap_or(IdValue::Str(Strings::EMPTY));
        rank.ids.intern(v)
    };
    let (text, bytes) = match v {
        Some(JVal::Num(t)) => (false, *t),
        Some(JVal::Str(s)) => (true, s.as_bytes()),
        // absent, or neither a number nor a string: the empty string's id, as `""` has
        _ => (true, &b""[..]),
    };
    if let Some(id) = last[0].peek(text, bytes) {
        return id;
    }
    last.swap(0, 1);
    if let Some(id) = last[0].peek(text, bytes) {
        return id;
    }
    let id = make(rank);
    last[0].set(text, bytes, id);
    id
}

/// Numeric flow id: integers as is, `"0x1f"` as hex, other strings hashed.
fn flow_id(v: &JVal<'_>) -> i64 {
    if let Some(i) = v.as_i64() {
        return i;
    }
    if let JVal::Str(s) = v {
        if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            if let Ok(i) = u64::from_str_radix(h, 16) {
                return i as i64;
            }
        }
        use std::hash::Hasher;
        let mut h = FxHasher::default();
        h.write(s.as_bytes());
        return (h.finish() >> 1) as i64;
    }
    -1
}

impl ChromeSink<'_> {
    fn time(&mut self, v: &JVal<'_>, field: &str, offset: u64) -> Option<i64> {
        let r = match v {
            JVal::Num(t) => us_text_to_ns(t),
            JVal::Str(s) => {
                self.st.hints.string_times = true;
                us_text_to_ns(s.trim().as_bytes())
            }
            _ => {
                self.warn(WarningKind::IllTypedField, offset, |_| format!("\"{field}\" is {}, expected a number", v.type_name()));
                return None;
            }
        };
        match r {
            Ok(ns) => Some(ns),
            Err(e) => {
                self.warn(WarningKind::IllTypedField, offset, |_| {
                    let shown = match v {
                        JVal::Num(t) => String::from_utf8_lossy(t).into_owned(),
                        JVal::Str(s) => s.to_string(),
                        _ => String::new(),
                    };
                    format!("\"{field}\": {shown:?} is not a time in µs ({e:?})")
                });
                None
            }
        }
    }

    /// A warning of `kind` at `offset`; its detail (given the rank's strings) is made only for
    /// the first of its kind. Recorded for [`ChromeSink::repeat_last`].
    pub(super) fn warn(&mut self, kind: WarningKind, offset: u64, detail: impl FnOnce(&Strings) -> String) {
        self.st.warned.push(kind);
        let rank = &mut *self.rank;
        rank.warnings.add(kind, self.file, offset, || detail(&rank.strings));
    }

    /// `n` events of `kind`, category `cat` and phase letter `ph` into the tallies.
    fn count(&mut self, kind: Kind, cat: Option<crate::model::StrId>, ph: u8, n: u64) {
        let c = &mut self.st.counts;
        c.kinds[kind as usize] += n;
        if let Some(cat) = cat {
            let i = cat.0 as usize;
            if c.cats.len() <= i {
                c.cats.resize(i + 1, 0);
            }
            c.cats[i] += n;
        }
        c.phases[ph as usize] += n;
    }

    /// Parses one event object at the start of `bytes` into `f` (empty); returns its length.
    /// No effect on the rank (`gaps` learns, but only how keys are read), so a failed attempt on
    /// an incomplete buffer can be retried.
    fn parse<'b>(bytes: &'b [u8], f: &mut Fields<'b>, gaps: &mut KeyGaps) -> Result<usize, (usize, &'static str)> {
        let mut r = ObjectReader::new(bytes).map_err(|e| (e.at, e.expected))?;
        let ill = |f: &mut Fields<'_>, field: &str, v: &JVal<'_>, want: &str| {
            f.warns.push((WarningKind::IllTypedField, format!("\"{field}\" is {}, expected {want}; ignored", v.type_name())))
        };
        while let Some(k) = r.next_code(&mut gaps.event, key::of).map_err(|e| (e.at, e.expected))? {
            f.entries += 1;
            if k == key::ARGS {
                if let Some(mut sub) = r.nested_object() {
                    if parse_args(&mut sub, f.argv.insert(ArgVals::new()), &mut gaps.args).is_ok() {
                        f.args = Some(r.skip_nested_read(&sub));
                        continue;
                    }
                    // malformed args: the event is kept without them (below), with a warning
                    f.argv = None;
                }
            }
            let v = r.next_value().map_err(|e| (e.at, e.expected))?;
            match k {
                key::PH => match v {
                    JVal::Str(s) => f.ph = Some(s),
                    other => ill(f, "ph", &other, "a string"),
                },
                key::NAME => match v {
                    JVal::Str(_) | JVal::Num(_) => f.name = Some(v),
                    other => ill(f, "name", &other, "a string"),
                },
                key::CAT => match v {
                    JVal::Str(s) => f.cat = Some(s),
                    other => ill(f, "cat", &other, "a string"),
                },
                key::TS => f.ts = Some(v),
                key::DUR => f.dur = Some(v),
                key::PID | key::TID => match v {
                    JVal::Str(_) | JVal::Num(_) => {
                        if k == key::PID {
                            f.pid = Some(v)
                        } else {
                            f.tid = Some(v)
                        }
                    }
                    other => ill(f, if k == key::PID { "pid" } else { "tid" }, &other, "a number or a string"),
                },
                key::ID => f.id = Some(v),
                key::ARGS => match v {
                    JVal::Object(a) => {
                        f.args = Some(a);
                        let detail = match parse_args(
                            &mut ObjectReader::new(a).map_err(|e| (e.at, e.expected))?,
                            &mut ArgVals::new(),
                            &mut Gaps::default(),
                        ) {
                            Err(e) => format!("in \"args\": expected {} at +{}", e.expected, e.at),
                            Ok(_) => "in \"args\"".to_string(),
                        };
                        f.warns.push((WarningKind::MalformedEvent, detail));
                    }
                    other => ill(f, "args", &other, "an object"),
                },
                _ => {}
            }
        }
        if r.invalid_utf8 {
            f.warns.push((WarningKind::InvalidUtf8, "in an event".into()));
        }
        if r.stray_comma {
            f.warns.push((WarningKind::StrayComma, "inside an event object".into()));
        }
        Ok(r.position())
    }

    fn kind_of(&mut self, cat: crate::model::StrId, cat_text: &str) -> Kind {
        if let Some(&k) = self.st.kinds.get(&cat.0) {
            return k;
        }
        let k = Kind::from_cat(cat_text);
        match cat_text {
            "ProfileStep" | "DygraphKernelLaunch" | "OperatorInner" | "UserDefined" | "CudaRuntime" => self.st.hints.paddle = true,
            "cpu_op" | "kernel" | "cuda_runtime" | "Operator" | "Runtime" | "Kernel" | "ac2g" | "user_annotation" | "gpu_memcpy" => {
                self.st.hints.kineto = true
            }
            _ => {}
        }
        self.st.kinds.insert(cat.0, k);
        k
    }

    fn metadata(&mut self, name: &str, pid: u32, tid: u32, args: Option<&[u8]>) {
        let Some(args) = args else { return };
        let Ok(mut r) = ObjectReader::new(args) else { return };
        while let Ok(Some((k, v))) = r.next_entry() {
            if k == "name" {
                if let JVal::Str(s) = v {
                    match name {
                        "process_name" => {
                            self.rank.process_names.insert(pid, s.into_owned());
                        }
                        "thread_name" => {
                            self.rank.thread_names.insert((pid, tid), s.into_owned());
                        }
                        _ => {}
                    }
                }
                return;
            }
        }
    }
}

impl ScanSink for ChromeSink<'_> {
    fn meta(&mut self, key: &str, value: &[u8], offset: u64) {
        meta::top_level(self, key, value, offset);
    }

    fn event(&mut self, bytes: &[u8], offset: u64, index: u32) {
        let mut f = Fields::default();
        self.recorded(|sink| match Self::parse(bytes, &mut f, &mut sink.st.gaps) {
            Ok(_) => sink.commit(&mut f, offset, index),
            Err((at, expected)) => {
                sink.rank.counts.events += 1;
                sink.count(Kind::Other, None, b'?', 1);
                let at = offset + at as u64;
                sink.warn(WarningKind::MalformedEvent, at, |_| {
                    format!("expected {expected} at byte {at}, found {}", excerpt(&bytes[(at - offset) as usize..]))
                });
                Some(Effect::Counted { kind: Kind::Other, cat: None, ph: b'?' })
            }
        });
    }

    fn event_direct(&mut self, bytes: &[u8], offset: u64, index: u32) -> Option<usize> {
        let mut f = Fields::default();
        let len = Self::parse(bytes, &mut f, &mut self.st.gaps).ok()?;
        self.recorded(|sink| sink.commit(&mut f, offset, index));
        Some(len)
    }

    fn empty_events(&mut self, _offset: u64, _index: u32, n: u32) {
        self.rank.counts.empty_placeholders += u64::from(n);
    }

    fn non_object(&mut self, element: &[u8], offset: u64) {
        self.recorded(|sink| {
            sink.warn(WarningKind::NonObjectEvent, offset, |_| format!("{} in the event array", excerpt(element)));
            Some(Effect::Warned)
        });
    }

    fn last_repeatable(&self) -> bool {
        self.st.repeat.is_some()
    }

    fn repeat_last(&mut self, n: u32) {
        ChromeSink::repeat_last(self, n);
    }

    fn warn(&mut self, kind: WarningKind, offset: u64, detail: String) {
        ChromeSink::warn(self, kind, offset, |_| detail);
    }
}

impl ChromeSink<'_> {
    /// Adds a parsed event to the rank. What it did when it left no row but counts and
    /// warnings, which [`ChromeSink::repeat_last`] can do again; `None` when it made or changed
    /// a row.
    fn commit(&mut self, f: &mut Fields<'_>, offset: u64, index: u32) -> Option<Effect> {
        // `{}` placeholders (Paddle's trailing event, rocprof v1's first) are not events.
        if f.entries == 0 && f.warns.is_empty() {
            self.rank.counts.empty_placeholders += 1;
            return Some(Effect::Placeholder);
        }
        self.rank.counts.events += 1;
        for (kind, detail) in std::mem::take(&mut f.warns) {
            self.warn(kind, offset, |_| detail);
        }
        let ph_letter = f.ph.as_deref().and_then(|p| p.bytes().next()).unwrap_or(b'?');
        if !self.rank.meta.ts_fractional_or_missing {
            let integral = match &f.ts {
                Some(JVal::Num(t)) => t.iter().all(|c| c.is_ascii_digit() || *c == b'-'),
                _ => false,
            };
            if !integral {
                self.rank.meta.ts_fractional_or_missing = true;
            }
        }
        let phase = Phase::from_letter(ph_letter);
        let rank = &mut *self.rank;
        let (cat_id, kind) = match &f.cat {
            Some(c) => match self.st.last_cat.peek(true, c.as_bytes()) {
                Some(got) => got,
                None => {
                    let id = rank.strings.intern(c);
                    let got = (id, self.kind_of(id, c));
                    self.st.last_cat.set(true, c.as_bytes(), got);
                    got
                }
            },
            None => (Strings::EMPTY, Kind::from_phase_only(ph_letter)),
        };
        let counted = Effect::Counted { kind, cat: f.cat.is_some().then_some(cat_id), ph: ph_letter };
        self.count(kind, f.cat.is_some().then_some(cat_id), ph_letter, 1);
        let rank = &mut *self.rank;
        // Paddle's `[1.169 ms]` suffix is kept apart: one name per operator, not per duration
        let (name, suffix) = match &f.name {
            Some(JVal::Str(s)) => {
                let (stem, sfx) = split_timing_suffix(s);
                (rank.strings.intern(stem), sfx)
            }
            Some(JVal::Num(t)) => (rank.strings.intern(&String::from_utf8_lossy(t)), None),
            _ => (Strings::EMPTY, None),
        };
        let pid = id_of(&mut self.st.last_pid, rank, f.pid.as_ref());
        let tid = id_of(&mut self.st.last_tid, rank, f.tid.as_ref());
        if phase == Phase::Metadata {
            let n = self.rank.strings.get(name).to_string();
            // names a process or thread: again, the same name
            self.metadata(&n, pid, tid, f.args);
            return Some(counted);
        }
        let Some(ts_v) = f.ts.as_ref() else {
            self.warn(WarningKind::MissingField, offset, |s| format!("event \"{}\" (ph {}) has no \"ts\"", s.get(name), ph_letter as char));
            return Some(counted);
        };
        let Some(ts) = self.time(ts_v, "ts", offset) else { return Some(counted) };
        let mut fl = flags::HAS_TS;
        if f.cat.is_some() {
            fl |= flags::HAS_CAT;
        }
        let mut dur = 0;
        if let Some(d) = f.dur.as_ref() {
            if let Some(d) = self.time(d, "dur", offset) {
                if d < 0 {
                    self.warn(WarningKind::NegativeDuration, offset, |_| format!("dur {d} ns"));
                } else {
                    dur = d;
                }
                fl |= flags::HAS_DUR;
            }
        }
        if phase == Phase::End {
            match self.st.open.get_mut(&(pid, tid)).and_then(|s| s.pop()) {
                Some((b, _)) => {
                    let ev = &mut self.rank.events;
                    let d = ts - ev.ts[b as usize];
                    ev.dur.set(b as usize, d.max(0));
                    ev.flags[b as usize] |= flags::HAS_DUR;
                }
                None if self.st.defer_ends => {
                    let warnings_before = self.rank.warnings.iter().count();
                    self.st.pending_ends.push(PendingEnd { pid, tid, ts, offset, name, warnings_before });
                }
                None => self.warn(WarningKind::UnmatchedEnd, offset, |s| format!("'E' of \"{}\"", s.get(name))),
            }
            return None;
        }
        let (stream, correlation, external_id, alt) =
            f.argv.as_ref().map(|a| (a.stream, a.correlation, a.external_id, a.alt)).unwrap_or((-1, -1, -1, 0));
        let e = self.rank.events.push(NewEvent {
            index,
            phase,
            kind,
            cat: cat_id,
            name,
            ts,
            dur,
            pid,
            tid,
            stream,
            correlation,
            external_id,
            flags: fl | alt,
        });
        if let Some(sfx) = suffix {
            self.rank.events.push_name_suffix(e, sfx);
        }
        if let Some(id) = &f.id {
            self.rank.events.push_int_arg(e, IntArg::FlowId, flow_id(id));
        }
        if let (Some(a), Some(raw)) = (&f.argv, f.args) {
            self.apply_args(e, kind, phase, a, raw, offset);
        }
        if phase == Phase::Begin {
            self.st.open.entry((pid, tid)).or_default().push((e, offset));
        }
        None
    }
}

impl ChromeState {
    /// Finishes a rank: warns about unclosed `B` events and sorts the sparse args.
    pub fn finish(&mut self, rank: &mut RankTrace, file: &str) {
        // in file order, so the warning's first occurrence is the first unclosed `B` of the file
        let mut unclosed: Vec<(u64, EventId)> = self.open.values().flatten().map(|&(e, off)| (off, e)).collect();
        unclosed.sort_unstable();
        for (off, e) in unclosed {
            let detail = format!("'B' of \"{}\" has no 'E'", rank.name(e));
            rank.warnings.add(WarningKind::UnclosedBegin, file, off, || detail);
        }
        self.open.clear();
        rank.events.int_args.sort_by_key(|a| a.0);
        let t = std::mem::take(&mut self.counts);
        let c = &mut rank.counts;
        for k in ALL_KINDS {
            let n = t.kinds[k as usize];
            if n > 0 {
                *c.kinds.entry(k.as_str().to_string()).or_default() += n;
            }
        }
        for (i, &n) in t.cats.iter().enumerate() {
            if n > 0 {
                let cat = rank.strings.get(crate::model::StrId(i as u32)).to_string();
                *c.categories.entry(cat).or_default() += n;
            }
        }
        for (b, &n) in t.phases.iter().enumerate() {
            if n > 0 {
                let ph = if b < 128 { (b as u8 as char).to_string() } else { format!("\\x{b:02x}") };
                *c.phases.entry(ph).or_default() += n;
            }
        }
    }
}
