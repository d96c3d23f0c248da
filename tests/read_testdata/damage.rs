//! Damage: recoverable (warnings) and fatal (errors).

use super::variants::OBJECT_FORM_ROWS;
use super::*;

const AB_ROWS: &str = "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
";

/// Cut inside the third event (which starts at byte 184): the two complete events are kept.
#[test]
fn truncated_tail() {
    let t = load("kineto/bad/truncated-tail.json");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TruncatedTail, 1, 184)]);
    assert_eq!(details(r), s(&["incomplete event at byte 184 dropped"]));
    assert_eq!(r.counts.events, 2);
}

/// The same text as truncated-tail.json, gzip-stored (no compression) and cut after compressed
/// byte 254 = 10 (gzip header) + 5 (stored-block header) + 239 (the JSON up to the cut).
#[test]
fn truncated_gzip() {
    let t = load("kineto/bad/truncated-gzip.json.gz");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    // one for the gzip stream (compressed offset), one for the JSON event it cut
    assert_eq!(warnings(r), vec![(WarningKind::TruncatedGzip, 1, 254), (WarningKind::TruncatedTail, 1, 184)]);
    assert_eq!(details(r), s(&["at compressed byte 254", "incomplete event at byte 184 dropped"]));
    assert_eq!(r.meta.gzip_members, 1); // the member that was cut
}

/// object-form.json.gz with the first deflate byte's block type set to the reserved value 3.
#[test]
fn corrupt_gzip() {
    let e = load_err("kineto/bad/corrupt-gzip.json.gz");
    eqnice!(
        "kineto/bad/corrupt-gzip.json.gz: byte 28: expected valid gzip (deflate) data, found corrupt deflate data at compressed byte 28",
        e.to_string()
    );
}

/// object-form.json.gz followed by `garbage\n`: the trace is read, the garbage warned about.
#[test]
fn garbage_after_gzip() {
    let t = load("kineto/bad/garbage-after-gzip.json.gz");
    let r = &t.ranks[0];
    eqnice!(OBJECT_FORM_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TrailingGarbageAfterGzip, 1, 264)]);
    assert_eq!(r.meta.gzip_members, 1);
}

/// `,}` inside event a (byte 18), `,]` closing the array (the `]` at 185), `,}` closing the
/// top-level object (the `}` at 206).
#[test]
fn trailing_comma() {
    let t = load("kineto/bad/trailing-comma.json");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 3, 18)]);
    assert_eq!(details(r), s(&["inside an event object"]));
    assert_eq!(r.meta.trace_name.as_deref(), Some("x"));
}

