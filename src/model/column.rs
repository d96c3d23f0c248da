//! [`IntColumn`]: an `i64` column in 4 bytes a row. [`RunColumn`]: a `u32` column that mostly
//! counts up by one, in a few bytes for the whole column. [`IdColumn`]: ids (strings, pids, tids)
//! in 2 bytes a row while they are below 65,536.

/// The inline mark of a value kept in [`IntColumn`]'s side table.
const WIDE: i32 = i32::MIN;

/// An `i64` column stored in 4 bytes a row. A value that fits in an `i32` (nearly all: CUDA
/// streams, correlation and external ids are small counters, −1 when absent; durations under
/// 2.1 s in ns) is stored inline; any other (a 64-bit HIP stream handle, an id past 2³¹, a
/// profiler step of 3 s, and `i32::MIN` itself) goes to a side table by row, marked inline by
/// `i32::MIN`. Rows are appended; a value may be replaced ([`IntColumn::set`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntColumn {
    small: Vec<i32>,
    /// (row, value) of the values not inline, by row.
    wide: Vec<(u32, i64)>,
}

impl IntColumn {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.small.len()
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.small.is_empty()
    }

    /// The value of row `i` (panics past the end, as a slice does).
    pub fn get(&self, i: usize) -> i64 {
        match self.small[i] {
            WIDE => {
                // every marked row has its entry (`push` writes both)
                let k = self.wide.partition_point(|w| (w.0 as usize) < i);
                self.wide.get(k).map_or(i64::from(WIDE), |w| w.1)
            }
            v => i64::from(v),
        }
    }

    /// Appends a value.
    pub fn push(&mut self, v: i64) {
        match i32::try_from(v) {
            Ok(s) if s != WIDE => self.small.push(s),
            _ => {
                self.wide.push((self.small.len() as u32, v));
                self.small.push(WIDE);
            }
        }
    }

    /// Replaces the value of row `i` (a `B` event's duration, known at its `E`).
    pub fn set(&mut self, i: usize, v: i64) {
        let k = self.wide.partition_point(|w| (w.0 as usize) < i);
        let aside = self.small[i] == WIDE;
        match i32::try_from(v) {
            Ok(s) if s != WIDE => {
                self.small[i] = s;
                if aside {
                    self.wide.remove(k);
                }
            }
            _ if aside => self.wide[k].1 = v,
            _ => {
                self.small[i] = WIDE;
                self.wide.insert(k, (i as u32, v));
            }
        }
    }

    /// Writes the values into `out`, 8 little-endian bytes each (`out` is 8 × [`IntColumn::len`]
    /// bytes): the inline values in one pass, then the side table's over their marks.
    pub fn write_le(&self, out: &mut [u8]) {
        for (slot, &v) in out.chunks_exact_mut(8).zip(&self.small) {
            slot.copy_from_slice(&i64::from(v).to_le_bytes());
        }
        for &(row, v) in &self.wide {
            out[row as usize * 8..][..8].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// Appends the values of `raw`, 8 little-endian bytes each (what [`IntColumn::write_le`]
    /// writes; a shorter tail is ignored). When all of them fit inline, as a block's columns
    /// nearly always do, in two passes without a branch per value, which the compiler
    /// vectorizes (the page's reading worker merged 4 such columns of a 1 GB trace in 0.23 s
    /// value by value); otherwise as [`Extend`] does.
    pub fn extend_le(&mut self, raw: &[u8]) {
        let (values, _) = raw.as_chunks::<8>();
        let inline = |b: &[u8; 8]| {
            let v = i64::from_le_bytes(*b);
            i64::from(v as i32) == v && v as i32 != WIDE
        };
        if values.iter().fold(true, |all, b| all & inline(b)) {
            self.small.extend(values.iter().map(|b| i64::from_le_bytes(*b) as i32));
        } else {
            self.extend(values.iter().map(|b| i64::from_le_bytes(*b)));
        }
    }

    /// The values, in row order.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        // the marked rows' values in turn, as they are kept by row
        let mut wide = self.wide.iter();
        self.small.iter().map(move |&v| match v {
            WIDE => wide.next().map_or(i64::from(WIDE), |w| w.1),
            v => i64::from(v),
        })
    }

    /// Reserves room for exactly `n` more rows.
    pub fn reserve_exact(&mut self, n: usize) {
        self.small.reserve_exact(n);
    }

    /// Releases unused capacity.
    pub fn shrink_to_fit(&mut self) {
        self.small.shrink_to_fit();
        self.wide.shrink_to_fit();
    }
}

