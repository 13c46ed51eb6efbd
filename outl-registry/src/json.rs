//! A JSON writer for replies: the bytes `serde_json` writes, written faster where replies
//! spend their time, and, for a server whose types have a compact form of their own, that form
//! ([`compact_form`]). A reply is serialized twice on its way out: the projection writes
//! the payload (block texts, mostly plain prose), and the transport writes the JSON-RPC line
//! around it, where the payload is one long string whose every `"` is escaped again.
//! `serde_json` looks at a string one byte at a time and hands its formatter one fragment per
//! escape; `Serializer` looks at eight bytes at once and copies whole runs. Everything else
//! (numbers, the order of events, what is an error) is `serde_json`'s: the serializer drives
//! its [`CompactFormatter`] through the events `serde_json::Serializer` would.

use std::cell::RefCell;
use std::fmt::Display;
use std::io;
use std::num::FpCategory;
use std::thread::LocalKey;

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;
use serde_json::ser::{CompactFormatter, Formatter};

/// A buffer is kept between replies up to this size; one that a larger reply grew is let go,
/// so that a rare huge reply does not hold its memory.
pub const KEPT_BUFFER_BYTES: usize = 1 << 20;

/// Runs `write` on the emptied buffer of `kept` (a thread's own), so that a large reply is not
/// written into a buffer that grows from nothing, by doubling, every time; then lets go of the
/// buffer if it grew beyond [`KEPT_BUFFER_BYTES`]. Should `kept` be in use, on a fresh one.
fn with_buffer<R>(
    kept: &'static LocalKey<RefCell<Vec<u8>>>,
    write: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    kept.with(|kept| match kept.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            let written = write(&mut buffer);
            if buffer.capacity() > KEPT_BUFFER_BYTES {
                *buffer = Vec::new();
            }
            written
        }
        Err(_) => write(&mut Vec::new()),
    })
}

/// `value` as compact JSON appended to `out`: the bytes of `serde_json::to_writer`.
pub fn write_compact<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    write(value, out, true)
}

/// `value` as compact JSON, each type in its compact form: the serializer is not
/// human-readable, which serde has a type answer with the form it takes in a binary format. A
/// server whose reply types have a compact form for a model (outl's outline nodes are arrays)
/// writes its JSON payloads with it ([`Server::success_json`](crate::Server::success_json));
/// mind that some types of other crates answer with bytes (`uuid`, `std::net`). It is written
/// into a buffer kept by the thread and copied out once.
pub fn compact_form<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    thread_local! {
        static KEPT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    with_buffer(&KEPT, |out| {
        write(value, out, false)?;
        // The serializer writes UTF-8.
        std::str::from_utf8(out)
            .map(str::to_owned)
            .map_err(|e| Error::io(io::Error::other(e)))
    })
}

/// Serializes `value`, appending it to `out`.
fn write<T: Serialize + ?Sized>(
    value: &T,
    out: &mut Vec<u8>,
    human_readable: bool,
) -> Result<(), Error> {
    value.serialize(&mut Serializer {
        out,
        human_readable,
    })
}

/// `serde_json::Serializer` with a buffer as its writer, a [`CompactFormatter`], and strings
/// escaped by [`escape_into`].
pub(crate) struct Serializer<'b> {
    out: &'b mut Vec<u8>,
    /// What [`ser::Serializer::is_human_readable`] answers.
    human_readable: bool,
}

impl<'b> Serializer<'b> {
    /// Runs one formatter event.
    fn event(
        &mut self,
        write: impl FnOnce(&mut CompactFormatter, &mut Vec<u8>) -> io::Result<()>,
    ) -> Result<(), Error> {
        write(&mut CompactFormatter, self.out).map_err(Error::io)
    }

    /// A string, quotes and all: the bytes `CompactFormatter` writes for it, written straight
    /// into the buffer rather than as one event per fragment and escape.
    fn string(&mut self, value: &str) -> Result<(), Error> {
        self.out.push(b'"');
        escape_into(self.out, value);
        self.out.push(b'"');
        Ok(())
    }

    /// `{"variant":` before the value of an enum variant with data.
    fn begin_variant(&mut self, variant: &str) -> Result<(), Error> {
        self.event(|f, w| f.begin_object(w))?;
        self.event(|f, w| f.begin_object_key(w, true))?;
        self.string(variant)?;
        self.event(|f, w| f.end_object_key(w))?;
        self.event(|f, w| f.begin_object_value(w))
    }

    fn end_variant(&mut self) -> Result<(), Error> {
        self.event(|f, w| f.end_object_value(w))?;
        self.event(|f, w| f.end_object(w))
    }

