//! Trace folders among the files the page was given: a Recorder trace is a folder of files read
//! together (`recorder.mt`, `VERSION`, `*.cst`, `*.cfg`, `*.ts`, …), not one file per rank. The
//! page hands every path to [`plan`], which says per path whether it is a trace file of its own,
//! a file of a Recorder folder (one that holds `recorder.mt`, `VERSION`, `*.cst`, `*.cfg` or `*.itf`:
//! `read::recorder::marks_folder`; its `VERSION`, `*.mt`, `*.cst`,
//! `*.cfg`, `*.ts` files are read whole, then [`Folders::add`]), or a file to leave out (the
//! folder's other files, and what is under its subfolders, such as recorder2text's `_text/`: as
//! the CLI reads a Recorder folder); [`Folders::finish`]
//! decodes each folder into ranks.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::RankTrace;
use crate::read::recorder::{is_part, marks_folder};

/// What to do with one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Role {
    /// A trace file of its own (streamed through the reader).
    Trace,
    /// A file of the Recorder folder `folder`, named `name` in it.
    Recorder {
        /// The folder's path (empty: the files were given without a folder).
        folder: String,
        /// The file's name in the folder.
        name: String,
    },
    /// Left out: inside a Recorder folder's subfolder.
    Skip,
}

/// `path` split at its last `/`: (folder, name).
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// The role of each of `paths` (`a/b/c.json`: relative or absolute, `/`-separated).
pub fn plan(paths: &[String]) -> Vec<Role> {
    let folders: Vec<&str> = paths.iter().map(|p| split(p)).filter(|(_, name)| marks_folder(name)).map(|(folder, _)| folder).collect();
    paths
        .iter()
        .map(|p| {
            let (folder, name) = split(p);
            if folders.contains(&folder) {
                return if is_part(name) { Role::Recorder { folder: folder.to_string(), name: name.to_string() } } else { Role::Skip };
            }
            // in a subfolder of a Recorder folder
            let inside = |f: &&str| {
                let rest = if f.is_empty() { Some(p.as_str()).filter(|p| !p.starts_with('/')) } else { p.strip_prefix(&format!("{f}/")) };
                rest.is_some_and(|r| r.contains('/'))
            };
            if folders.iter().any(inside) {
                Role::Skip
            } else {
                Role::Trace
            }
        })
        .collect()
}

/// The files of the Recorder folders being read, by folder.
#[derive(Debug, Default)]
pub struct Folders {
    files: BTreeMap<String, Vec<(String, Vec<u8>)>>,
}

impl Folders {
    /// Adds file `name` of folder `folder`.
    pub fn add(&mut self, folder: &str, name: &str, bytes: Vec<u8>) {
        self.files.entry(folder.to_string()).or_default().push((name.to_string(), bytes));
    }

    /// Decodes every folder: the ranks of those read, and (folder, message) for those that could
    /// not be.
    pub fn finish(self) -> (Vec<RankTrace>, Vec<(String, String)>) {
        let (mut ranks, mut failed) = (Vec::new(), Vec::new());
        for (folder, files) in self.files {
            let shown = if folder.is_empty() { "the Recorder files".to_string() } else { folder.trim_start_matches('/').to_string() };
            let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
            let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
            match crate::read::recorder::model::read_ranks(&refs, &shown, bytes) {
                Ok(r) => ranks.extend(r),
                Err(e) => failed.push((shown.clone(), format!("{shown}: {e}"))),
            }
        }
        (ranks, failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn files_of_a_recorder_folder_are_read_together() {
        let rec = |folder: &str, name: &str| Role::Recorder { folder: folder.into(), name: name.into() };
        let got =
            plan(&paths(&["/run/recorder.mt", "/run/0.cst", "/run/_text/0.txt", "/run/_chrome/t.json", "/other/a.json", "/runner/x.json"]));
        assert_eq!(got, vec![rec("/run", "recorder.mt"), rec("/run", "0.cst"), Role::Skip, Role::Skip, Role::Trace, Role::Trace]);
        // files picked without their folder
        assert_eq!(plan(&paths(&["recorder.mt", "0.ts", "k.json"])), vec![rec("", "recorder.mt"), rec("", "0.ts"), Role::Skip]);
        assert_eq!(plan(&paths(&["a.json", "b/c.json"])), vec![Role::Trace, Role::Trace]);
    }

    #[test]
    fn a_folder_that_does_not_decode_is_named() {
        let mut f = Folders::default();
        f.add("/run", "recorder.mt", b"short".to_vec());
        let (ranks, failed) = f.finish();
        assert!(ranks.is_empty());
        assert_eq!(failed.len(), 1);
        assert!(failed[0].1.starts_with("run: "), "{failed:?}");
    }
}
