//! The keys of the file. Their one list is the tables' own types: `all`
//! reads it from them (for the tests), and [`key!`] names one so that the
//! compiler checks it is there. The shipped file, the operator's guide,
//! the flags' table and every message that names a key are tested against
//! `all`.

use std::fmt;

/// A key of the file: `[engine] level`, named `engine.level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub table: &'static str,
    pub name: &'static str,
}

impl Key {
    /// As the file spells it: `[engine] level`.
    pub fn in_file(self) -> String {
        format!("[{}] {}", self.table, self.name)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.table, self.name)
    }
}

/// `key!(engine.level)`: the key of that field of [`Config`](crate::config::Config), which must
/// exist.
macro_rules! key {
    ($table:ident . $name:ident) => {{
        let _exists = |c: &$crate::config::Config| {
            let _ = &c.$table.$name;
        };
        $crate::config::Key { table: stringify!($table), name: stringify!($name) }
    }};
}
pub(crate) use key;

#[cfg(test)]
pub use introspect::all;

#[cfg(test)]
mod introspect {
    use serde::Deserialize;
    use serde::de::value::{Error, MapDeserializer};
    use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};

    use super::Key;
    use crate::config::Config;

    /// Every key, table by table, as the tables' types declare their fields.
    pub fn all() -> Vec<Key> {
        let mut keys = Vec::new();
        // Every table has defaults: each is made from an empty map once its
        // fields are noted, so this never fails.
        Config::deserialize(Tables(&mut keys)).expect("every table has defaults");
        keys
    }

    /// A deserializer that notes, instead of reading, the fields of the
    /// configuration's tables: serde hands each struct's field names over.
    struct Tables<'a>(&'a mut Vec<Key>);

    /// The fields of one table.
    struct Fields<'a> {
        table: &'static str,
        keys: &'a mut Vec<Key>,
    }

    /// The table names of [`Config`], each answered with its [`Fields`].
    struct TableNames<'a> {
        names: std::slice::Iter<'static, &'static str>,
        table: &'static str,
        keys: &'a mut Vec<Key>,
    }

    fn no_table<T>() -> Result<T, Error> {
        Err(serde::de::Error::custom("a table of the configuration is a struct"))
    }

    impl<'de> Deserializer<'de> for Tables<'_> {
        type Error = Error;

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            names: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Error> {
            visitor.visit_map(TableNames { names: names.iter(), table: "", keys: self.0 })
        }

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            no_table()
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }

    impl<'de> MapAccess<'de> for TableNames<'_> {
        type Error = Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
            let Some(&name) = self.names.next() else { return Ok(None) };
            self.table = name;
            seed.deserialize(name.into_deserializer()).map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
            seed.deserialize(Fields { table: self.table, keys: self.keys })
        }
    }

    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = Error;

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            names: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Error> {
            self.keys.extend(names.iter().map(|&name| Key { table: self.table, name }));
            visitor.visit_map(MapDeserializer::new(std::iter::empty::<(&str, &str)>()))
        }

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            no_table()
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
}
