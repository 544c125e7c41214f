//! The table file: one layer per file, a header saying what it holds and a SHA-256
//! checksum over everything before it, so that a truncated or altered file is refused.
//!
//! ```text
//! magic      8 bytes  "MTBEGTB\0"
//! version    u32      FORMAT_VERSION
//! ruleset    u16 length, then the canonical ruleset name (UTF-8)
//! stones     u32      the layer's stone count
//! positions  u64      South to move first, then North (see LayerIndex)
//! codes      u16 per position (see Value::code)
//! checksum   32 bytes SHA-256 of all the bytes above
//! ```
//! Integers are little-endian.

use std::path::{Path, PathBuf};

use matombo_core::Ruleset;
use sha2::{Digest, Sha256};

use crate::index::LayerIndex;
use crate::{Error, Layer};

const MAGIC: &[u8; 8] = b"MTBEGTB\0";
/// The version of the file format this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The directory of `ruleset`'s tables under `dir`: its name with `:`, `,` and `=` as `_`.
pub fn ruleset_dir(dir: &Path, ruleset: Ruleset) -> PathBuf {
    let name: String = ruleset.to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    dir.join(name)
}

/// The file of the layer of `stones` stones of `ruleset` under `dir`.
pub fn layer_path(dir: &Path, ruleset: Ruleset, stones: u32) -> PathBuf {
    ruleset_dir(dir, ruleset).join(format!("layer-{stones:03}.mtb"))
}

/// The bytes of a layer's file.
pub fn encode(ruleset: Ruleset, layer: &Layer) -> Vec<u8> {
    let name = ruleset.to_string();
    let mut out = Vec::with_capacity(64 + 2 * layer.codes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&layer.index.stones().to_le_bytes());
    out.extend_from_slice(&(layer.codes.len() as u64).to_le_bytes());
    for c in &layer.codes {
        out.extend_from_slice(&c.to_le_bytes());
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// Reads a layer's bytes back, checking the checksum, then that the header is the layer
/// of `stones` stones of `ruleset` and the codes are all values.
pub fn decode(bytes: &[u8], ruleset: Ruleset, stones: u32) -> Result<Layer, Error> {
    let corrupt = |why: &str| Error::Corrupt(why.to_string());
    if bytes.len() < MAGIC.len() + 32 || &bytes[..8] != MAGIC {
        return Err(corrupt("not a matombo table file"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(body).as_slice() != sum {
        return Err(corrupt("checksum mismatch (truncated or altered)"));
    }
    let mut r = Reader { bytes: &body[8..] };
    let version = u32::from_le_bytes(r.take::<4>()?);
    if version != FORMAT_VERSION {
        return Err(Error::Version { found: version, expected: FORMAT_VERSION });
    }
    let name_len = u16::from_le_bytes(r.take::<2>()?) as usize;
    let name = std::str::from_utf8(r.slice(name_len)?).map_err(|_| corrupt("ruleset name is not UTF-8"))?;
    if name != ruleset.to_string() {
        return Err(Error::Mismatch(format!("the file is for {name}, not {ruleset}")));
    }
    let found = u32::from_le_bytes(r.take::<4>()?);
    if found != stones {
        return Err(Error::Mismatch(format!("the file holds {found} stones, not {stones}")));
    }
    let index = LayerIndex::new(ruleset, stones).ok_or(Error::TooBig { stones })?;
    let count = u64::from_le_bytes(r.take::<8>()?);
    if count != index.len() || r.bytes.len() as u64 != 2 * count {
        return Err(corrupt("position count does not match the ruleset"));
    }
    let codes: Vec<u16> = r.bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    if codes.iter().any(|&c| crate::Value::from_code(c).is_none()) {
        return Err(corrupt("a code that is no value"));
    }
    Ok(Layer { index, codes })
}

/// The ruleset named in the header of the table file at `path` (the checksum is not
/// checked here: [`read`] checks the whole file).
pub fn ruleset_of(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io(path.display().to_string(), e))?;
    let corrupt = |why: &str| Error::Corrupt(format!("{}: {why}", path.display()));
    if bytes.len() < MAGIC.len() + 32 || &bytes[..8] != MAGIC {
        return Err(corrupt("not a matombo table file"));
    }
    let mut r = Reader { bytes: &bytes[8..] };
    r.take::<4>()?;
    let name_len = u16::from_le_bytes(r.take::<2>()?) as usize;
    let name = std::str::from_utf8(r.slice(name_len)?).map_err(|_| corrupt("ruleset name is not UTF-8"))?;
    Ok(name.to_string())
}

/// Reads and checks the layer file of `stones` stones of `ruleset` under `dir`.
pub fn read(dir: &Path, ruleset: Ruleset, stones: u32) -> Result<Layer, Error> {
    let path = layer_path(dir, ruleset, stones);
    let bytes = std::fs::read(&path).map_err(|e| Error::Io(path.display().to_string(), e))?;
    decode(&bytes, ruleset, stones).map_err(|e| e.in_file(&path))
}

/// Writes a layer's file, whole or not at all (a temporary file renamed into place).
pub fn write(dir: &Path, ruleset: Ruleset, layer: &Layer) -> Result<PathBuf, Error> {
    let path = layer_path(dir, ruleset, layer.index.stones());
    let io = |e| Error::Io(path.display().to_string(), e);
    std::fs::create_dir_all(path.parent().expect("a layer file has a directory")).map_err(io)?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, encode(ruleset, layer)).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    Ok(path)
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn slice(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.bytes.len() < n {
            return Err(Error::Corrupt("header cut short".into()));
        }
        let (a, b) = self.bytes.split_at(n);
        self.bytes = b;
        Ok(a)
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        Ok(self.slice(N)?.try_into().expect("N bytes"))
    }
}