    fn begin_compound(
        &mut self,
        array: bool,
        len: Option<usize>,
    ) -> Result<Compound<'_, 'b>, Error> {
        self.event(|f, w| {
            if array {
                f.begin_array(w)
            } else {
                f.begin_object(w)
            }
        })?;
        let state = if len == Some(0) {
            self.event(|f, w| {
                if array {
                    f.end_array(w)
                } else {
                    f.end_object(w)
                }
            })?;
            State::Empty
        } else {
            State::First
        };
        Ok(Compound {
            ser: self,
            state,
            variant: false,
        })
    }
}

/// Writes `value`'s JSON string contents (without the quotes) to `out` exactly as
/// `serde_json` escapes them: `"` and `\` escaped, control characters as `\b \t \n \f \r` or
/// `\u00XX`, everything else (all of Unicode, DEL included) as it is. Runs of bytes that need
/// no escape are skipped eight bytes at a time and copied whole.
pub(crate) fn escape_into(out: &mut Vec<u8>, value: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = value.as_bytes();
    out.reserve(bytes.len());
    // The bytes from `run` to `at` need no escape and are not copied yet.
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        while at + 8 <= bytes.len() {
            let Ok(word) = <[u8; 8]>::try_from(&bytes[at..at + 8]) else {
                break;
            };
            let flagged = needs_escape(u64::from_le_bytes(word));
            if flagged != 0 {
                at += (flagged.trailing_zeros() / 8) as usize;
                break;
            }
            at += 8;
        }
        let Some(&byte) = bytes.get(at) else { break };
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..0x20 => {
                out.extend_from_slice(&bytes[run..at]);
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(&[HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]]);
                at += 1;
                run = at;
                continue;
            }
            _ => {
                at += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[run..at]);
        out.extend_from_slice(escape);
        at += 1;
        run = at;
    }
    out.extend_from_slice(&bytes[run..]);
}

/// The high bit of each byte of `word` (eight bytes of a string, the first lowest) that JSON
/// escapes: `"`, `\`, below 0x20. A byte after a flagged one may be flagged too (a borrow
/// carries into it), never one before, so the lowest flag is always right.
fn needs_escape(word: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    // Below 0x20 the byte minus 0x20 borrows into its high bit, which was clear.
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (zero(quote) | zero(backslash) | control) & HIGHS
}

#[derive(PartialEq, Eq)]
enum State {
    Empty,
    First,
    Rest,
}

/// An array or object being written; `variant` when it is the value of an enum variant, which
/// closes the `{"variant":` around it too.
pub(crate) struct Compound<'a, 'b> {
    ser: &'a mut Serializer<'b>,
    state: State,
    variant: bool,
}

