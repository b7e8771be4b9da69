//! Reading a case's JSON as its model would, keeping nothing: the check a large expected set
//! gets when it is read (its cases are parsed later, whole or lean, one at a time, as they
//! are scored). Each type is read through the same `Deserializer` call its own `Deserialize`
//! makes, so what is skimmed without error parses, and what parses skims, with one exception
//! on the safe side: an object key serde_json reserves for itself (`$serde_json::private::…`,
//! which its `Value` reads specially when a feature such as `raw_value` is on) is refused, and
//! the exact reader reads that case instead. It allocates nothing but the eval_id it answers,
//! which makes it several times faster than parsing.

use crate::model::case::{ConversationScenario, EvalCase, Invocation};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::marker::PhantomData;

/// A type that can be read without being kept.
pub(crate) trait Skim {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error>;
}

/// Skims one `T`.
pub(crate) struct SkimSeed<T>(PhantomData<T>);

impl<T> SkimSeed<T> {
    pub(crate) fn new() -> Self {
        SkimSeed(PhantomData)
    }
}

impl<'de, T: Skim> DeserializeSeed<'de> for SkimSeed<T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::skim(deserializer)
    }
}

/// Skims an `Option<T>`, answering whether it was set (not null).
pub(crate) struct SkimOption<T>(PhantomData<T>);

impl<T> SkimOption<T> {
    pub(crate) fn new() -> Self {
        SkimOption(PhantomData)
    }
}

impl<'de, T: Skim> DeserializeSeed<'de> for SkimOption<T> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        let read = OptionOf(SkimSeed::<T>::new()).deserialize(deserializer)?;
        Ok(read.is_some())
    }
}

/// Reads an option through the calls serde's `Option<T>` makes (null is none), its value with
/// the seed `S`: how the skim and the lean read take every optional value.
pub(crate) struct OptionOf<S>(pub(crate) S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for OptionOf<S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for OptionOf<S> {
    type Value = Option<S::Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(deserializer).map(Some)
    }
}

impl<T: Skim> Skim for Option<T> {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        SkimOption::<T>::new().deserialize(deserializer).map(drop)
    }
}

impl<T: Skim> Skim for Box<T> {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        T::skim(deserializer)
    }
}

impl Skim for f64 {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        <f64 as de::Deserialize>::deserialize(deserializer).map(drop)
    }
}

impl Skim for bool {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        <bool as de::Deserialize>::deserialize(deserializer).map(drop)
    }
}

/// A string, seen and let go of.
struct SkimStr;

impl<'de> Visitor<'de> for SkimStr {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

impl Skim for String {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_string(SkimStr)
    }
}

/// The elements of a list, counted.
struct SkimSeq<T>(PhantomData<T>);

impl<'de, T: Skim> Visitor<'de> for SkimSeq<T> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut count = 0;
        while seq.next_element_seed(SkimSeed::<T>::new())?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}

impl<T: Skim> Skim for Vec<T> {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(SkimSeq::<T>(PhantomData)).map(drop)
    }
}

/// A pair, as serde reads tuples: a sequence of exactly two.
struct SkimPair<A, B>(PhantomData<(A, B)>);

impl<'de, A: Skim, B: Skim> Visitor<'de> for SkimPair<A, B> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tuple of size 2")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        if seq.next_element_seed(SkimSeed::<A>::new())?.is_none() {
            return Err(de::Error::invalid_length(0, &self));
        }
        if seq.next_element_seed(SkimSeed::<B>::new())?.is_none() {
            return Err(de::Error::invalid_length(1, &self));
        }
        Ok(())
    }
}

impl<A: Skim, B: Skim> Skim for (A, B) {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(2, SkimPair::<A, B>(PhantomData))
    }
}

/// Any JSON value, read as `serde_json::Value` reads one (numbers included, whose range it
/// checks).
struct SkimAny;

impl<'de> Visitor<'de> for SkimAny {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        Value::skim(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(SkimSeed::<Value>::new())?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        skim_entries(map)
    }
}

impl Skim for Value {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(SkimAny)
    }
}

/// An object's keys (strings) and values (any JSON).
fn skim_entries<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_key_seed(PlainKey)?.is_some() {
        map.next_value_seed(SkimSeed::<Value>::new())?;
    }
    Ok(())
}

/// The prefix of the keys serde_json's `Value` may read as its own tokens (a raw value, an
/// arbitrary-precision number), depending on its features.
const SERDE_JSON_TOKEN: &str = "$serde_json::private::";

/// An object's key that is not one of serde_json's tokens.
struct PlainKey;

impl<'de> DeserializeSeed<'de> for PlainKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl<'de> Visitor<'de> for PlainKey {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        if key.starts_with(SERDE_JSON_TOKEN) {
            return Err(E::custom("a key serde_json reserves"));
        }
        Ok(())
    }
}

/// An object, as `serde_json::Map` reads one.
struct SkimObject;