impl From<Vec<i64>> for IntColumn {
    fn from(values: Vec<i64>) -> IntColumn {
        values.into_iter().collect()
    }
}

/// As a sequence of numbers (a table's integer column in JSON).
impl serde::Serialize for IntColumn {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl Extend<i64> for IntColumn {
    fn extend<T: IntoIterator<Item = i64>>(&mut self, values: T) {
        // inline values in one pass, a value that does not fit marked and put aside as it goes
        // by (in row order); a push per value checked the room and the fit of each
        let from = self.small.len();
        let wide = &mut self.wide;
        self.small.extend(values.into_iter().enumerate().map(|(k, v)| match i32::try_from(v) {
            Ok(s) if s != WIDE => s,
            _ => {
                wide.push(((from + k) as u32, v));
                WIDE
            }
        }));
    }
}

impl FromIterator<i64> for IntColumn {
    fn from_iter<T: IntoIterator<Item = i64>>(values: T) -> IntColumn {
        let mut c = IntColumn::default();
        c.extend(values);
        c
    }
}

/// A `u32` column whose values mostly go up by one from row to row (the position of each event
/// among the file's elements: only metadata events and empty placeholders, which are not rows,
/// make it jump), stored as runs: (first row, its value), each later row of a run one more than
/// the row before. A Kineto trace takes a few runs where a vector took 4 bytes a row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunColumn {
    len: usize,
    /// (first row, its value) of each run, by row; the first starts at row 0.
    runs: Vec<(u32, u32)>,
}

impl RunColumn {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of row `i` (panics past the end, as a slice does).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        assert!(i < self.len, "row {i} of a column of {} rows", self.len);
        // one run (no event dropped before the model): no search
        let (row, first) = match self.runs[..] {
            [run] => run,
            _ => self.runs[self.runs.partition_point(|r| r.0 as usize <= i) - 1],
        };
        first.wrapping_add((i - row as usize) as u32)
    }

    /// Appends a value.
    pub fn push(&mut self, v: u32) {
        let next = self.runs.last().map(|&(row, first)| first.wrapping_add((self.len - row as usize) as u32));
        if next != Some(v) {
            self.runs.push((self.len as u32, v));
        }
        self.len += 1;
    }

    /// Writes the values into `out`, 4 little-endian bytes each (`out` is 4 × [`RunColumn::len`]
    /// bytes), a run at a time.
    pub fn write_le(&self, out: &mut [u8]) {
        for (k, &(row, first)) in self.runs.iter().enumerate() {
            let end = self.runs.get(k + 1).map_or(self.len, |r| r.0 as usize);
            for (d, slot) in out[row as usize * 4..end * 4].chunks_exact_mut(4).enumerate() {
                slot.copy_from_slice(&first.wrapping_add(d as u32).to_le_bytes());
            }
        }
    }

    /// The values, in row order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().enumerate().flat_map(move |(k, &(row, first))| {
            let end = self.runs.get(k + 1).map_or(self.len, |r| r.0 as usize);
            (0..(end - row as usize) as u32).map(move |d| first.wrapping_add(d))
        })
    }

    /// Releases unused capacity.
    pub fn shrink_to_fit(&mut self) {
        self.runs.shrink_to_fit();
    }
}

