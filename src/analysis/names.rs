//! Names and words in tables and notes: HTA's short kernel names (SPEC §1.12), plurals.

use rustc_hash::FxHashMap;

use super::kernel_type::{hta_kernel_type, KernelType};
use crate::model::{RankTrace, StrId};

/// `shorten_name` (§1.12): memory names and names without `<`/`(` unchanged; otherwise template
/// arguments and parameter lists are removed and the last space-separated token is kept
/// (`void foo<int>(float)` → `foo`).
pub fn shorten_name(name: &str) -> String {
    if hta_kernel_type(name) == KernelType::Memory || !name.contains(['<', '(']) {
        return name.to_string();
    }
    let s = name.replace("->", "");
    let mut stack: Vec<char> = Vec::new();
    for c in s.chars() {
        let open = match c {
            '>' => Some('<'),
            ')' => Some('('),
            _ => None,
        };
        match open {
            Some(o) => {
                while let Some(x) = stack.pop() {
                    if x == o {
                        break;
                    }
                }
            }
            None => stack.push(c),
        }
    }
    let joined: String = stack.into_iter().collect();
    joined.split(' ').next_back().unwrap_or("").to_string()
}

/// [`shorten_name`] of a rank's strings, each made once (a critical path names thousands of
/// events, most of them few distinct operators and kernels).
#[derive(Default)]
pub struct ShortNames(FxHashMap<StrId, String>);

impl ShortNames {
    /// The short name of string `id` of rank `r`.
    pub fn get(&mut self, r: &RankTrace, id: StrId) -> &str {
        self.0.entry(id).or_insert_with(|| shorten_name(r.strings.get(id)))
    }
}

/// `s` after a count other than 1 (`format!("{n} step{}", plural(n))`).
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `s` cut in the middle with `…` to `n` characters: the start and, longer, the end are kept
/// (what tells `rank 0 stream 7` from `rank 0 stream 20`, or two kernels of one template, apart).
pub fn middle_cut(s: &str, n: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= n {
        return s.to_string();
    }
    let keep = n.saturating_sub(1);
    let head = keep * 2 / 5;
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortened_names() {
        assert_eq!(shorten_name("void foo<int>(float)"), "foo");
        assert_eq!(shorten_name("aten::add"), "aten::add");
        assert_eq!(shorten_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"), "at::native::vectorized_elementwise_kernel");
        assert_eq!(shorten_name("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
    }
}
