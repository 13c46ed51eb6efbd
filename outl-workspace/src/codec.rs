//! The binary encoding the cache is written in, and with it a page's packed blocks (in memory
//! too) and the parts of the index. A [`Persist`] value is put by an [`Encoder`] and taken back
//! exactly by a [`Decoder`], which refuses damaged bytes as [`Corrupt`] rather than trusting
//! them.
//!
//! Numbers are little-endian and fixed-width, counts and lengths LEB128 varints.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash};

use compact_str::CompactString;
use thin_vec::ThinVec;

use outl_format::{Properties, TaskMarker};

/// A cache that does not decode: it is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Corrupt;

#[derive(Debug, Default)]
pub(super) struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    /// Bytes after their count, in one copy.
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        bytes.len().put(self);
        self.bytes.extend_from_slice(bytes);
    }

    /// Bytes as they are, without their count: a file's own framing (a magic, a checksum).
    pub fn put_raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Writes `bytes` over those written from `at` on: a length known only once what it
    /// measures is written.
    pub fn put_at(&mut self, at: usize, bytes: &[u8]) {
        self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

pub(super) struct Decoder<'a> {
    bytes: &'a [u8],
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        Decoder { bytes }
    }

    /// The bytes not taken yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn take_bytes(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        if n > self.bytes.len() {
            return Err(Corrupt);
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }

    pub fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Corrupt> {
        self.take_bytes(N)?.try_into().map_err(|_| Corrupt)
    }

    /// A count of items, each at least one byte long, so that a damaged count cannot ask for
    /// more memory than the cache holds bytes.
    pub fn take_len(&mut self) -> Result<usize, Corrupt> {
        let len = usize::take(self)?;
        if len > self.bytes.len() {
            return Err(Corrupt);
        }
        Ok(len)
    }

    /// Bytes [`Encoder::put_bytes`] wrote.
    pub fn take_bytes_owned(&mut self) -> Result<Vec<u8>, Corrupt> {
        self.take_counted().map(<[u8]>::to_vec)
    }

    /// Text [`Encoder::put_bytes`] wrote.
    fn take_str(&mut self) -> Result<&'a str, Corrupt> {
        std::str::from_utf8(self.take_counted()?).map_err(|_| Corrupt)
    }

    /// Bytes [`Encoder::put_bytes`] wrote, borrowed.
    pub fn take_counted(&mut self) -> Result<&'a [u8], Corrupt> {
        let len = self.take_len()?;
        self.take_bytes(len)
    }

    /// `value`, if the section ends here.
    pub fn end<T>(&self, value: T) -> Result<T, Corrupt> {
        if self.bytes.is_empty() {
            Ok(value)
        } else {
            Err(Corrupt)
        }
    }
}

/// `items` encoded as the cache holds a list.
pub(super) fn encode_list<T: Persist>(items: &[T]) -> Vec<u8> {
    let mut out = Encoder::default();
    put_all(items.iter(), &mut out);
    out.bytes
}

/// The list [`encode_list`] wrote, whole.
pub(super) fn decode_list<T: Persist>(bytes: &[u8]) -> Result<Vec<T>, Corrupt> {
    let mut input = Decoder::new(bytes);
    take_all(&mut input).and_then(|items| input.end(items))
}

/// `value` written and read back, as a cache would hold it.
#[cfg(test)]
pub(super) fn round_trip<T: Persist>(value: &T) -> Result<T, Corrupt> {
    let mut out = Encoder::default();
    value.put(&mut out);
    let mut input = Decoder::new(&out.bytes);
    T::take(&mut input).and_then(|value| input.end(value))
}

/// A value the cache can hold, written and read back exactly.
pub(super) trait Persist: Sized {
    fn put(&self, out: &mut Encoder);
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt>;
}

/// [`Persist`] for a struct: its fields one after the other, in the order listed (every
/// field, so that the struct literal is whole).
macro_rules! persist_fields {
    ($name:ident { $($field:ident),* $(,)? }) => {
        impl $crate::codec::Persist for $name {
            fn put(&self, out: &mut $crate::codec::Encoder) {
                $($crate::codec::Persist::put(&self.$field, out);)*
            }
            fn take(
                input: &mut $crate::codec::Decoder<'_>,
            ) -> Result<Self, $crate::codec::Corrupt> {
                Ok($name {
                    $($field: $crate::codec::Persist::take(input)?,)*
                })
            }
        }
    };
}
pub(super) use persist_fields;

macro_rules! persist_int {
    ($($t:ty),*) => {$(
        impl Persist for $t {
            fn put(&self, out: &mut Encoder) {
                out.bytes.extend_from_slice(&self.to_le_bytes());
            }
            fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
                input.take_array().map(<$t>::from_le_bytes)
            }
        }
    )*};
}
persist_int!(u8, u32, u64, i32, i64);