/// `[,` (17), `},,` (101), `"b",,` inside event b (103), a line starting with `,` after `},`
/// (187), `],,` in the top-level object (272).
#[test]
fn stray_commas() {
    let t = load("kineto/bad/stray-commas.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
#2 [2] X cpu_op \"c\" cat=cpu_op ts=30000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 5, 17)]);
    assert_eq!(details(r), s(&["',' with no event before it"]));
    assert_eq!(r.meta.trace_name.as_deref(), Some("x"));
}

/// Times as strings (rocprof v1 writes them) are read exactly; a string that is not a number
/// drops its event. A Kineto file stays Kineto.
#[test]
fn ts_as_string() {
    let t = load("kineto/bad/ts-as-string.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"string_ts\" cat=cpu_op ts=1795388036039728123 dur=12500 pid=1 tid=1
#1 [1] X cpu_op \"number_ts\" cat=cpu_op ts=1795388036039740000 dur=1000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::IllTypedField, 1, 239)]);
    assert_eq!(details(r), s(&["\"ts\": \"soon\" is not a time in µs (NotANumber)"]));
    assert_eq!(r.counts.events, 3);
    assert_eq!(r.format, Some(Format::Kineto));
}

/// No `ts`: X and i events dropped (MissingField), M events need none; `"ts": null` is ill-typed.
#[test]
fn ts_missing() {
    let t = load("kineto/bad/ts-missing.json");
    let r = &t.ranks[0];
    eqnice!("#0 [0] X cpu_op \"has_ts\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::MissingField, 2, 106), (WarningKind::IllTypedField, 1, 311)]);
    assert_eq!(details(r), s(&["event \"no_ts\" (ph X) has no \"ts\"", "\"ts\" is null, expected a number"]));
    assert_eq!(
        counts(r),
        (5, 0, map(&[("cpu_op", 3), ("instant", 1), ("metadata", 1)]), map(&[("cpu_op", 3)]), map(&[("M", 1), ("X", 3), ("i", 1)]))
    );
    assert_eq!(names(r).0, vec![("1".to_string(), "p".to_string())]);
    assert!(r.meta.ts_fractional_or_missing);
}

/// Negative durations become 0 (still a duration); `-0.0004` µs rounds to 0 ns and is no damage.
#[test]
fn dur_negative() {
    let t = load("kineto/bad/dur-negative.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X kernel \"neg\" cat=kernel ts=100000 dur=0 pid=0 tid=7
#1 [1] X kernel \"neg_frac\" cat=kernel ts=110700 dur=0 pid=0 tid=7
#2 [2] X kernel \"zero\" cat=kernel ts=120000 dur=0 pid=0 tid=7
#3 [3] X kernel \"tiny\" cat=kernel ts=130000 dur=0 pid=0 tid=7
#4 [4] X kernel \"neg_sub_ns\" cat=kernel ts=140000 dur=0 pid=0 tid=7
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::NegativeDuration, 2, 18)]);
    assert_eq!(details(r), s(&["dur -3000 ns"]));
}

/// `"ts": true`, `"ts": {...}`, `"ts": 1e30` (out of range) drop the event; `"cat": 7` and
/// `"dur": false` are ignored on a kept event; a number as name and as `ph` are taken as they are.
#[test]
fn ill_typed_fields() {
    let t = load("kineto/bad/ill-typed-fields.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [2] X other \"cat_number\" nocat ts=10000 dur=5000 pid=1 tid=1
#1 [3] X cpu_op \"dur_bool\" cat=cpu_op ts=20000 pid=1 tid=1
#2 [5] X cpu_op \"42\" cat=cpu_op ts=30000 dur=1000 pid=1 tid=1
#3 [6] other cpu_op \"ph_number\" cat=cpu_op ts=40000 dur=1000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::IllTypedField, 6, 18)]);
    assert_eq!(details(r), s(&["\"ts\" is a boolean, expected a number"]));
    assert_eq!(counts(r), (7, 0, map(&[("cpu_op", 6), ("other", 1)]), map(&[("cpu_op", 6)]), map(&[("?", 1), ("X", 6)])));
}

/// Bytes 0xff/0xfe inside strings become U+FFFD: in a name (18), in args (108), after an escape
/// (307). A valid `\u00e9` escape is no damage.
#[test]
fn invalid_utf8() {
    let t = load("kineto/bad/invalid-utf8.json");
    let r = &t.ranks[0];
    let got: Vec<&str> = (0..4).map(|e| r.name(e)).collect();
    assert_eq!(got, vec!["bad\u{FFFD}name", "ok", "esc\u{e9}", "esc\n\u{FFFD}"]);
    assert_eq!(warnings(r), vec![(WarningKind::InvalidUtf8, 3, 18)]);
    assert_eq!(details(r), s(&["in an event"]));
}

/// `1`, `"text"`, `null`, `true` and a nested array in the event array are skipped; array
/// indexes still count them.
#[test]
fn non_object_elements() {
    let t = load("kineto/bad/non-object-elements.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [1] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [6] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::NonObjectEvent, 5, 18)]);
    assert_eq!(details(r), s(&["'1' in the event array"]));
    assert_eq!(r.counts.events, 2);
}

/// `{"ph": "X", "ts": 1,, }` is tolerated (a stray comma), `{"ph" "X"}` (no colon, at byte 137)
/// and a bad escape `\e` (at 184) are malformed and skipped; the events around them are kept.
#[test]
fn malformed_event() {
    let t = load("kineto/bad/malformed-event.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"before\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X other \"\" nocat ts=1000 pid=\"\" tid=\"\"
#2 [4] X cpu_op \"after\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 1, 106), (WarningKind::MalformedEvent, 2, 137)]);
    assert_eq!(details(r), s(&["inside an event object", "expected ':' at byte 137, found '\"X\"}'"]));
    assert_eq!(counts(r), (5, 0, map(&[("cpu_op", 2), ("other", 3)]), map(&[("cpu_op", 2)]), map(&[("?", 2), ("X", 3)])));
}

/// The second event's `ts` is an array left open (`"ts": [20, "dur": 5, "args": {…}}`): the event
/// is malformed where its closing brace (byte 218) comes before the array's `]`, and the events
/// after it, and `distributedInfo`, are read. The array was once skipped by counting brackets
/// alone, past the event's end to the `]` closing the event array, which swallowed the two
/// events after it and the rank (read as rank 0), and a read of the same bytes in blocks
/// (`read_blocks.rs`, a large file, the page) stopped at the block's end instead.
#[test]
fn unclosed_array_in_event() {
    let t = load("kineto/bad/unclosed-array-in-event.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [2] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
#2 [3] X cpu_op \"c\" cat=cpu_op ts=30000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(r.rank, 3);
    assert_eq!(warnings(r), vec![(WarningKind::MalformedEvent, 1, 218)]);
    assert_eq!(details(r), s(&["expected ']' closing an array at byte 218, found '}'"]));
    assert_eq!(counts(r).0, 4);
}

#[test]
fn empty_file() {
    eqnice!(
        "kineto/bad/empty.json: byte 0: expected a trace (JSON or rocprof CSV), found end of input (the file is empty)",
        load_err("kineto/bad/empty.json").to_string()
    );
}

/// ` \n\t\n`: 4 blank bytes.
#[test]
fn whitespace_only() {
    eqnice!(
        "kineto/bad/whitespace-only.json: byte 4: expected a trace (JSON or rocprof CSV), found end of input (the file is empty or blank)",
        load_err("kineto/bad/whitespace-only.json").to_string()
    );
}

#[test]
fn not_json() {
    eqnice!(
        "kineto/bad/not-json.json: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found 'hello'",
        load_err("kineto/bad/not-json.json").to_string()
    );
}

/// `{"foo": 1}` is JSON but no trace: the error points at its closing brace (byte 9).
#[test]
fn wrong_shape_object() {
    eqnice!(
        "kineto/bad/wrong-shape-object.json: byte 9: expected a \"traceEvents\" array (Chrome trace format), found end of the top-level object without one",
        load_err("kineto/bad/wrong-shape-object.json").to_string()
    );
}

#[test]
fn wrong_shape_number() {
    eqnice!(
        "kineto/bad/wrong-shape-number.json: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found '42'",
        load_err("kineto/bad/wrong-shape-number.json").to_string()
    );
}

/// Two `B` never closed (byte 18 on tid 1, byte 241 on tid 2): kept without duration.
#[test]
fn unclosed_begin() {
    let t = load("kineto/bad/unclosed-b.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] B user_annotation \"open_forever\" cat=user_annotation ts=10000 pid=1 tid=1
#1 [1] B user_annotation \"closed\" cat=user_annotation ts=20000 dur=10000 pid=1 tid=1
#2 [3] B user_annotation \"other_thread\" cat=user_annotation ts=40000 pid=1 tid=2
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::UnclosedBegin, 2, 18)]);
    assert_eq!(details(r), s(&["'B' of \"open_forever\" has no 'E'"]));
}

/// `E` before any `B` (18), on a thread with no open `B` (116), and one more than the `B`s (202).
#[test]
fn unmatched_end() {
    let t = load("kineto/bad/unmatched-e.json");
    let r = &t.ranks[0];
    eqnice!("#0 [1] B other \"a\" nocat ts=10000 dur=10000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::UnmatchedEnd, 3, 18)]);
    assert_eq!(details(r), s(&["'E' of \"\""]));
    assert_eq!(r.counts.events, 5);
}

/// Text after the closing `}` (from byte 103) is ignored, including a second document.
#[test]
fn trailing_garbage() {
    let t = load("kineto/bad/trailing-garbage.json");
    let r = &t.ranks[0];
    eqnice!("#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TrailingData, 1, 103)]);
    assert_eq!(details(r), s(&["'garbage after the end {\"traceEvents\": []…' after the end of the JSON document"]));
}
