//! The `adk_model!` macro that declares each ADK model, and what its expansions use: the
//! [`IsDefault`] test the writer leaves values out by, and the key reader.

use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Whether a value equals its ADK default, so the file writer leaves it out.
pub trait IsDefault {
    fn is_default(&self) -> bool;
}

impl<T> IsDefault for Option<T> {
    fn is_default(&self) -> bool {
        self.is_none()
    }
}
impl<T> IsDefault for Vec<T> {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}
impl IsDefault for String {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}
impl IsDefault for f64 {
    fn is_default(&self) -> bool {
        *self == 0.0
    }
}
impl IsDefault for Map<String, Value> {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}

/// A map key: one of a model's own names, or (owned, to be kept in `extra`) another. Reading a
/// known key allocates nothing, which matters for files of millions of keys.
pub(super) enum Key {
    Known(&'static str),
    Other(String),
}

/// Reads a key, matched against a model's names (snake_case and camelCase).
pub(super) struct KeySeed(pub(super) &'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match self.0.iter().find(|name| **name == key) {
            Some(name) => Key::Known(name),
            None => Key::Other(key.to_string()),
        })
    }
}

/// Declares one ADK model. Each field is `pub name: Type = "camelName"`, with `[required]` after
/// the fields ADK requires: a required field is always written and its absence is an error; any
/// other field is written only when it differs from its default.
macro_rules! adk_model {
    (@core
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident : $ty:ty = $camel:literal $([$req:ident])?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Keys this model does not know, kept verbatim so they survive a round trip.
            pub extra: Map<String, Value>,
        }

        impl IsDefault for $name {
            /// A model value is never a default: ADK writes a set model even when it is empty.
            fn is_default(&self) -> bool {
                false
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                $(
                    if adk_model!(@required $($req)?) || !IsDefault::is_default(&self.$field) {
                        map.serialize_entry(stringify!($field), &self.$field)?;
                    }
                )*
                for (key, value) in &self.extra {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ModelVisitor;
                impl<'de> Visitor<'de> for ModelVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        const NAMES: &[&str] = &[$( stringify!($field), $camel, )*];
                        $( let mut $field: Option<$ty> = None; )*
                        let mut extra = Map::new();
                        while let Some(key) = map.next_key_seed(KeySeed(NAMES))? {
                            match key {
                                #[allow(unreachable_patterns)] // snake_case and camelCase agree for one-word names
                                Key::Known(name) => match name {
                                    $( stringify!($field) | $camel => $field = map.next_value::<Option<$ty>>()?, )*
                                    _ => unreachable!("every name in NAMES has its arm"),
                                },
                                Key::Other(key) => {
                                    let value: Value = map.next_value()?;
                                    if !value.is_null() {
                                        extra.insert(key, value);
                                    }
                                }
                            }
                        }
                        Ok($name {
                            $( $field: match $field {
                                Some(value) => value,
                                None => adk_model!(@absent $field $($req)?),
                            }, )*
                            extra,
                        })
                    }
                }
                deserializer.deserialize_map(ModelVisitor)
            }
        }

        // The skim (see `crate::fast::skim`), only in the build with the fast readers.
        #[cfg(feature = "fast-read")]
        crate::fast::skim::skim_model!($name { $( $field: $ty = $camel $([$req])? ),* });
    };
    (@camel
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident : $ty:ty = $camel:literal $([$req:ident])?
            ),* $(,)?
        }
    ) => {
        impl crate::camel::CamelCase for $name {
            fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use crate::camel::{Camel, CamelCase};
                let mut map = serializer.serialize_map(None)?;
                $(
                    if !CamelCase::is_none(&self.$field) {
                        map.serialize_entry($camel, &Camel(&self.$field))?;
                    }
                )*
                for (key, value) in &self.extra {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }

    };
    // A model whose camelCase answer is written by hand (see `IntermediateData`).
    (@custom_camel $($model:tt)*) => {
        adk_model!(@core $($model)*);
    };
    (@required required) => { true };
    (@required) => { false };
    (@absent $field:ident required) => { return Err(de::Error::missing_field(stringify!($field))) };
    (@absent $field:ident) => { Default::default() };
    ($($model:tt)*) => {
        adk_model!(@core $($model)*);
        adk_model!(@camel $($model)*);
    };
}
pub(super) use adk_model;
