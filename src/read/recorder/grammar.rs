//! A rank's grammar (CFG): the Sequitur rules whose expansion from rule -1 is the rank's sequence
//! of terminal ids (call signatures), one per call in time order.
//!
//! Layout (`serialize_grammar` in `lib/recorder-sequitur-logger.c`; a pilgrim `<rank>.cfg` or
//! `<ug>.cfg`, or one inflated gotcha block), all C `int`s:
//!
//! | field | meaning |
//! |---|---|
//! | rules | number of rules |
//! | per rule: rule id | negative; the start rule is -1 |
//! | symbols | number of symbols in its body |
//! | symbols × (val, exp) | `val ≥ 0`: terminal id, `val < 0`: rule id; `exp`: repetitions |
//!
//! Expansion never recurses (a corrupt file may nest rules deeply), rejects cycles and undefined
//! rules, and first computes how many terminals the start rule yields, so the work is bounded by
//! the timestamps actually present.

use std::collections::{HashMap, HashSet};

use super::bytes::Bytes;
use super::error::{ErrorKind, RecorderError};

/// The start rule's id.
pub const START_RULE: i32 = -1;

/// One symbol of a rule body: terminal id (`val ≥ 0`) or rule id (`val < 0`), repeated `exp` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// Terminal id or rule id.
    pub val: i32,
    /// Repetitions (zero or more).
    pub exp: u32,
}

/// A parsed grammar: rule id → body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grammar {
    /// The rules by id.
    pub rules: HashMap<i32, Vec<Symbol>>,
}

/// Reads a serialized grammar from `data` (the file, or inflated block, named `file`).
pub fn parse_grammar(file: &str, data: &[u8]) -> Result<Grammar, RecorderError> {
    let mut b = Bytes::new(file, data);
    let count = b.count("the number of rules")?;
    let mut rules = HashMap::new();
    for _ in 0..count {
        let at = b.pos();
        let id = b.i32("a rule id")?;
        let symbols = b.count("a rule's number of symbols")?;
        if symbols > b.remaining() / 8 {
            return Err(b.corrupt_at(at, format!("rule {id} has {symbols} symbols but only {} bytes follow", b.remaining())));
        }
        let mut body = Vec::with_capacity(symbols);
        for _ in 0..symbols {
            let val = b.i32("a symbol's value")?;
            let exp_at = b.pos();
            let exp = b.i32("a symbol's repetition count")?;
            let exp = u32::try_from(exp).map_err(|_| b.corrupt_at(exp_at, format!("symbol {val} of rule {id} repeats {exp} times")))?;
            body.push(Symbol { val, exp });
        }
        if rules.insert(id, body).is_some() {
            return Err(b.corrupt_at(at, format!("rule {id} is defined twice")));
        }
    }
    Ok(Grammar { rules })
}

impl Grammar {
    /// How many terminals each rule reachable from the start rule expands to (saturating),
    /// checking that every rule it uses is defined, that no rule uses itself, and that every
    /// terminal id is below `terminals`.
    pub fn expanded_lengths(&self, terminals: usize) -> Result<HashMap<i32, u64>, String> {
        let mut done: HashMap<i32, u64> = HashMap::new();
        self.length_of(START_RULE, terminals, &mut done)?;
        Ok(done)
    }

    /// Post-order walk from `root` with an explicit stack of (rule, next symbol to look at),
    /// filling `done`; a rule met again while still on the stack is a cycle.
    fn length_of(&self, root: i32, terminals: usize, done: &mut HashMap<i32, u64>) -> Result<(), String> {
        if done.contains_key(&root) {
            return Ok(());
        }
        let mut visiting: HashSet<i32> = HashSet::from([root]);
        let mut stack: Vec<(i32, usize)> = vec![(root, 0)];
        while let Some((id, next)) = stack.last_mut() {
            let id = *id;
            let body = self.rules.get(&id).ok_or_else(|| format!("rule {id} is used but not defined"))?;
            while *next < body.len() && (body[*next].val >= 0 || done.contains_key(&body[*next].val)) {
                *next += 1;
            }
            if let Some(child) = body.get(*next) {
                if !visiting.insert(child.val) {
                    return Err(format!("rule {} uses itself", child.val));
                }
                stack.push((child.val, 0));
                continue;
            }
            let mut len = 0u64;
            for s in body {
                let each = match usize::try_from(s.val) {
                    Ok(t) if t < terminals => 1,
                    Ok(t) => return Err(format!("rule {id} uses terminal {t} but the call-signature table has {terminals} entries")),
                    Err(_) => done[&s.val],
                };
                len = len.saturating_add(each.saturating_mul(u64::from(s.exp)));
            }
            done.insert(id, len);
            visiting.remove(&id);
            stack.pop();
        }
        Ok(())
    }

