//! cmdsurvey57 (issue #17): the parts of a pasted launch script that belong to the shell, not to the
//! engine, read as bash reads them (GNU Bash Reference Manual, 3.6 "Redirections" and 6.5 "Shell
//! Arithmetic"): output and input redirections (`> 6000d.log 2>&1`, `>> "$LOG_FILE"`, sglang issue
//! 17880, vllm issue 33155) never reach the engine's argv, and `$((85 * 1024))` is replaced by its
//! value before the words are split (vllm issue 33155: `max_model_len=$((85 * 1024))`).
//! cmdsurvey58: a command substitution `$( … )` stays one word (3.5.4 "Command Substitution"), and a
//! bash array `NAME=( … )` expands where `"${NAME[@]}"` stands (6.7 "Arrays").

/// `words` without the shell's redirections, and the redirections removed (as written, for a note).
/// A redirection is an operator word (`>`, `>>`, `<`, `&>`, `>&`, `2>`, `2>>`, … : an optional file
/// descriptor number, then the operator) followed by its target word, or an operator with its
/// target attached (`>out.log`, `2>&1`, `1>>/dev/null`). A word wrapped in `<…>` is a placeholder
/// (`--master-addr <head_node_ip>` in a recipe), kept as written.
pub fn redirections(words: &[String]) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        match operator(w) {
            Some(rest) if rest.is_empty() && i + 1 < words.len() => {
                removed.push(format!("{w} {}", words[i + 1]));
                i += 2;
                continue;
            }
            Some(rest) if !rest.is_empty() => {
                removed.push(w.clone());
            }
            _ => kept.push(w.clone()),
        }
        i += 1;
    }
    (kept, removed)
}

/// The text after a redirection operator at the start of `w` (`""` when `w` is the operator alone),
/// `None` when `w` is no redirection.
fn operator(w: &str) -> Option<&str> {
    if w.starts_with('<') && w.ends_with('>') && w.len() > 2 {
        return None;
    }
    let digits = w.len() - w.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &w[digits..];
    let ops: &[&str] = if digits == 0 {
        &["&>>", "&>", ">>", ">&", ">|", ">", "<<<", "<&", "<"]
    } else {
        &[">>", ">&", ">|", ">", "<&", "<"]
    };
    ops.iter().find_map(|op| rest.strip_prefix(op))
}

/// `line` with each `$(( … ))` whose expression holds only integer literals, `+ - * / %` and
/// parentheses replaced by its value (bash's integer arithmetic: `/` truncates toward zero); other
/// expressions (a variable inside, a division by zero) are left as written.
pub fn arithmetic(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("$((") {
        out.push_str(&rest[..start]);
        let body = &rest[start + 3..];
        let Some(end) = body.find("))") else {
            out.push_str(&rest[start..]);
            return out;
        };
        match eval(&body[..end]) {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push_str(&rest[start..start + 3 + end + 2]),
        }
        rest = &body[end + 2..];
    }
    out.push_str(rest);
    out
}

/// An integer expression of literals, `+ - * / %` and parentheses, by precedence.
fn eval(expr: &str) -> Option<i64> {
    let toks: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = Parser { t: &toks, i: 0 };
    let v = p.sum()?;
    (p.i == toks.len()).then_some(v)
}

