//! Token-level helpers: recognizing the marker macros and scanning token streams for names.
//!
//! Foreign macro invocations (`assert!`, `debug_assert!`, `write!` ...) cannot be parsed, so
//! their tokens are scanned: every identifier that names a local in scope counts as a use
//! (conservative: a field name or a path segment is skipped, anything else is a use).

use proc_macro2::{Span, TokenStream, TokenTree};

/// The two marker macros.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum MarkerKind {
    /// `task!(..)`
    Task,
    /// `taskwait!(..)`
    Wait,
}

impl MarkerKind {
    /// How the marker is written, for messages.
    pub(crate) fn display(self) -> &'static str {
        match self {
            MarkerKind::Task => "task!(..)",
            MarkerKind::Wait => "taskwait!()",
        }
    }
}

/// Whether `path` names one of our markers: `task`, `gtap::task`, `::gtap::task` (same for
/// `taskwait`).
pub(crate) fn marker_kind(path: &syn::Path) -> Option<MarkerKind> {
    let n = path.segments.len();
    let last = path.segments.last()?;
    if n > 2 || (n == 2 && path.segments[0].ident != "gtap") {
        return None;
    }
    if last.ident == "task" {
        Some(MarkerKind::Task)
    } else if last.ident == "taskwait" {
        Some(MarkerKind::Wait)
    } else {
        None
    }
}

/// The name of the placeholder macro that replaces a marker statement between the structure
/// pass and the lowering; never emitted.
pub(crate) const PLACEHOLDER: &str = "__gtap_marker";

/// `__gtap_typed!(tmp)`: the value of a `let` over a construct with markers, read from its
/// temporary (see [`crate::structure`]); the lowering replaces it. Never emitted.
pub(crate) const TYPED: &str = "__gtap_typed";

/// The prefix of the hidden locals that hold a result until its join applies the rest of the
/// statement (`x += task!(..)`, `let (a, b) = task!(..)`; see `structure::deferred`).
pub(crate) const DEFERRED: &str = "__gtap_deferred_";

/// Calls `f` on every identifier of `tokens` that may be a use of a local: identifiers after
/// a single `.` or `::`, before `::`, a macro's `!` or a single `:` (path segments, fields,
/// macro names, struct literal field names) are skipped; one after `..` (`0..n`, `P { ..base
/// }`) or before `!=` is a use.
/// The names a format string captures (`"{x}"`, `"{x:?}"`) are uses too, spanned at the
/// string.
pub(crate) fn scan_idents(tokens: TokenStream, f: &mut dyn FnMut(&proc_macro2::Ident)) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let is_dot = |j: usize| matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == '.');
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => scan_idents(g.stream(), f),
            TokenTree::Literal(lit) => format_captures(lit, f),
            TokenTree::Ident(id) => {
                let after_dot = i >= 1 && is_dot(i - 1) && !(i >= 2 && is_dot(i - 2));
                let after_path = i >= 2
                    && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
                let next = trees.get(i + 1);
                // `name!(..)`, not `x != y` (whose `!` is joined to the `=`).
                let before_bang = matches!(next, Some(TokenTree::Punct(p))
                    if p.as_char() == '!' && p.spacing() == proc_macro2::Spacing::Alone);
                let before_colon = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if !(after_dot || after_path || before_bang || before_colon) {
                    f(id);
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on each name that a string literal would capture as a format string: `{name}` or
/// `{name:spec}` (not `{{`, positions or expressions). Over-approximates: any string literal
/// is read, whether or not a format macro takes it, which only saves more.
fn format_captures(lit: &proc_macro2::Literal, f: &mut dyn FnMut(&proc_macro2::Ident)) {
    let text = lit.to_string();
    if !(text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#")) {
        return;
    }
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(len);
        let starts_like_ident = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if starts_like_ident && name != "_" && (after.starts_with('}') || after.starts_with(':')) {
            f(&proc_macro2::Ident::new(name, lit.span()));
        }
    }
}

/// Whether `tokens` contain an invocation `name!` of a marker (or, with `placeholder`, of the
/// placeholder).
pub(crate) fn contains_marker(tokens: TokenStream, placeholder: bool) -> bool {
    if placeholder {
        contains_macro(tokens, PLACEHOLDER)
    } else {
        find_marker(tokens).is_some()
    }
}

/// The span of the first marker invocation in `tokens` with its kind, if any.
pub(crate) fn find_marker(tokens: TokenStream) -> Option<(MarkerKind, Span)> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                if let Some(hit) = find_marker(g.stream()) {
                    return Some(hit);
                }
            }
            TokenTree::Ident(id) => {
                let bang =
                    matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if bang && id == "task" {
                    return Some((MarkerKind::Task, id.span()));
                }
                if bang && id == "taskwait" {
                    return Some((MarkerKind::Wait, id.span()));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `tokens` contain an invocation `name!`.
pub(crate) fn contains_macro(tokens: TokenStream, name: &str) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tt)| match tt {
        TokenTree::Group(g) => contains_macro(g.stream(), name),
        TokenTree::Ident(id) => {
            id == name
                && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
        }
        _ => false,
    })
}

/// The span of the first `?` operator token in `tokens`, if any (a `?` of a foreign macro's
/// arguments that the lowering cannot rewrite).
pub(crate) fn find_question(tokens: TokenStream) -> Option<Span> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Group(g) => find_question(g.stream()),
        TokenTree::Punct(p) if p.as_char() == '?' => Some(p.span()),
        _ => None,
    })
}

/// The span of a leading `#[cfg(..)]` or `#[cfg_attr(..)]` on `stmt`, if it has one: the
/// statement may be compiled out, which the macro cannot see.
pub(crate) fn cfg_attr_span(stmt: &syn::Stmt) -> Option<Span> {
    use quote::ToTokens;
    let trees: Vec<TokenTree> = stmt.to_token_stream().into_iter().collect();
    let mut i = 0;
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) =
        (trees.get(i), trees.get(i + 1))
    {
        if p.as_char() != '#' {
            break;
        }
        if let Some(TokenTree::Ident(id)) = g.stream().into_iter().next() {
            if id == "cfg" || id == "cfg_attr" {
                return Some(g.span());
            }
        }
        i += 2;
    }
    None
}
