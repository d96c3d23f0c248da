//! The I/O timeline: ranks (lanes) × time, each cell coloured by what its rank spent most of that
//! time in (a [`Kind`] of call), as runs of equal cells, for [`Chart::Timeline`]. Calls are
//! summed by the time they cover in a cell, so a `pwrite` made inside an `MPI_File_write_at`
//! shows as MPI-IO (its caller covers at least as long). A call without duration counts 1 ns.
//!
//! Past `max_lanes` ranks a lane is a group of consecutive ranks (`0–3`): the cells sum them.

use crate::table::Chart;

/// What a call is, for the timeline's colours (and their legend order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A POSIX or stdio read.
    Read = 0,
    /// A POSIX or stdio write.
    Write = 1,
    /// Any other POSIX call (open, close, seek, stat, sync, …).
    Metadata = 2,
    /// `MPI_File_*`.
    MpiIo = 3,
    /// Other MPI calls.
    Mpi = 4,
    /// HDF5.
    Hdf5 = 5,
    /// User functions and anything else.
    Other = 6,
}

/// Legend names, by [`Kind`] number.
pub const KIND_NAMES: [&str; 7] = ["read", "write", "metadata (POSIX)", "MPI-IO", "MPI", "HDF5", "other"];

/// Time covered per lane, bin and kind.
#[derive(Debug)]
pub struct Grid {
    start: i64,
    end: i64,
    bins: usize,
    /// Ranks per lane (position among the selected ranks / this = lane).
    per_lane: usize,
    lanes: usize,
    cells: Vec<[f64; 7]>,
}

impl Grid {
    /// A grid over `[start, end]` ns for `ranks` ranks, at most `max_lanes` lanes and `bins` bins.
    pub fn new(start: i64, end: i64, ranks: usize, max_lanes: usize, bins: usize) -> Grid {
        let per_lane = ranks.div_ceil(max_lanes.max(1)).max(1);
        let lanes = ranks.div_ceil(per_lane);
        let bins = bins.max(1);
        Grid { start, end: end.max(start + 1), bins, per_lane, lanes, cells: vec![[0.0; 7]; lanes * bins] }
    }

    fn width(&self) -> f64 {
        (self.end - self.start) as f64 / self.bins as f64
    }

    /// Adds a call of the rank at `position` among the selected ranks, from `start` to `end` ns.
    pub fn add(&mut self, position: usize, start: i64, end: i64, kind: Kind) {
        let lane = position / self.per_lane;
        if lane >= self.lanes {
            return;
        }
        let w = self.width();
        let at = |t: i64| (((t - self.start) as f64 / w) as usize).min(self.bins - 1);
        let row = lane * self.bins;
        if end <= start {
            self.cells[row + at(start)][kind as usize] += 1.0;
            return;
        }
        for b in at(start)..=at(end) {
            let (lo, hi) = (self.start as f64 + b as f64 * w, self.start as f64 + (b + 1) as f64 * w);
            let covered = (end as f64).min(hi) - (start as f64).max(lo);
            if covered > 0.0 {
                self.cells[row + b][kind as usize] += covered;
            }
        }
    }

    /// The lanes' labels: the rank numbers of `ranks` (the selected ranks in order), one or a range.
    fn labels(&self, ranks: &[u32]) -> Vec<String> {
        ranks
            .chunks(self.per_lane)
            .map(|c| match c {
                [one] => one.to_string(),
                _ => format!("{}–{}", c[0], c[c.len() - 1]),
            })
            .collect()
    }

    /// The chart: per lane, runs of cells of the same winning kind, in seconds since the run's start.
    pub fn chart(&self, ranks: &[u32]) -> Chart {
        let w = self.width();
        let secs = |b: usize| (self.start as f64 + b as f64 * w) / 1e9;
        let mut runs = Vec::new();
        for lane in 0..self.lanes {
            let row = &self.cells[lane * self.bins..(lane + 1) * self.bins];
            let winner = |c: &[f64; 7]| {
                let best = (0..7).max_by(|&a, &b| c[a].total_cmp(&c[b]).then(b.cmp(&a)))?;
                (c[best] > 0.0).then_some(best as u8)
            };
            let mut b = 0;
            while b < self.bins {
                let Some(k) = winner(&row[b]) else {
                    b += 1;
                    continue;
                };
                let from = b;
                while b < self.bins && winner(&row[b]) == Some(k) {
                    b += 1;
                }
                runs.push((lane as u32, secs(from), secs(b), k));
            }
        }
        Chart::Timeline {
            title: "I/O timeline: what each rank is in (the call covering most of each cell)".into(),
            x_label: "time since the run's start (s)".into(),
            y_label: "rank".into(),
            lanes: self.labels(ranks),
            kinds: KIND_NAMES.iter().map(|s| s.to_string()).collect(),
            runs,
            arrows: Vec::new(),
            muted: None,
            run_labels: Vec::new(),
            arrow_labels: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_go_to_the_kind_covering_most() {
        // 2 ranks, 10 bins of 100 ns
        let mut g = Grid::new(0, 1000, 2, 8, 10);
        g.add(0, 0, 250, Kind::Write);
        g.add(0, 200, 300, Kind::MpiIo);
        g.add(1, 950, 950, Kind::Read);
        let Chart::Timeline { lanes, runs, .. } = g.chart(&[4, 5]) else { panic!() };
        assert_eq!(lanes, vec!["4", "5"]);
        // bins 0,1 write; bin 2: write 50 vs MPI-IO 100 → MPI-IO; bin 9 of rank 5 read
        assert_eq!(runs, vec![(0, 0.0, 2e-7, 1), (0, 2e-7, 3e-7, 3), (1, 9e-7, 1e-6, 0)]);
    }

    #[test]
    fn many_ranks_share_lanes() {
        let g = Grid::new(0, 10, 10, 4, 2);
        assert_eq!(g.labels(&(0..10).collect::<Vec<u32>>()), vec!["0–2", "3–5", "6–8", "9"]);
    }
}
