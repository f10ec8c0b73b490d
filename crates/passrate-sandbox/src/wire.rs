//! The private protocol between the host library and the jail process: one request frame on
//! the jail's stdin, one response frame on its stdout. Frames are a little-endian u32 length
//! and a JSON body; byte buffers travel as text when they are UTF-8 and as hex otherwise.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::api::{ExecOutcome, ExecRequest};
use crate::cgroup::Layout;
use crate::runtimes::Runtimes;

/// Upper bound on a frame; outputs are capped far below it.
const MAX_FRAME: usize = 256 << 20;

#[derive(Debug, Serialize, Deserialize)]
pub struct JailRequest {
    pub exec: ExecRequest,
    pub runtimes: Runtimes,
    pub cgroups: Layout,
    /// Host uid/gid that the jail's root maps to; the sandbox user is `uid_base + 1000`.
    pub uid_base: u32,
    pub ro_binds: Vec<PathBuf>,
    /// Mount point of the jail's root (only ever mounted inside the jail's namespace).
    pub root_mountpoint: PathBuf,
}

pub type JailResponse = Result<ExecOutcome, String>;

/// The first frame the jail process reads: one execution in a fresh jail, or become a warm
/// slot that serves executions until its stdin closes.
#[derive(Debug, Serialize, Deserialize)]
pub enum Start {
    Exec(JailRequest),
    Slot(crate::slot::SlotRequest),
    Javac(crate::javac::JavacSlotRequest),
    /// Pre-start one execution (`ExecRequest::prestart`), answer "ready", then run the
    /// hand-over request that follows.
    Prestart(JailRequest),
}

pub fn write_frame<W: Write, T: Serialize>(mut w: W, value: &T) -> io::Result<()> {
    let body = serde_json::to_vec(value).map_err(io::Error::other)?;
    w.write_all(&(body.len() as u32).to_le_bytes())?;
    w.write_all(&body)?;
    w.flush()
}

pub fn read_frame<R: Read, T: for<'de> Deserialize<'de>>(mut r: R) -> io::Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other(format!(
            "frame of {len} bytes is too large"
        )));
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body).map_err(io::Error::other)
}

/// Lower-case hex, without a per-byte allocation (binary files such as `.pyc` go through it
/// on every execution).
pub(crate) fn to_hex(data: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = Vec::with_capacity(data.len() * 2);
    for b in data {
        hex.push(DIGITS[(b >> 4) as usize]);
        hex.push(DIGITS[(b & 15) as usize]);
    }
    String::from_utf8(hex).expect("ASCII")
}

/// Serde adapter for `Vec<u8>`: `{"text": "..."}` when UTF-8, else `{"hex": "..."}`.
pub mod bytes {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Repr {
        Text(String),
        Hex(String),
    }

    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(data) {
            Ok(text) => Repr::Text(text.to_owned()).serialize(s),
            Err(_) => Repr::Hex(super::to_hex(data)).serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Text(t) => Ok(t.into_bytes()),
            Repr::Hex(h) => from_hex(h.as_bytes()).ok_or_else(|| {
                serde::de::Error::custom("invalid hex (odd length or a non-hex digit)")
            }),
        }
    }

    /// Decodes lower- or upper-case hex in one pass.
    fn from_hex(h: &[u8]) -> Option<Vec<u8>> {
        fn digit(c: u8) -> Option<u8> {
            match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                b'A'..=b'F' => Some(c - b'A' + 10),
                _ => None,
            }
        }
        if !h.len().is_multiple_of(2) {
            return None;
        }
        // Sized up front: collecting into Option<Vec> cannot know the length and regrew
        // the vector (a .pyc harness goes through here on every execution).
        let mut out = Vec::with_capacity(h.len() / 2);
        for p in h.chunks_exact(2) {
            out.push(digit(p[0])? << 4 | digit(p[1])?);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Holder(#[serde(with = "super::bytes")] Vec<u8>);

    #[test]
    fn bytes_round_trip_as_text_or_hex() {
        for data in [
            b"plain text\n".to_vec(),
            (0..=255u8).collect(),
            vec![0xa7, 0x0d, 0x0d, 0x0a, 0xff],
        ] {
            let json = serde_json::to_string(&Holder(data.clone())).expect("serialises");
            let back: Holder = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(back.0, data);
        }
        assert!(serde_json::from_str::<Holder>(r#"{"hex":"abc"}"#).is_err());
        assert!(serde_json::from_str::<Holder>(r#"{"hex":"zz"}"#).is_err());
        let upper: Holder = serde_json::from_str(r#"{"hex":"A70D"}"#).expect("upper case");
        assert_eq!(upper.0, vec![0xa7, 0x0d]);
    }
}
