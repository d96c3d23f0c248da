use super::*;

fn sample() -> Table {
    Table::new("t")
        .with("kernel", Unit::None, Values::Str(["gemm", "a,\"b\""].into()))
        .with("count", Unit::Count, Values::Int(vec![12, 3].into()))
        .with("mean_us", Unit::Us, Values::Float(vec![1.5, f64::NAN]))
}

#[test]
fn csv_quotes_and_empty_nan() {
    assert_eq!(sample().to_csv(), "kernel,count,mean_us\ngemm,12,1.5\n\"a,\"\"b\"\"\",3,\n");
}

#[test]
fn csv_streams_in_pieces_that_join_into_the_whole() {
    // 30,000 rows of about 20 bytes: several 64 KiB pieces, each ending at a row's end
    struct Pieces(Vec<Vec<u8>>);
    impl std::io::Write for Pieces {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let n = 30_000;
    let t = Table::new("t")
        .with("name", Unit::None, Values::Str((0..n).map(|i| if i % 7 == 0 { "q\"x".into() } else { format!("k{i}") }).collect()))
        .with("v", Unit::None, Values::Float((0..n).map(|i| i as f64 / 4.0).collect()));
    let mut w = Pieces(Vec::new());
    t.write_csv(&mut w).expect("write");
    assert!(w.0.len() > 3, "{} pieces", w.0.len());
    assert!(w.0.iter().all(|p| p.ends_with(b"\n")));
    let whole: Vec<u8> = w.0.concat();
    let mut want = String::from("name,v\n");
    for i in 0..n {
        let name = if i % 7 == 0 { "\"q\"\"x\"".to_string() } else { format!("k{i}") };
        want.push_str(&format!("{name},{}\n", pyfloat::python_float_repr(i as f64 / 4.0)));
    }
    assert_eq!(String::from_utf8(whole).expect("utf-8"), want);
    assert_eq!(t.to_csv(), want);
}

#[test]
fn json_rows_with_null_for_nan() {
    assert_eq!(
        sample().to_json_rows().to_string(),
        r#"[{"count":12,"kernel":"gemm","mean_us":1.5},{"count":3,"kernel":"a,\"b\"","mean_us":null}]"#
    );
}

#[test]
fn json_rows_stream_as_the_value_prints() {
    let expected = r#"[{"count":12,"kernel":"gemm","mean_us":1.5},{"count":3,"kernel":"a,\"b\"","mean_us":null}]"#;
    assert_eq!(serde_json::to_string(&sample().json_rows()).ok().as_deref(), Some(expected));
    // a repeated column name keeps the later column, as a `serde_json::Map` does
    let t = sample().with("count", Unit::Count, Values::Float(vec![f64::INFINITY, 2.0]));
    assert_eq!(serde_json::to_string(&t.json_rows()).ok(), Some(t.to_json_rows().to_string()));
    assert!(t.to_json_rows().to_string().starts_with(r#"[{"count":null,"#));
}

#[test]
fn text_aligns_numbers_right() {
    assert_eq!(sample().to_text(), "kernel  count  mean_us\n------  -----  -------\ngemm       12      1.5\na,\"b\"       3\n");
}

#[test]
fn canonical_sort_by_keys_then_all_columns() {
    let mut t = Table::new("t")
        .with("name", Unit::None, Values::Str(["b", "a", "a", "c"].into()))
        .with("rank", Unit::None, Values::Int(vec![0, 1, 0, 0].into()))
        .with("x", Unit::None, Values::Float(vec![f64::NAN, 1.0, 2.0, 0.5]));
    t.sort_canonical(&["rank"]);
    assert_eq!(t.to_csv(), "name,rank,x\na,0,2.0\nb,0,\nc,0,0.5\na,1,1.0\n");
}
