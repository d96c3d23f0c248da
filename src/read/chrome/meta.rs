//! Top-level keys of a Chrome-trace JSON object other than `traceEvents`: `schemaVersion`,
//! `displayTimeUnit`, `traceName`, `baseTimeNanoseconds`, `distributedInfo`, `deviceProperties`
//! (or TensorBoard's `computeProperties`), and Paddle's `span_index`/`ExtraInfo` markers. Each
//! value is small and read on its own with the tree-free object reader.

use std::borrow::Cow;

use super::ChromeSink;
use crate::error::{excerpt, WarningKind};
use crate::model::{DeviceProperties, DistributedInfo};
use crate::read::json::{array_elements, JVal, ObjectReader};

/// Records the top-level `key` (raw JSON `value` at `offset`) in the rank's metadata.
pub(super) fn top_level(sink: &mut ChromeSink<'_>, key: &str, value: &[u8], offset: u64) {
    let m = &mut sink.rank.meta;
    m.top_level_keys.push(key.to_string());
    let scalar = || -> Option<JVal<'_>> {
        let wrapped = [b"{\"v\":".as_slice(), value, b"}"].concat();
        let mut r = ObjectReader::new(&wrapped).ok()?;
        let (_, v) = r.next_entry().ok()??;
        Some(match v {
            JVal::Str(s) => JVal::Str(Cow::Owned(s.into_owned())),
            JVal::Num(t) => JVal::Str(Cow::Owned(String::from_utf8_lossy(t).into_owned())),
            JVal::Bool(b) => JVal::Bool(b),
            _ => JVal::Null,
        })
    };
    let text = || match scalar() {
        Some(JVal::Str(s)) => Some(s.into_owned()),
        _ => None,
    };
    match key {
        "schemaVersion" => m.schema_version = text(),
        "displayTimeUnit" => m.display_time_unit = text(),
        "traceName" => m.trace_name = text(),
        "baseTimeNanoseconds" => m.base_time_ns = text().and_then(|t| crate::read::json::parse_int(t.as_bytes())),
        "span_index" | "ExtraInfo" => sink.st.hints.paddle = true,
        "distributedInfo" => {
            let mut d = DistributedInfo::default();
            match ObjectReader::new(value) {
                Ok(mut r) => {
                    while let Ok(Some((k, v))) = r.next_entry() {
                        match &*k {
                            "rank" => d.rank = v.as_i64(),
                            "world_size" => d.world_size = v.as_i64(),
                            "backend" => {
                                if let JVal::Str(s) = v {
                                    d.backend = Some(s.into_owned())
                                }
                            }
                            _ => {}
                        }
                    }
                    sink.rank.meta.distributed = Some(d);
                }
                Err(_) => sink.warn(WarningKind::BadMetadata, offset, |_| "\"distributedInfo\" is not an object".into()),
            }
        }
        "deviceProperties" | "computeProperties" => match array_elements(value) {
            Ok(items) => {
                for it in items {
                    let JVal::Object(o) = it else { continue };
                    let Ok(mut r) = ObjectReader::new(o) else { continue };
                    let mut d = DeviceProperties::default();
                    let (mut major, mut minor) = (None, None);
                    while let Ok(Some((k, v))) = r.next_entry() {
                        match &*k {
                            "id" => d.id = v.as_i64(),
                            "name" => {
                                if let JVal::Str(s) = v {
                                    d.name = Some(s.into_owned())
                                }
                            }
                            "totalGlobalMem" => d.total_global_mem = v.as_i64(),
                            "computeMajor" => major = v.as_i64(),
                            "computeMinor" => minor = v.as_i64(),
                            "numSms" => d.num_sms = v.as_i64(),
                            _ => {}
                        }
                    }
                    if let (Some(a), Some(b)) = (major, minor) {
                        d.compute = Some(format!("{a}.{b}"));
                    }
                    sink.rank.meta.devices.push(d);
                }
            }
            Err(_) => sink.warn(WarningKind::BadMetadata, offset, |_| format!("\"{key}\" is not an array: {}", excerpt(value))),
        },
        _ => {}
    }
}
