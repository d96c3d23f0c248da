//! pprof's `profile.proto` (github.com/google/pprof, `proto/profile.proto`), gzip-compressed as
//! pprof expects. The messages below are that file's, field for field (tags and types), but for
//! its newer `Breakdown`/`LabelSet` fields, which we do not write.
//!
//! Sample types: `wall/nanoseconds` (CPU self time), `gpu/nanoseconds` (GPU time, its operation
//! as the leaf frame) and `events/count`; labels `rank`, `thread` and, on GPU samples, `stream`
//! and `device`. A location per distinct (function, parent location) is not needed: pprof's
//! locations are per function here (one line each), and stacks are lists of them.
// the message fields are profile.proto's, documented there
#![allow(missing_docs)]

use prost::Message;
use rustc_hash::FxHashMap;

use super::{Profile, NO_NODE};

/// `perftools.profiles.Profile` (tags 1–14).
#[derive(Clone, PartialEq, Message)]
pub struct PbProfile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    #[prost(int64, tag = "7")]
    pub drop_frames: i64,
    #[prost(int64, tag = "8")]
    pub keep_frames: i64,
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// `ValueType`.
#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// `Sample`: locations leaf first.
#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// `Label`.
#[derive(Clone, PartialEq, Message)]
pub struct Label {
    #[prost(int64, tag = "1")]
    pub key: i64,
    #[prost(int64, tag = "2")]
    pub str: i64,
    #[prost(int64, tag = "3")]
    pub num: i64,
    #[prost(int64, tag = "4")]
    pub num_unit: i64,
}

/// `Mapping`.
#[derive(Clone, PartialEq, Message)]
pub struct Mapping {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    #[prost(int64, tag = "5")]
    pub filename: i64,
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
    #[prost(bool, tag = "10")]
    pub has_inline_frames: bool,
}

/// `Location`.
#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "3")]
    pub address: u64,
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
    #[prost(bool, tag = "5")]
    pub is_folded: bool,
}

/// `Line`.
#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
}

/// `Function`.
#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

/// The strings of a profile: index 0 is `""`.
struct Strings {
    table: Vec<String>,
    index: FxHashMap<String, i64>,
}

impl Strings {
    fn get(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// One function and one location per frame name (ids from 1).
#[derive(Default)]
struct Frames {
    location_of: FxHashMap<u32, u64>,
    function: Vec<Function>,
    location: Vec<Location>,
}

impl Frames {
    /// The location of frame name `name` of `p`.
    fn location(&mut self, p: &Profile, name: u32, s: &mut Strings) -> u64 {
        if let Some(&id) = self.location_of.get(&name) {
            return id;
        }
        let id = self.function.len() as u64 + 1;
        let n = s.get(&p.names[name as usize]);
        self.function.push(Function { id, name: n, system_name: n, filename: 0, start_line: 0 });
        self.location.push(Location { id, mapping_id: 0, address: 0, line: vec![Line { function_id: id, line: 0 }], is_folded: false });
        self.location_of.insert(name, id);
        id
    }

    /// Node `node`'s locations, leaf first, without its rank frame; and its thread's frame name
    /// (the frame under the rank).
    fn stack(&mut self, p: &Profile, node: u32, s: &mut Strings) -> (Vec<u64>, u32) {
        let mut ids = Vec::new();
        let (mut thread, mut at) = (node, node);
        while at != NO_NODE && p.nodes[at as usize].parent != NO_NODE {
            ids.push(self.location(p, p.nodes[at as usize].name, s));
            thread = at;
            at = p.nodes[at as usize].parent;
        }
        (ids, p.nodes[thread as usize].name)
    }
}

/// `p` as a pprof message (module docs). The rank frame is a label, not a frame.
pub fn pprof(p: &Profile) -> PbProfile {
    let mut s = Strings { table: vec![String::new()], index: FxHashMap::default() };
    s.index.insert(String::new(), 0);
    let sample_type = [("wall", "nanoseconds"), ("gpu", "nanoseconds"), ("events", "count")]
        .map(|(t, u)| ValueType { r#type: s.get(t), unit: s.get(u) })
        .to_vec();
    let mut f = Frames::default();
    let (k_rank, k_thread, k_stream, k_device) = (s.get("rank"), s.get("thread"), s.get("stream"), s.get("device"));
    let mut sample = Vec::new();
    for (i, n) in p.nodes.iter().enumerate() {
        if n.parent == NO_NODE || (n.self_ns == 0 && n.events == 0) {
            continue;
        }
        let (location_id, thread) = f.stack(p, i as u32, &mut s);
        let thread = s.get(&p.names[thread as usize]);
        sample.push(Sample {
            location_id,
            value: vec![n.self_ns, 0, n.events],
            label: vec![
                Label { key: k_rank, str: 0, num: i64::from(n.rank), num_unit: 0 },
                Label { key: k_thread, str: thread, num: 0, num_unit: 0 },
            ],
        });
    }
    for g in &p.gpu {
        let (mut ids, thread) = f.stack(p, g.node, &mut s);
        ids.insert(0, f.location(p, g.name, &mut s));
        let thread = s.get(&p.names[thread as usize]);
        let mut label = vec![
            Label { key: k_rank, str: 0, num: i64::from(p.nodes[g.node as usize].rank), num_unit: 0 },
            Label { key: k_thread, str: thread, num: 0, num_unit: 0 },
            Label { key: k_stream, str: 0, num: g.stream, num_unit: 0 },
        ];
        if g.device >= 0 {
            label.push(Label { key: k_device, str: 0, num: g.device, num_unit: 0 });
        }
        sample.push(Sample { location_id: ids, value: vec![0, g.ns, g.count], label });
    }
    let wall = sample_type[0].clone();
    PbProfile {
        sample_type,
        sample,
        mapping: Vec::new(),
        location: f.location,
        function: f.function,
        string_table: s.table,
        period_type: Some(wall),
        period: 1,
        ..Default::default()
    }
}

/// `p` as a gzip-compressed `profile.proto` file.
pub fn pprof_bytes(p: &Profile) -> Vec<u8> {
    crate::export::gzip::gzip(&pprof(p).encode_to_vec())
}
