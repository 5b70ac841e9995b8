//! The `canonical` interface: RFC 8785 canonicalization with positioned, typed errors.

use crate::canonical_wit::{CanonError, CanonErrorKind, Guest};
use crate::json::{self, ErrorKind};
use crate::prelude::*;

/// Map a parser error to the WIT error, adding line and column.
pub fn to_wit_error(input: &[u8], e: json::Error) -> CanonError {
    let (line, column) = json::line_col(input, e.offset);
    CanonError {
        kind: match e.kind {
            ErrorKind::Syntax => CanonErrorKind::Syntax,
            ErrorKind::InvalidUtf8 => CanonErrorKind::InvalidUtf8,
            ErrorKind::LoneSurrogate => CanonErrorKind::LoneSurrogate,
            ErrorKind::DuplicateKey => CanonErrorKind::DuplicateKey,
            ErrorKind::NumberOverflow => CanonErrorKind::NumberOverflow,
            ErrorKind::InexactInteger => CanonErrorKind::InexactInteger,
            ErrorKind::TooDeep => CanonErrorKind::TooDeep,
            ErrorKind::TooLarge => CanonErrorKind::TooLarge,
        },
        offset: e.offset as u64,
        line,
        column,
        message: msg![e.message, " (line ", line, ", column ", column, ", byte ", e.offset, ")"],
    }
}

/// Canonicalize JSON text.
pub fn canonicalize(text: &str) -> Result<String, CanonError> {
    let v = json::parse(text).map_err(|e| to_wit_error(text.as_bytes(), e))?;
    let mut out = String::with_capacity(text.len());
    json::write(&v, &mut out);
    Ok(out)
}

/// Canonicalize bytes that should be UTF-8 (WTF-8 surrogates are reported as such).
pub fn canonicalize_bytes(bytes: &[u8]) -> Result<String, CanonError> {
    if bytes.len() > json::MAX_INPUT_BYTES {
        // Checked before UTF-8 validation so a huge input costs nothing.
        let e = json::Error {
            kind: ErrorKind::TooLarge,
            offset: json::MAX_INPUT_BYTES,
            message: msg!["the document is ", bytes.len(), " bytes; the limit is ", json::MAX_INPUT_BYTES, " bytes"],
        };
        return Err(to_wit_error(bytes, e));
    }
    let text = json::check_utf8(bytes).map_err(|e| to_wit_error(bytes, e))?;
    canonicalize(text)
}

impl Guest for crate::Core {
    fn max_input_bytes() -> u64 {
        json::MAX_INPUT_BYTES as u64
    }

    fn max_depth() -> u32 {
        json::MAX_DEPTH
    }

    fn canonicalize(json: String) -> Result<String, CanonError> {
        canonicalize(&json)
    }

    fn canonicalize_bytes(json: Vec<u8>) -> Result<String, CanonError> {
        canonicalize_bytes(&json)
    }
}