/// Counts and lengths, as LEB128 varints: most are small, and take one byte.
impl Persist for usize {
    fn put(&self, out: &mut Encoder) {
        let mut rest = *self as u64;
        while rest >= 0x80 {
            out.bytes.push(rest as u8 | 0x80);
            rest >>= 7;
        }
        out.bytes.push(rest as u8);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = u8::take(input)?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return usize::try_from(value).map_err(|_| Corrupt);
            }
        }
        Err(Corrupt)
    }
}

impl Persist for String {
    fn put(&self, out: &mut Encoder) {
        out.put_bytes(self.as_bytes());
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        input.take_str().map(str::to_owned)
    }
}

impl Persist for CompactString {
    fn put(&self, out: &mut Encoder) {
        out.put_bytes(self.as_bytes());
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        input.take_str().map(CompactString::from)
    }
}

impl<T: Persist> Persist for Option<T> {
    fn put(&self, out: &mut Encoder) {
        match self {
            None => 0u8.put(out),
            Some(value) => {
                1u8.put(out);
                value.put(out);
            }
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        match u8::take(input)? {
            0 => Ok(None),
            1 => T::take(input).map(Some),
            _ => Err(Corrupt),
        }
    }
}

impl<A: Persist, B: Persist> Persist for (A, B) {
    fn put(&self, out: &mut Encoder) {
        self.0.put(out);
        self.1.put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        Ok((A::take(input)?, B::take(input)?))
    }
}

/// Writes the items of a sequence after their count.
pub(super) fn put_all<'a, T: Persist + 'a>(
    items: impl ExactSizeIterator<Item = &'a T>,
    out: &mut Encoder,
) {
    items.len().put(out);
    for item in items {
        item.put(out);
    }
}

/// Writes `len` key-value pairs after their count (a map's or a property list's).
fn put_pairs<'a, K: Persist + 'a, V: Persist + 'a>(
    len: usize,
    pairs: impl IntoIterator<Item = (&'a K, &'a V)>,
    out: &mut Encoder,
) {
    len.put(out);
    for (key, value) in pairs {
        key.put(out);
        value.put(out);
    }
}

/// Reads a sequence [`put_all`] wrote into any collection.
pub(super) fn take_all<T: Persist, C: FromIterator<T>>(
    input: &mut Decoder<'_>,
) -> Result<C, Corrupt> {
    let len = input.take_len()?;
    (0..len).map(|_| T::take(input)).collect()
}

impl<T: Persist> Persist for Vec<T> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<T: Persist> Persist for Box<[T]> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<T: Persist> Persist for ThinVec<T> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<K: Persist + Eq + Hash, V: Persist, S: BuildHasher + Default> Persist
    for std::collections::HashMap<K, V, S>
{
    fn put(&self, out: &mut Encoder) {
        put_pairs(self.len(), self, out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let len = input.take_len()?;
        let mut map = Self::with_capacity_and_hasher(len, S::default());
        for _ in 0..len {
            map.insert(K::take(input)?, V::take(input)?);
        }
        Ok(map)
    }
}

impl<K: Persist + Ord, V: Persist> Persist for BTreeMap<K, V> {
    fn put(&self, out: &mut Encoder) {
        self.len().put(out);
        for (key, value) in self {
            key.put(out);
            value.put(out);
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all::<(K, V), _>(input)
    }
}

impl Persist for TaskMarker {
    fn put(&self, out: &mut Encoder) {
        let position = TaskMarker::ALL.iter().position(|m| m == self).unwrap_or(0);
        (position as u8).put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        TaskMarker::ALL
            .get(u8::take(input)? as usize)
            .copied()
            .ok_or(Corrupt)
    }
}

impl Persist for Properties {
    fn put(&self, out: &mut Encoder) {
        put_pairs(self.len(), self, out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let len = input.take_len()?;
        let mut properties = Properties::with_capacity(len);
        for _ in 0..len {
            properties.insert(String::take(input)?, String::take(input)?);
        }
        Ok(properties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_back_whatever_their_size_and_overlong_ones_do_not() {
        for n in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as usize,
            usize::MAX,
        ] {
            assert_eq!(round_trip(&n), Ok(n));
        }
        let mut input = Decoder::new(&[0x80; 11]);
        assert_eq!(usize::take(&mut input), Err(Corrupt));
        // A count larger than what follows is refused before anything is allocated.
        let mut out = Encoder::default();
        1_000_000usize.put(&mut out);
        let mut input = Decoder::new(&out.bytes);
        assert_eq!(Vec::<u64>::take(&mut input), Err(Corrupt));
    }
}
