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

/// glibc gives each thread that allocates its own arena and keeps what is freed in it: after the
/// read (blocks parsed on every core) and the analyses (two threads), memory freed by one thread
/// stayed resident in another's arena. One arena: on a 216 MB trace `analyze` peaked at
/// 317 MiB instead of 408 MiB, in the same time (docs/performance.md). Two arenas, one per
/// analysis thread: the threads no longer wait on each other's allocations and trims (the
/// trim after each analysis holds its arena's lock while it walks the free memory); `analyze`
/// of the 100 MB `.json` 5 % faster at the same peak, of the 1 GB one 10 % (407 against 391 MiB).
///
/// glibc also raises its mmap threshold to the size of each large block freed (up to 32 MiB),
/// so after the first analysis frees its columns the next ones' columns come from the heap and
/// stay resident when freed; a fixed 4 MiB threshold maps and unmaps every large column: on a
/// 500 MB trace `analyze` peaked at 230–240 MiB instead of 258–264 MiB, no slower (1 MiB took
/// 1 s more of system time: the read's 2 MiB blocks were mapped and unmapped one by one).
///
/// Fixing the mmap threshold also fixes glibc's trim threshold at its 128 KiB default: every free
/// that left more than that at the top of the heap gave it back, and the next block's or
/// analysis' columns were faulted in again. At 64 MiB, `analyze` on a 100 MB trace takes 41 k
/// page faults instead of 50 k at the same peak; the explicit trims below still give memory back
/// between steps.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread exists
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Gives the heap's free pages back to the system (glibc keeps memory freed below the top of the
/// heap resident): called once the read's buffers are gone and after each analysis is written,
/// so the next one starts from what the trace holds, not from the largest step so far.
pub(crate) fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own heap
    unsafe {
        libc::malloc_trim(0);
    }
}