impl Extend<u32> for RunColumn {
    fn extend<T: IntoIterator<Item = u32>>(&mut self, values: T) {
        // the value that continues the last run, kept as it goes (`push` works it out each time)
        let mut next = self.runs.last().map(|&(row, first)| first.wrapping_add((self.len - row as usize) as u32));
        for v in values {
            if next != Some(v) {
                self.runs.push((self.len as u32, v));
            }
            next = Some(v.wrapping_add(1));
            self.len += 1;
        }
    }
}

impl FromIterator<u32> for RunColumn {
    fn from_iter<T: IntoIterator<Item = u32>>(values: T) -> RunColumn {
        let mut c = RunColumn::default();
        c.extend(values);
        c
    }
}

/// What an [`IdColumn`] holds: a number below 2³² underneath.
pub trait Id: Copy {
    /// The number.
    fn to_u32(self) -> u32;
    /// The id of a number.
    fn from_u32(v: u32) -> Self;
}

impl Id for u32 {
    fn to_u32(self) -> u32 {
        self
    }
    fn from_u32(v: u32) -> u32 {
        v
    }
}

impl Id for super::StrId {
    fn to_u32(self) -> u32 {
        self.0
    }
    fn from_u32(v: u32) -> super::StrId {
        super::StrId(v)
    }
}

/// A column of ids (interned names and categories, pid and tid numbers) in 2 bytes a row while
/// every id is below 65,536 (a rank's distinct strings and ids nearly always are), in 4 from the
/// first that is not: the rows so far are widened once, then appended as they come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdColumn<T> {
    store: IdStore,
    id: std::marker::PhantomData<T>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum IdStore {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl<T> Default for IdColumn<T> {
    fn default() -> IdColumn<T> {
        IdColumn { store: IdStore::Narrow(Vec::new()), id: std::marker::PhantomData }
    }
}

impl<T: Id> IdColumn<T> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.store {
            IdStore::Narrow(v) => v.len(),
            IdStore::Wide(v) => v.len(),
        }
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of row `i` (panics past the end, as a slice does).
    pub fn get(&self, i: usize) -> T {
        T::from_u32(match &self.store {
            IdStore::Narrow(v) => u32::from(v[i]),
            IdStore::Wide(v) => v[i],
        })
    }

    /// Appends an id.
    pub fn push(&mut self, id: T) {
        let v = id.to_u32();
        match &mut self.store {
            IdStore::Narrow(n) => match u16::try_from(v) {
                Ok(x) => n.push(x),
                Err(_) => {
                    let mut w = widened(n);
                    w.push(v);
                    self.store = IdStore::Wide(w);
                }
            },
            IdStore::Wide(w) => w.push(v),
        }
    }

    /// Replaces the id of row `i`.
    pub fn set(&mut self, i: usize, id: T) {
        let v = id.to_u32();
        match (&mut self.store, u16::try_from(v)) {
            (IdStore::Narrow(n), Ok(x)) => n[i] = x,
            (IdStore::Narrow(n), Err(_)) => {
                let mut w = widened(n);
                w[i] = v;
                self.store = IdStore::Wide(w);
            }
            (IdStore::Wide(w), _) => w[i] = v,
        }
    }

    /// Writes the ids into `out` as numbers, 4 little-endian bytes each (`out` is 4 ×
    /// [`IdColumn::len`] bytes).
    pub fn write_le(&self, out: &mut [u8]) {
        match &self.store {
            IdStore::Narrow(v) => out.chunks_exact_mut(4).zip(v).for_each(|(slot, &x)| slot.copy_from_slice(&u32::from(x).to_le_bytes())),
            IdStore::Wide(v) => out.chunks_exact_mut(4).zip(v).for_each(|(slot, &x)| slot.copy_from_slice(&x.to_le_bytes())),
        }
    }

    /// The ids, in row order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        // one of the two is empty: the store is matched once, not at each row
        let (narrow, wide): (&[u16], &[u32]) = match &self.store {
            IdStore::Narrow(v) => (v, &[]),
            IdStore::Wide(v) => (&[], v),
        };
        narrow.iter().map(|&x| u32::from(x)).chain(wide.iter().copied()).map(T::from_u32)
    }

    /// Appends ids given as numbers: in 2 bytes each while every id so far and all of these are
    /// below 65,536 (checked once for all of them), else widened once and appended.
    pub fn extend_from_u32s(&mut self, ids: &[u32]) {
        match &mut self.store {
            IdStore::Narrow(n) if ids.iter().all(|&v| v <= u32::from(u16::MAX)) => n.extend(ids.iter().map(|&v| v as u16)),
            IdStore::Narrow(n) => {
                let mut w = widened(n);
                w.extend_from_slice(ids);
                self.store = IdStore::Wide(w);
            }
            IdStore::Wide(w) => w.extend_from_slice(ids),
        }
    }

    /// Reserves room for exactly `n` more rows.
    pub fn reserve_exact(&mut self, n: usize) {
        match &mut self.store {
            IdStore::Narrow(v) => v.reserve_exact(n),
            IdStore::Wide(v) => v.reserve_exact(n),
        }
    }

    /// The room reserved, in rows.
    pub fn capacity(&self) -> usize {
        match &self.store {
            IdStore::Narrow(v) => v.capacity(),
            IdStore::Wide(v) => v.capacity(),
        }
    }

    /// Releases unused capacity.
    pub fn shrink_to_fit(&mut self) {
        match &mut self.store {
            IdStore::Narrow(v) => v.shrink_to_fit(),
            IdStore::Wide(v) => v.shrink_to_fit(),
        }
    }
}