struct Parser<'a> {
    t: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn sum(&mut self) -> Option<i64> {
        let mut v = self.product()?;
        while let Some(&c) = self.t.get(self.i).filter(|c| matches!(c, '+' | '-')) {
            self.i += 1;
            let r = self.product()?;
            v = if c == '+' {
                v.checked_add(r)?
            } else {
                v.checked_sub(r)?
            };
        }
        Some(v)
    }

    fn product(&mut self) -> Option<i64> {
        let mut v = self.atom()?;
        while let Some(&c) = self.t.get(self.i).filter(|c| matches!(c, '*' | '/' | '%')) {
            self.i += 1;
            let r = self.atom()?;
            v = match c {
                '*' => v.checked_mul(r)?,
                '/' => v.checked_div(r)?,
                _ => v.checked_rem(r)?,
            };
        }
        Some(v)
    }

    fn atom(&mut self) -> Option<i64> {
        match self.t.get(self.i)? {
            '(' => {
                self.i += 1;
                let v = self.sum()?;
                (self.t.get(self.i) == Some(&')')).then_some(())?;
                self.i += 1;
                Some(v)
            }
            '-' => {
                self.i += 1;
                self.atom()?.checked_neg()
            }
            _ => {
                let start = self.i;
                while self.t.get(self.i).is_some_and(char::is_ascii_digit) {
                    self.i += 1;
                }
                self.t[start..self.i].iter().collect::<String>().parse().ok()
            }
        }
    }
}

/// Stands for a blank inside a command substitution while the line is split into words (a
/// private-use character, which no launch command holds).
const HELD: char = '\u{E000}';

/// cmdsurvey58 (vLLM-Kunlun issue 259: `export VLLM_HOST_IP=$(hostname -i)`): a command substitution
/// `$( … )` belongs to the word around it (GNU Bash Reference Manual 3.5.4 "Command Substitution";
/// 3.5.7 "Word Splitting" splits only its output, which tpsim cannot know), so the blanks inside it
/// split no words. `line` with those blanks held, to be split, then each word passed to
/// [`release`]. An unclosed `$(` (the rest of it on a later line) is left as written.
pub fn hold_substitutions(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut depth = 0usize;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek() == Some(&'(') {
            out.push(c);
            depth += 1;
            if let Some(p) = chars.next() {
                out.push(p);
            }
            continue;
        }
        if depth > 0 {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            out.push(if c == ' ' || c == '\t' { HELD } else { c });
        } else {
            out.push(c);
        }
    }
    if depth > 0 {
        return line.to_string();
    }
    out
}

/// cmdsurvey60 (zai-org/Open-AutoGLM issue 75, a command ending `--port 8000\``): whether `line`
/// leaves a backquote open. Outside single quotes and not escaped by `\`, a backquote starts or ends
/// a command substitution (GNU Bash Reference Manual 3.5.4, the old-style `` `command` `` form); one
/// left open at the end of the input is bash's "unexpected EOF while looking for matching ``'", and
/// the command is not run.
pub fn open_backquote(line: &str) -> bool {
    let mut open = false;
    let mut single = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !open => single = !single,
            '\\' if !single => {
                chars.next();
            }
            '`' if !single => open = !open,
            _ => {}
        }
    }
    open
}

/// `word` with the blanks [`hold_substitutions`] held given back.
pub fn release(word: &str) -> String {
    word.replace(HELD, " ")
}

/// cmdsurvey58 (sglang issue 19104, SGLang's diffusion docs: `SERVER_ARGS=(` one flag a line `)` then
/// `sglang serve "${SERVER_ARGS[@]}"`): a bash array (GNU Bash Reference Manual 6.7 "Arrays":
/// `name=(value1 value2 … )`, and `${name[@]}` expands to each element as a separate word). The
/// array's name and its first elements if `words` starts one (`NAME=(` or `NAME=(a b`), with
/// whether its `)` is on the same line.
pub fn array_start(words: &[String]) -> Option<(String, Vec<String>, bool)> {
    let (name, first) = words.first()?.split_once("=(")?;
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !ok {
        return None;
    }
    let mut elems = Vec::new();
    let closed = array_add(
        &mut elems,
        std::iter::once(first.to_string()).chain(words[1..].iter().cloned()),
    );
    Some((name.to_string(), elems, closed))
}

/// Adds an array's words to `elems` up to its closing `)`; `true` once it is closed.
pub fn array_add(elems: &mut Vec<String>, words: impl IntoIterator<Item = String>) -> bool {
    for w in words {
        if let Some(last) = w.strip_suffix(')') {
            if !last.is_empty() {
                elems.push(last.to_string());
            }
            return true;
        }
        if !w.is_empty() {
            elems.push(w);
        }
    }
    false
}

