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
            Repr::Hex(h) => {
                if h.len() % 2 != 0 {
                    return Err(serde::de::Error::custom("odd hex length"));
                }
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).map_err(serde::de::Error::custom))
                    .collect()
            }
        }
    }
}