impl<'de> Visitor<'de> for SkimObject {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        skim_entries(map)
    }
}

impl Skim for Map<String, Value> {
    fn skim<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(SkimObject)
    }
}

/// A model's key: which of its names it is, if any.
pub(crate) struct SkimKey(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for SkimKey {
    type Value = Option<&'static str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for SkimKey {
    type Value = Option<&'static str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().find(|name| **name == key).copied())
    }
}

/// The skim of a model `adk_model!` declares (in model/), from the same fields: `skim_map`,
/// which reads its object through the calls its `Deserialize` makes, and [`Skim`].
macro_rules! skim_model {
    ($name:ident { $( $field:ident : $ty:ty = $camel:literal $([$req:ident])? ),* $(,)? }) => {
        impl $name {
            /// Skims this model's object (see `crate::fast::skim`). `intercept` may read a value
            /// of one of its names itself, answering whether it was set, or `None` to leave it here.
            pub(crate) fn skim_map<'de, A: ::serde::de::MapAccess<'de>>(
                mut map: A,
                intercept: &mut dyn FnMut(&'static str, &mut A) -> Result<Option<bool>, A::Error>,
            ) -> Result<(), A::Error> {
                const NAMES: &[&str] = &[$( stringify!($field), $camel, )*];
                $( let mut $field = false; )*
                while let Some(key) = map.next_key_seed($crate::fast::skim::SkimKey(NAMES))? {
                    let Some(name) = key else {
                        map.next_value_seed($crate::fast::skim::SkimSeed::<::serde_json::Value>::new())?;
                        continue;
                    };
                    let handled = intercept(name, &mut map)?;
                    #[allow(unreachable_patterns)] // snake_case and camelCase agree for one-word names
                    match name {
                        $( stringify!($field) | $camel => $field = match handled {
                            Some(set) => set,
                            None => map.next_value_seed($crate::fast::skim::SkimOption::<$ty>::new())?,
                        }, )*
                        _ => unreachable!("every name in NAMES has its arm"),
                    }
                }
                $( if $crate::fast::skim::skim_model!(@required $($req)?) && !$field {
                    return Err(::serde::de::Error::missing_field(stringify!($field)));
                } )*
                Ok(())
            }
        }

        impl $crate::fast::skim::Skim for $name {
            fn skim<'de, D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
                struct SkimVisitor;
                impl<'de> ::serde::de::Visitor<'de> for SkimVisitor {
                    type Value = ();
                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
                        $name::skim_map(map, &mut |_, _| Ok(None))
                    }
                }
                deserializer.deserialize_map(SkimVisitor)
            }
        }
    };
    (@required required) => { true };
    (@required) => { false };
}
pub(crate) use skim_model;

/// What a compact set keeps of a case besides its text, skimmed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseHead {
    pub eval_id: String,
    /// How many invocations its conversation has; none when it has no conversation.
    pub turns: Option<usize>,
    pub has_scenario: bool,
}

impl CaseHead {
    pub fn of(case: &EvalCase) -> CaseHead {
        CaseHead {
            eval_id: case.eval_id.clone(),
            turns: case.conversation.as_ref().map(Vec::len),
            has_scenario: case.conversation_scenario.is_some(),
        }
    }
}

/// Skims one case's JSON (the whole text), answering its head when the case would parse.
pub fn skim_case(text: &str) -> Result<CaseHead, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let head = deserializer.deserialize_map(HeadVisitor)?;
    deserializer.end()?;
    Ok(head)
}

struct HeadVisitor;

impl<'de> Visitor<'de> for HeadVisitor {
    type Value = CaseHead;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (EvalCase)")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CaseHead, A::Error> {
        let mut eval_id = None;
        let mut turns = None;
        let mut has_scenario = false;
        // Each of these keys may come more than once: the last one counts, as in parsing.
        EvalCase::skim_map(map, &mut |name, map| match name {
            "eval_id" | "evalId" => {
                eval_id = map.next_value::<Option<String>>()?;
                Ok(Some(eval_id.is_some()))
            }
            "conversation" => {
                turns = map.next_value_seed(OptionOf(CountSeq::<Invocation>(PhantomData)))?;
                Ok(Some(turns.is_some()))
            }
            "conversation_scenario" | "conversationScenario" => {
                has_scenario = map.next_value_seed(SkimOption::<ConversationScenario>::new())?;
                Ok(Some(has_scenario))
            }
            _ => Ok(None),
        })?;
        Ok(CaseHead {
            // skim_map refused a case without one (eval_id is required).
            eval_id: eval_id.unwrap_or_default(),
            turns,
            has_scenario,
        })
    }
}

/// A list's elements, counted.
struct CountSeq<T>(PhantomData<T>);

impl<'de, T: Skim> DeserializeSeed<'de> for CountSeq<T> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_seq(SkimSeq::<T>(PhantomData))
    }
}
