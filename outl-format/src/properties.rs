//! [`Properties`]: the `key:: value` lines of a page or block, in the order they are written.

use std::borrow::Cow;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thin_vec::ThinVec;

/// Ordered `key:: value` properties, as written; a key appears once. Every block has one of
/// these and most hold nothing, so they are a list searched in order: a handful of entries is
/// found faster that way than by hashing, and an empty list is one pointer.
/// Equality ignores the order, as a map's does.
#[derive(Debug, Clone, Default, Eq)]
pub struct Properties(ThinVec<(String, String)>);

impl Properties {
    pub const fn new() -> Self {
        Properties(ThinVec::new())
    }

    pub fn with_capacity(capacity: usize) -> Self {
        Properties(ThinVec::with_capacity(capacity))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut String> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`: in its place when the key is there (returning the old value),
    /// else at the end.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        match self.get_mut(&key) {
            Some(old) => Some(std::mem::replace(old, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    /// Removes the entry at `index`, keeping the order of the rest.
    pub fn shift_remove_index(&mut self, index: usize) -> Option<(String, String)> {
        (index < self.0.len()).then(|| self.0.remove(index))
    }

    pub fn get_index_mut(&mut self, index: usize) -> Option<(&String, &mut String)> {
        self.0.get_mut(index).map(|(k, v)| (&*k, v))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &String)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&String, &mut String)> + ExactSizeIterator {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl PartialEq for Properties {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Extend<(String, String)> for Properties {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

impl FromIterator<(String, String)> for Properties {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(entries: I) -> Self {
        let mut properties = Properties::new();
        properties.extend(entries);
        properties
    }
}

impl<'a> IntoIterator for &'a Properties {
    type Item = (&'a String, &'a String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, String)>,
        fn(&'a (String, String)) -> (&'a String, &'a String),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Properties {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PropertiesVisitor;
        impl<'de> Visitor<'de> for PropertiesVisitor {
            type Value = Properties;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of string values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Properties, A::Error> {
                let mut properties = Properties::new();
                while let Some((key, value)) = map.next_entry::<String, String>()? {
                    properties.insert(key, value);
                }
                Ok(properties)
            }
        }
        deserializer.deserialize_map(PropertiesVisitor)
    }
}

/// The schema of a string-to-string map, as every map type has it.
impl schemars::JsonSchema for Properties {
    fn inline_schema() -> bool {
        <std::collections::BTreeMap<String, String> as schemars::JsonSchema>::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        <std::collections::BTreeMap<String, String> as schemars::JsonSchema>::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <std::collections::BTreeMap<String, String> as schemars::JsonSchema>::json_schema(generator)
    }
}