/// Narrow rows in 4 bytes each, with the room they had and one more row (an id past 65,535 is
/// about to be pushed or set).
fn widened(n: &Vec<u16>) -> Vec<u32> {
    let mut w = Vec::with_capacity(n.capacity().max(n.len() + 1));
    w.extend(n.iter().map(|&x| u32::from(x)));
    w
}

impl<T: Id> Extend<T> for IdColumn<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, ids: I) {
        let ids = ids.into_iter();
        let room = ids.size_hint().0;
        if self.capacity() - self.len() < room {
            self.reserve_exact(room);
        }
        for id in ids {
            self.push(id);
        }
    }
}

impl<T: Id> FromIterator<T> for IdColumn<T> {
    fn from_iter<I: IntoIterator<Item = T>>(ids: I) -> IdColumn<T> {
        let mut c = IdColumn::default();
        c.extend(ids);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_inline_others_aside_each_read_back() {
        let values = [-1, 0, 7, i64::from(i32::MAX), i64::from(i32::MIN), i64::from(i32::MIN) + 1, 1 << 40, -(1 << 40), i64::MAX, 3];
        let c: IntColumn = values.iter().copied().collect();
        assert_eq!(c.len(), values.len());
        assert_eq!(c.iter().collect::<Vec<_>>(), values);
        // i32::MIN, 2^40, -2^40 and i64::MAX are kept aside, in row order
        assert_eq!(c.wide, [(4, i64::from(i32::MIN)), (6, 1 << 40), (7, -(1 << 40)), (8, i64::MAX)]);
        assert_eq!(c.get(9), 3);
    }

    /// `extend_le` of a column's bytes gives what extending by its values gives: all inline, or
    /// some aside (at the rows past those already there), and the column's own bytes again.
    #[test]
    fn columns_extended_from_bytes_as_from_values() {
        let le = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        for values in [vec![], vec![-1, 0, 5, i64::from(i32::MAX)], vec![3, i64::from(i32::MIN), 1 << 40, -7], vec![i64::MAX; 3]] {
            let mut by_values: IntColumn = [9, 1 << 33].into_iter().collect();
            let mut by_bytes = by_values.clone();
            by_values.extend(values.iter().copied());
            by_bytes.extend_le(&le(&values));
            assert_eq!(by_bytes, by_values, "{values:?}");
            let mut written = vec![0; 8 * by_bytes.len()];
            by_bytes.write_le(&mut written);
            let mut again = IntColumn::default();
            again.extend_le(&written);
            assert_eq!(again, by_bytes);
        }
    }

    #[test]
    fn columns_extended_in_parts_and_written_as_bytes() {
        // a second part's values aside at their rows, not the part's; a run across the parts
        let mut c: IntColumn = [1, 1 << 40].into_iter().collect();
        c.extend([2, i64::MIN, 3]);
        assert_eq!(c.wide, [(1, 1 << 40), (3, i64::MIN)]);
        let want = [1, 1 << 40, 2, i64::MIN, 3];
        assert_eq!(c.iter().collect::<Vec<_>>(), want);
        let mut b = vec![0; 40];
        c.write_le(&mut b);
        assert_eq!(b, want.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        let mut r: RunColumn = [4, 5].into_iter().collect();
        r.extend([6, 8, 9]);
        assert_eq!(r.runs, [(0, 4), (3, 8)]);
        let mut b = vec![0; 20];
        r.write_le(&mut b);
        assert_eq!(b, [4u32, 5, 6, 8, 9].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        for ids in [vec![3u32, 65_535], vec![3, 65_536]] {
            let c: IdColumn<u32> = ids.iter().copied().collect();
            let mut b = vec![0; 8];
            c.write_le(&mut b);
            assert_eq!(b, ids.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn set_moves_values_in_and_out_of_the_side_table() {
        let mut c: IntColumn = [1, 2, 3, 4].into_iter().collect();
        c.set(2, 5 << 32); // aside
        c.set(0, 6 << 32); // aside, before the other
        c.set(2, 7 << 32); // stays aside
        c.set(0, -3); // back inline
        c.set(3, i64::from(i32::MIN)); // aside
        assert_eq!(c.iter().collect::<Vec<_>>(), [-3, 2, 7 << 32, i64::from(i32::MIN)]);
        assert_eq!(c.wide, [(2, 7 << 32), (3, i64::from(i32::MIN))]);
    }

    #[test]
    fn runs_hold_values_that_count_up_and_any_other() {
        let values = [5, 6, 7, 9, 10, 0, 0, u32::MAX, 0, 1];
        let c: RunColumn = values.iter().copied().collect();
        assert_eq!(c.len(), values.len());
        assert_eq!(c.iter().collect::<Vec<_>>(), values);
        assert_eq!((0..values.len()).map(|i| c.get(i)).collect::<Vec<_>>(), values);
        // a new run where a value is not one more than the one before (u32::MAX + 1 wraps to 0)
        assert_eq!(c.runs, [(0, 5), (3, 9), (5, 0), (6, 0), (7, u32::MAX)]);
        assert!(RunColumn::default().iter().next().is_none());
    }

    #[test]
    fn ids_stay_narrow_until_one_is_not() {
        let mut c: IdColumn<u32> = [0, 7, 65_535].into_iter().collect();
        assert!(matches!(c.store, IdStore::Narrow(_)));
        c.set(1, 9);
        c.push(65_536);
        assert!(matches!(c.store, IdStore::Wide(_)));
        c.push(3);
        assert_eq!(c.iter().collect::<Vec<_>>(), [0, 9, 65_535, 65_536, 3]);
        let mut d: IdColumn<u32> = [1, 2].into_iter().collect();
        d.set(0, u32::MAX);
        assert_eq!(d.iter().collect::<Vec<_>>(), [u32::MAX, 2]);
    }

    #[test]
    fn ids_appended_at_once_widen_only_past_the_narrow_range() {
        let mut c: IdColumn<u32> = [4].into_iter().collect();
        c.extend_from_u32s(&[0, 65_535]);
        assert!(matches!(c.store, IdStore::Narrow(_)));
        c.extend_from_u32s(&[5, 65_536, 6]);
        assert!(matches!(c.store, IdStore::Wide(_)));
        c.extend_from_u32s(&[7]);
        assert_eq!(c.iter().collect::<Vec<_>>(), [4, 0, 65_535, 5, 65_536, 6, 7]);
    }
}
