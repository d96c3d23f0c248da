//! What the tests see of `Scanner::copies` (in `super`): how many elements it took as copies, and a
//! switch that turns it off (the reference a test compares with). Outside tests, nothing.

#[cfg(test)]
thread_local! {
    static NO_COPIES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static COPIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether this thread's scanners read every element, copies too.
#[cfg(test)]
pub(super) fn no_copies() -> bool {
    NO_COPIES.with(|c| c.get())
}

#[cfg(not(test))]
#[inline(always)]
pub(super) fn no_copies() -> bool {
    false
}

/// Counts `n` elements taken as copies.
#[cfg(test)]
pub(super) fn copied(n: u32) {
    COPIED.with(|c| c.set(c.get() + u64::from(n)));
}

#[cfg(not(test))]
#[inline(always)]
pub(super) fn copied(_n: u32) {}

/// The elements this thread's scanners took as copies, so far.
#[cfg(test)]
pub(crate) fn copies_taken() -> u64 {
    COPIED.with(|c| c.get())
}

/// Runs `f` with scanners that read every element one by one.
#[cfg(test)]
pub(crate) fn without_copies<T>(f: impl FnOnce() -> T) -> T {
    NO_COPIES.with(|c| c.set(true));
    let out = f();
    NO_COPIES.with(|c| c.set(false));
    out
}