impl Compound<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let first = self.state == State::First;
        self.ser.event(|f, w| f.begin_array_value(w, first))?;
        self.state = State::Rest;
        value.serialize(&mut *self.ser)?;
        self.ser.event(|f, w| f.end_array_value(w))
    }

    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let first = self.state == State::First;
        self.ser.event(|f, w| f.begin_object_key(w, first))?;
        self.state = State::Rest;
        key.serialize(MapKey {
            ser: &mut *self.ser,
        })?;
        self.ser.event(|f, w| f.end_object_key(w))
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.ser.event(|f, w| f.begin_object_value(w))?;
        value.serialize(&mut *self.ser)?;
        self.ser.event(|f, w| f.end_object_value(w))
    }

    fn end(self, array: bool) -> Result<(), Error> {
        if self.state != State::Empty {
            self.ser.event(|f, w| {
                if array {
                    f.end_array(w)
                } else {
                    f.end_object(w)
                }
            })?;
        }
        if self.variant {
            self.ser.end_variant()?;
        }
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for &'a mut Serializer<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'b>;
    type SerializeTuple = Compound<'a, 'b>;
    type SerializeTupleStruct = Compound<'a, 'b>;
    type SerializeTupleVariant = Compound<'a, 'b>;
    type SerializeMap = Compound<'a, 'b>;
    type SerializeStruct = Compound<'a, 'b>;
    type SerializeStructVariant = Compound<'a, 'b>;

    fn is_human_readable(&self) -> bool {
        self.human_readable
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.event(|f, w| f.write_bool(w, v))
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.event(|f, w| f.write_i8(w, v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.event(|f, w| f.write_i16(w, v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.event(|f, w| f.write_i32(w, v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.event(|f, w| f.write_i64(w, v))
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.event(|f, w| f.write_i128(w, v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.event(|f, w| f.write_u8(w, v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.event(|f, w| f.write_u16(w, v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.event(|f, w| f.write_u32(w, v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.event(|f, w| f.write_u64(w, v))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.event(|f, w| f.write_u128(w, v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        match v.classify() {
            FpCategory::Nan | FpCategory::Infinite => self.event(|f, w| f.write_null(w)),
            _ => self.event(|f, w| f.write_f32(w, v)),
        }
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        match v.classify() {
            FpCategory::Nan | FpCategory::Infinite => self.event(|f, w| f.write_null(w)),
            _ => self.event(|f, w| f.write_f64(w, v)),
        }
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.event(|f, w| f.write_byte_array(w, v))
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.event(|f, w| f.write_null(w))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.begin_variant(variant)?;
        value.serialize(&mut *self)?;
        self.end_variant()
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, 'b>, Error> {
        self.begin_compound(true, len)
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'b>, Error> {
        self.begin_compound(true, Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>, Error> {
        self.begin_compound(true, Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>, Error> {
        self.begin_variant(variant)?;
        let mut compound = self.begin_compound(true, Some(len))?;
        compound.variant = true;
        Ok(compound)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, 'b>, Error> {
        self.begin_compound(false, len)
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, 'b>, Error> {
        self.begin_compound(false, Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>, Error> {
        self.begin_variant(variant)?;
        let mut compound = self.begin_compound(false, Some(len))?;
        compound.variant = true;
        Ok(compound)
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.string(&value.to_string())
    }
}

/// The compounds written as an array: each element after a comma, closed by `]`.
macro_rules! array_compound {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                Compound::end(self, true)
            }
        }
    )*};
}

array_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.value(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self, false)
    }
}

/// The compounds written as an object of named fields, closed by `}`.
macro_rules! struct_compound {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.key(key)?;
                self.value(value)
            }
            fn end(self) -> Result<(), Error> {
                Compound::end(self, false)
            }
        }
    )*};
}

struct_compound!(SerializeStruct, SerializeStructVariant);

/// An object key: a string as it is; a bool or a number (a finite one) quoted, as
/// `serde_json` writes them; anything else is the error `serde_json` gives.
struct MapKey<'a, 'b> {
    ser: &'a mut Serializer<'b>,
}

impl MapKey<'_, '_> {
    fn quoted(
        self,
        write: impl FnOnce(&mut CompactFormatter, &mut Vec<u8>) -> io::Result<()>,
    ) -> Result<(), Error> {
        self.ser.event(|f, w| f.begin_string(w))?;
        self.ser.event(write)?;
        self.ser.event(|f, w| f.end_string(w))
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// Key methods that refuse their value.
macro_rules! not_a_key {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ok:ty;)*) => {$(
        fn $method(self $(, $arg: $ty)*) -> Result<$ok, Error> {
            $(let _ = $arg;)*
            Err(key_must_be_a_string())
        }
    )*};
}

/// Key methods that quote their number.
macro_rules! quoted_key {
    ($($method:ident($ty:ty) => $write:ident;)*) => {$(
        fn $method(self, v: $ty) -> Result<(), Error> {
            self.quoted(|f, w| f.$write(w, v))
        }
    )*};
}

impl ser::Serializer for MapKey<'_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.ser.string(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.ser.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.ser.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.ser.string(&value.to_string())
    }

    quoted_key! {
        serialize_bool(bool) => write_bool;
        serialize_i8(i8) => write_i8;
        serialize_i16(i16) => write_i16;
        serialize_i32(i32) => write_i32;
        serialize_i64(i64) => write_i64;
        serialize_i128(i128) => write_i128;
        serialize_u8(u8) => write_u8;
        serialize_u16(u16) => write_u16;
        serialize_u32(u32) => write_u32;
        serialize_u64(u64) => write_u64;
        serialize_u128(u128) => write_u128;
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(|f, w| f.write_f32(w, v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(|f, w| f.write_f64(w, v))
    }

    not_a_key! {
        serialize_bytes(v: &[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(name: &'static str) -> ();
        serialize_seq(len: Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(len: usize) -> Impossible<(), Error>;
        serialize_tuple_struct(name: &'static str, len: usize) -> Impossible<(), Error>;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> Impossible<(), Error>;
        serialize_map(len: Option<usize>) -> Impossible<(), Error>;
        serialize_struct(name: &'static str, len: usize) -> Impossible<(), Error>;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> Impossible<(), Error>;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::*;

    fn ours<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        write_compact(&mut out, value).map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn theirs<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {
        serde_json::to_vec(value).map_err(|e| e.to_string())
    }

    fn assert_same<T: Serialize + ?Sized + std::fmt::Debug>(value: &T) {
        assert_eq!(ours(value), theirs(value), "for {value:?}");
    }

    #[test]
    fn every_character_is_escaped_as_serde_json_escapes_it() {
        let all: String = (0..0x800).filter_map(char::from_u32).collect();
        // At every offset from a word boundary, and with a run after the last escape.
        for start in 0..16 {
            let text = &all[start..];
            assert_same(text);
            assert_same(&format!("{text}tail of plain text"));
        }
        for special in ["\"", "\\", "\n", "\u{1f}", "\u{7f}", "é\"", "\u{0}\u{0}"] {
            for pad in 0..17 {
                assert_same(&format!("{}{special}{}", "a".repeat(pad), "b".repeat(pad)));
            }
        }
        assert_same("");
    }

    #[derive(Serialize, Debug)]
    struct Unit;

    #[derive(Serialize, Debug)]
    struct Newtype(String);

    #[derive(Serialize, Debug)]
    struct Pair(i32, &'static str);

    #[derive(Serialize, Debug)]
    struct Nothing {}

    #[derive(Serialize, Debug)]
    enum Variants {
        Unit,
        Newtype(f64),
        Tuple(u8, Option<bool>),
        EmptyTuple(),
        Struct { a: char, b: Vec<u32> },
        EmptyStruct {},
    }

    #[derive(Serialize, Debug)]
    #[serde(tag = "type")]
    enum Tagged {
        Text { text: String },
    }

    #[derive(Serialize, Debug)]
    struct Everything {
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        pair: Pair,
        nothing: Nothing,
        variants: Vec<Variants>,
        tagged: Tagged,
        #[serde(flatten)]
        flattened: BTreeMap<String, Value>,
        none: Option<u8>,
        some: Option<i128>,
        big: u128,
        floats: (f32, f64, f64, f32),
        bytes: serde_bytes_like::Bytes,
        int_keys: BTreeMap<i64, &'static str>,
        bool_keys: BTreeMap<bool, u8>,
        char_keys: BTreeMap<char, u8>,
        empty_seq: Vec<u8>,
        empty_map: BTreeMap<String, u8>,
    }

    /// A byte string, serialized with `serialize_bytes`.
    mod serde_bytes_like {
        #[derive(Debug)]
        pub struct Bytes(pub Vec<u8>);

        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn every_kind_of_value_is_written_as_serde_json_writes_it() {
        let value = Everything {
            unit: (),
            unit_struct: Unit,
            newtype: Newtype("a \"quoted\"\tword".into()),
            pair: Pair(-7, "x"),
            nothing: Nothing {},
            variants: vec![
                Variants::Unit,
                Variants::Newtype(1.5e300),
                Variants::Tuple(3, None),
                Variants::EmptyTuple(),
                Variants::Struct {
                    a: '\u{8}',
                    b: vec![1, 2],
                },
                Variants::EmptyStruct {},
            ],
            tagged: Tagged::Text {
                text: "{\"id\":\"a\"}".into(),
            },
            flattened: [("extra".to_owned(), json!({"k": [null, true, -0.0]}))].into(),
            none: None,
            some: Some(i128::MIN),
            big: u128::MAX,
            floats: (f32::NAN, f64::INFINITY, 0.1, 3.25),
            bytes: serde_bytes_like::Bytes(vec![0, 255]),
            int_keys: [(-1, "minus"), (2, "two")].into(),
            bool_keys: [(false, 0), (true, 1)].into(),
            char_keys: [('"', 1)].into(),
            empty_seq: Vec::new(),
            empty_map: BTreeMap::new(),
        };
        assert_same(&value);
    }

    #[test]
    fn keys_serde_json_refuses_are_refused_with_its_message() {
        assert_same(&BTreeMap::from([((1, 2), 3)]));
        assert_same(&BTreeMap::from([(Some(4), 5)]));
        let nan_key: Vec<(f64, u8)> = vec![(f64::NAN, 1)];
        struct FloatKeys(Vec<(f64, u8)>);
        impl Serialize for FloatKeys {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
            }
        }
        assert_eq!(
            ours(&FloatKeys(nan_key.clone())),
            theirs(&FloatKeys(nan_key))
        );
        assert_eq!(
            ours(&FloatKeys(vec![(2.5, 1)])),
            theirs(&FloatKeys(vec![(2.5, 1)]))
        );
    }

    fn json_values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::from),
            "[\"\\\\\u{0}-\u{1f}a-c]{0,40}".prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_json_is_written_as_serde_json_writes_it(value in json_values()) {
            prop_assert_eq!(ours(&value), theirs(&value));
        }

        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(text in any::<String>()) {
            prop_assert_eq!(ours(&text), theirs(&text));
        }
    }
}