/// The array a word names whole (`${NAME[@]}` or `${NAME[*]}`, quotes already removed), if any.
pub fn array_ref(w: &str) -> Option<&str> {
    let inner = w.strip_prefix("${")?.strip_suffix('}')?;
    inner.strip_suffix("[@]").or_else(|| inner.strip_suffix("[*]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn redirections_are_the_shells() {
        let (k, r) = redirections(&w(&["a", "--x", "1", ">", "6000d.log", "2>&1"]));
        assert_eq!(k, w(&["a", "--x", "1"]));
        assert_eq!(r, w(&["> 6000d.log", "2>&1"]));
        let (k, r) = redirections(&w(&["a", ">>", "$LOG_FILE", "--m", "<head_node_ip>", ">out"]));
        assert_eq!(k, w(&["a", "--m", "<head_node_ip>"]));
        assert_eq!(r, w(&[">> $LOG_FILE", ">out"]));
        // A value that is no redirection stays.
        let (k, r) = redirections(&w(&["--a", "2", "--b=>"]));
        assert_eq!(k, w(&["--a", "2", "--b=>"]));
        assert!(r.is_empty());
    }

    #[test]
    fn arithmetic_of_literals() {
        // vllm issue 33155: 85 × 1024 = 87,040.
        assert_eq!(arithmetic("max_model_len=$((85 * 1024))"), "max_model_len=87040");
        assert_eq!(arithmetic("x=$(( (1+2)*3 - 7/2 ))y"), "x=6y");
        assert_eq!(arithmetic("x=$((N * 2))"), "x=$((N * 2))");
        assert_eq!(arithmetic("x=$((1/0))"), "x=$((1/0))");
        assert_eq!(arithmetic("no math"), "no math");
    }

    #[test]
    fn a_command_substitution_is_one_word() {
        // vLLM-Kunlun issue 259: `export VLLM_HOST_IP=$(hostname -i)` is one word to bash.
        let held = hold_substitutions("export VLLM_HOST_IP=$(hostname -i) X=1");
        let words: Vec<String> = shlex::split(&held)
            .expect("splits")
            .iter()
            .map(|w| release(w))
            .collect();
        assert_eq!(words, w(&["export", "VLLM_HOST_IP=$(hostname -i)", "X=1"]));
        // Nested parentheses: the two blanks inside `$(b (c) d)` are held, the two outside are not.
        assert_eq!(hold_substitutions("a $(b (c) d) e").matches(HELD).count(), 2);
        assert_eq!(hold_substitutions("a $(b (c) d) e").matches(' ').count(), 2);
        // Unclosed: left as written.
        assert_eq!(hold_substitutions("a $(b c"), "a $(b c");
    }

    #[test]
    fn backquotes_open_and_close() {
        assert!(open_backquote("--port 8000`"));
        assert!(!open_backquote("--host `hostname -i` --port 8000"));
        assert!(!open_backquote("echo '`' \\` done"));
        assert!(open_backquote("echo \"`date\""));
    }

    #[test]
    fn bash_arrays() {
        let (n, e, closed) = array_start(&w(&["ARGS=("])).expect("array");
        assert_eq!((n.as_str(), e.len(), closed), ("ARGS", 0, false));
        let (n, e, closed) = array_start(&w(&["A=(--tp", "2", "--x)"])).expect("array");
        assert_eq!((n.as_str(), e, closed), ("A", w(&["--tp", "2", "--x"]), true));
        let mut e = Vec::new();
        assert!(!array_add(&mut e, w(&["--port", "30010"])));
        assert!(array_add(&mut e, w(&[")"])));
        assert_eq!(e, w(&["--port", "30010"]));
        assert_eq!(array_ref("${SERVER_ARGS[@]}"), Some("SERVER_ARGS"));
        assert_eq!(array_ref("${X}"), None);
        assert!(array_start(&w(&["--a=(b"])).is_none());
    }
}
