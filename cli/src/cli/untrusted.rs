//! Text that came from an agent or a tool (tool names, arguments, results, reasons, owners,
//! notes), made safe to show a person: the one rule for the terminal and for the inbox's HTML.
//!
//! Such text may hold characters that change what a person sees rather than being seen: a
//! terminal runs escape sequences (`ESC[2J` clears the screen, OSC 8 hides a link), a browser
//! honours bidirectional overrides (U+202E reverses the rest of a line, so an amount or an
//! account reads differently), and invisible ones join or split what looks like one word. Each
//! such character is shown as its code point in brackets, `[U+202E]`; everything else is shown
//! as it is (HTML escaping is `maud`'s). JSON written for people and scripts alike keeps its
//! value: those characters are written as `\uXXXX` escapes instead.
//!
//! Only the CLI shows such text to people: the Python and JavaScript packages hand entries and
//! events to the application, which decides how to show them (docs/operations.md).

use serde_json::ser::{CharEscape, Formatter};
use std::borrow::Cow;
use std::io;

/// Whether `c` changes what a person sees instead of being seen: a control character (C0,
/// DEL, C1), a bidirectional formatting character, or an invisible one (zero-width space and
/// joiners, word joiner and invisible operators, the byte-order mark, line and paragraph
/// separators). Tab and line feed count only where text is one line.
pub fn misleading(c: char, one_line: bool) -> bool {
    match c {
        '\t' | '\n' => one_line,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Arabic letter mark; LRM, RLM; LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI.
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        // Zero-width space, non-joiner, joiner; line and paragraph separators; word joiner and
        // the invisible operators; the byte-order mark (zero-width no-break space).
        '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{feff}' => true,
        _ => false,
    }
}

fn shown(text: &str, one_line: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| misleading(c, one_line)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if misleading(c, one_line) {
            out.push_str(&format!("[U+{:04X}]", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` for one line: every misleading character, tab and line feed included, shown as its
/// code point.
pub fn line(text: &str) -> Cow<'_, str> {
    shown(text, true)
}

/// `text` for a block of lines (`<pre>`, pretty JSON): tabs and line feeds kept.
pub fn block(text: &str) -> Cow<'_, str> {
    shown(text, false)
}

/// A `serde_json` formatter that also writes the misleading characters JSON leaves raw as
/// `\uXXXX` escapes: the same value, nothing a terminal or a browser would act on.
struct Escaping<F>(F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|(_, c)| misleading(*c, false)) {
            writer.write_all(&rest.as_bytes()[..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn write_char_escape<W: ?Sized + io::Write>(&mut self, writer: &mut W, escape: CharEscape) -> io::Result<()> {
        self.0.write_char_escape(writer, escape)
    }

    // Layout is the wrapped formatter's (compact or pretty).
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

fn write_json<F: Formatter>(v: &serde_json::Value, f: F) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Escaping(f));
    serde::Serialize::serialize(v, &mut ser).expect("a JSON value always serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// `v` as one line of JSON, misleading characters escaped.
pub fn json(v: &serde_json::Value) -> String {
    write_json(v, serde_json::ser::CompactFormatter)
}

/// `v` as indented JSON, misleading characters escaped.
pub fn json_pretty(v: &serde_json::Value) -> String {
    write_json(v, serde_json::ser::PrettyFormatter::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json as j;

    #[test]
    fn escapes_and_overrides_are_shown_by_their_code_points() {
        assert_eq!(line("refund \u{202e}001$ ot"), "refund [U+202E]001$ ot");
        assert_eq!(line("\u{1b}[2Jcleared\u{1b}]8;;https://evil\u{7}x"), "[U+001B][2Jcleared[U+001B]]8;;https://evil[U+0007]x");
        assert_eq!(line("a\u{9b}31mb\u{200b}c\nd"), "a[U+009B]31mb[U+200B]c[U+000A]d");
        assert_eq!(block("{\n\t\"a\": 1\u{2028}}"), "{\n\t\"a\": 1[U+2028]}");
        assert!(matches!(line("plain text, été, 東京 ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value_and_escapes_what_would_act() {
        let v = j!({"reason": "x\u{1b}[2J\u{202e}y\u{1f600}", "n": [1, 2]});
        let compact = json(&v);
        assert_eq!(compact, r#"{"reason":"x\u001b[2J\u202ey😀","n":[1,2]}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&compact).unwrap(), v);
        let pretty = json_pretty(&v);
        assert!(pretty.contains("\\u202e") && pretty.contains("\n  \"n\": [\n"), "{pretty}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&pretty).unwrap(), v);
    }
}