    /// The terminal ids the start rule expands to, in order. `lengths` is
    /// [`Grammar::expanded_lengths`]; the caller has checked that the start rule's length is
    /// affordable.
    pub fn expand(&self, lengths: &HashMap<i32, u64>) -> Vec<u32> {
        let mut out = Vec::with_capacity(lengths.get(&START_RULE).copied().unwrap_or(0).min(1 << 24) as usize);
        // (body, symbol index, repetitions of that symbol done)
        let mut stack: Vec<(&[Symbol], usize, u32)> = Vec::new();
        if let Some(body) = self.rules.get(&START_RULE) {
            stack.push((body, 0, 0));
        }
        while let Some(top) = stack.last_mut() {
            let Some(&sym) = top.0.get(top.1) else {
                stack.pop();
                continue;
            };
            if top.2 >= sym.exp || (sym.val < 0 && lengths.get(&sym.val) == Some(&0)) {
                (top.1, top.2) = (top.1 + 1, 0);
                continue;
            }
            if sym.val >= 0 {
                out.extend(std::iter::repeat_n(sym.val as u32, sym.exp as usize));
                (top.1, top.2) = (top.1 + 1, 0);
            } else if let Some(body) = self.rules.get(&sym.val) {
                top.2 += 1;
                stack.push((body, 0, 0));
            }
        }
        out
    }
}

/// The terminal sequence of `grammar` (read from `file`), with `terminals` call signatures and at
/// most `limit` calls (the timestamps present).
pub fn terminal_sequence(file: &str, grammar: &Grammar, terminals: usize, limit: usize) -> Result<Vec<u32>, RecorderError> {
    let corrupt = |msg: String| RecorderError::in_file(file, ErrorKind::Corrupt(msg));
    if !grammar.rules.contains_key(&START_RULE) {
        return Err(corrupt(format!("no start rule {START_RULE}")));
    }
    let lengths = grammar.expanded_lengths(terminals).map_err(corrupt)?;
    let calls = lengths[&START_RULE];
    if calls > limit as u64 {
        return Err(corrupt(format!("the grammar expands to {calls} calls but there are timestamps for only {limit}")));
    }
    Ok(grammar.expand(&lengths))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serializes rules as `serialize_grammar` does.
    fn serialize(rules: &[(i32, &[(i32, i32)])]) -> Vec<u8> {
        let mut v = vec![rules.len() as i32];
        for (id, body) in rules {
            v.extend([*id, body.len() as i32]);
            for (val, exp) in *body {
                v.extend([*val, *exp]);
            }
        }
        v.iter().flat_map(|i| i.to_le_bytes()).collect()
    }

    #[test]
    fn expands_nested_rules_with_repetitions() {
        // -1 -> 0 (-2)^3 4^2 ;  -2 -> 1 (-3) ;  -3 -> 2 3
        let data = serialize(&[(-1, &[(0, 1), (-2, 3), (4, 2)]), (-2, &[(1, 1), (-3, 1)]), (-3, &[(2, 1), (3, 1)])]);
        let g = parse_grammar("0.cfg", &data).unwrap();
        assert_eq!(terminal_sequence("0.cfg", &g, 5, 100).unwrap(), vec![0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 4]);
        assert_eq!(g.expanded_lengths(5).unwrap()[&-2], 3);
    }

    #[test]
    fn empty_rules_and_zero_repetitions_yield_nothing() {
        let data = serialize(&[(-1, &[(-2, 1000000), (0, 0), (1, 1)]), (-2, &[])]);
        let g = parse_grammar("0.cfg", &data).unwrap();
        assert_eq!(terminal_sequence("0.cfg", &g, 2, 10).unwrap(), vec![1]);
    }

    #[test]
    fn cycles_undefined_rules_and_bad_terminals_are_errors() {
        let seq = |rules: &[(i32, &[(i32, i32)])], terminals| {
            let g = parse_grammar("0.cfg", &serialize(rules)).unwrap();
            terminal_sequence("0.cfg", &g, terminals, 100).unwrap_err().to_string()
        };
        assert_eq!(seq(&[(-1, &[(-2, 1)]), (-2, &[(-3, 1)]), (-3, &[(-2, 1)])], 1), "0.cfg: corrupt: rule -2 uses itself");
        assert_eq!(seq(&[(-1, &[(-1, 1)])], 1), "0.cfg: corrupt: rule -1 uses itself");
        assert_eq!(seq(&[(-1, &[(-5, 1)])], 1), "0.cfg: corrupt: rule -5 is used but not defined");
        assert_eq!(seq(&[(-1, &[(3, 1)])], 2), "0.cfg: corrupt: rule -1 uses terminal 3 but the call-signature table has 2 entries");
        assert_eq!(seq(&[(-2, &[(0, 1)])], 1), "0.cfg: corrupt: no start rule -1");
        assert_eq!(seq(&[(-1, &[(0, 101)])], 1), "0.cfg: corrupt: the grammar expands to 101 calls but there are timestamps for only 100");
    }

    #[test]
    fn parse_errors_have_offsets() {
        let mut data = serialize(&[(-1, &[(0, 1)])]);
        data.truncate(data.len() - 2);
        assert_eq!(
            parse_grammar("1.cfg", &data).unwrap_err().to_string(),
            "1.cfg at byte 4: corrupt: rule -1 has 1 symbols but only 6 bytes follow"
        );
        let data = serialize(&[(-1, &[(0, -2)])]);
        assert_eq!(
            parse_grammar("1.cfg", &data).unwrap_err().to_string(),
            "1.cfg at byte 16: corrupt: symbol 0 of rule -1 repeats -2 times"
        );
        let data = serialize(&[(-1, &[]), (-1, &[])]);
        assert_eq!(parse_grammar("1.cfg", &data).unwrap_err().to_string(), "1.cfg at byte 12: corrupt: rule -1 is defined twice");
    }
}
