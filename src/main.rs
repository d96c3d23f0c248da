//! The `kinetoscope` command line. Thin: parse arguments, read inputs, call an analysis, render.
//! Exit codes: 0 success, 1 user error (bad input, bad arguments), 2 internal error.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    tune_malloc();
    std::panic::set_hook(Box::new(|info| {
        eprintln!("kinetoscope: internal error: {info}");
        eprintln!("kinetoscope: this is a bug; please report it with the command you ran");
    }));
    match std::panic::catch_unwind(cli::run) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(err)) => {
            if let Some(e) = err.downcast_ref::<clap::Error>() {
                // bad arguments: clap's own message (it starts with "error:" and shows the usage)
                let _ = e.print();
                return ExitCode::from(1);
            }
            if let Some(e) = err.downcast_ref::<std::io::Error>() {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("kinetoscope: {err:#}");
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(2),
    }
}

/// One arena for every thread: memory one thread frees is what the next step on another thread
/// allocates, so the process peaks at what its steps hold at once, not at what each thread's own
/// arena has ever held (each thread its own arena: a 216 MB trace peaked at 408 MiB instead of
/// 317 MiB). Nothing is given back between the analyses (only once, after the read: see
/// [`give_back_freed_memory`]): a trim after each step made the next step fault its memory in
/// again (40 k page faults instead of 12 k for `analyze` of a 100 MB trace, 0.15 instead of
/// 0.07 s of system time), and held the arena's lock while it walked the free memory. Measured
/// on the 100 MB `.json.gz`, 8 alternating runs: 0.335 -> 0.315 s, peak 52 -> 54 MiB; on the
/// 1 GB `.json` 2.91 -> 2.84 s at 407 -> 406 MiB; on 64 ranks 2.5 % slower (the two analysis
/// threads share the arena's lock) at the same peak (docs/performance.md, thirtieth round).
///
/// glibc also raises its mmap threshold to the size of each large block freed (up to 32 MiB),
/// so after the first analysis frees its columns the next ones' columns come from the heap and
/// stay resident when freed; a fixed 4 MiB threshold maps and unmaps every large column: on a
/// 500 MB trace `analyze` peaked at 230–240 MiB instead of 258–264 MiB, no slower (1 MiB took
/// 1 s more of system time: the read's 2 MiB blocks were mapped and unmapped one by one). A
/// 32 MiB threshold makes `analyze` of the 1 GB trace 9 % faster but peak 26 MiB higher.
///
/// Fixing the mmap threshold also fixes glibc's trim threshold at its 128 KiB default: every free
/// that left more than that at the top of the heap gave it back, and the next block's or
/// analysis' columns were faulted in again; it is 64 MiB.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread exists
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Gives the heap's free pages back to the system (glibc keeps memory freed below the top of the
/// heap resident): called once the read's buffers are gone, so the analyses start from what the
/// trace holds.
pub(crate) fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own heap
    unsafe {
        libc::malloc_trim(0);
    }
}
