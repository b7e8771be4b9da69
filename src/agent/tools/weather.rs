//! `get_weather`: a fixed table of cities' weather, found by any common spelling of the city.

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::{fold, object, one_string_param, ready, str_arg};
use crate::agent::Tool;

/// (display name, temperature °C, condition, humidity %). Conditions are adjectives so they read
/// well in "It is 18 °C and cloudy in Paris".
pub const WEATHER: [(&str, i64, &str, i64); 18] = [
    ("Paris", 18, "cloudy", 72),
    ("London", 14, "rainy", 81),
    ("Berlin", 16, "partly cloudy", 64),
    ("Madrid", 27, "sunny", 35),
    ("Rome", 25, "sunny", 48),
    ("Zürich", 13, "rainy", 79),
    ("Reykjavík", 8, "windy", 76),
    ("Cairo", 34, "sunny", 20),
    ("Cape Town", 16, "clear", 60),
    ("Mumbai", 31, "humid", 88),
    ("Beijing", 26, "hazy", 45),
    ("Tokyo", 22, "clear", 60),
    ("Sydney", 19, "windy", 55),
    ("New York", 21, "partly cloudy", 58),
    ("San Francisco", 17, "foggy", 77),
    ("Toronto", 15, "overcast", 66),
    ("Mexico City", 20, "stormy", 70),
    ("São Paulo", 24, "rainy", 85),
];

/// Other names people use for the cities above, already folded.
const CITY_ALIASES: [(&str, &str); 3] = [
    ("nyc", "New York"),
    ("new york city", "New York"),
    ("sf", "San Francisco"),
];

/// Folds a city name for lookup: accents, case, punctuation and extra spaces don't matter, and
/// a trailing country ("Paris, France") is ignored.
pub fn city_key(city: &str) -> String {
    let city = city.split(',').next().unwrap_or(city);
    let folded: String = fold(city)
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The canonical display name of a known city, or `None`.
pub fn find_city(city: &str) -> Option<&'static str> {
    let key = city_key(city);
    WEATHER
        .iter()
        .map(|w| w.0)
        .find(|name| city_key(name) == key)
        .or_else(|| {
            CITY_ALIASES
                .iter()
                .find(|(alias, _)| *alias == key)
                .map(|(_, name)| *name)
        })
}

/// Every folded name (cities and aliases) with its display name, for the planner's scanning.
pub(crate) fn city_names() -> impl Iterator<Item = (String, &'static str)> {
    WEATHER.iter().map(|w| (city_key(w.0), w.0)).chain(
        CITY_ALIASES
            .iter()
            .map(|(alias, name)| (alias.to_string(), *name)),
    )
}

pub fn get_weather(city: &str) -> Result<Map<String, Value>, String> {
    let name = find_city(city).ok_or_else(|| {
        format!(
            "unknown city \"{city}\"; known cities are {}",
            WEATHER.iter().map(|w| w.0).collect::<Vec<_>>().join(", ")
        )
    })?;
    let (_, temperature, condition, humidity) = WEATHER.iter().find(|w| w.0 == name).copied().unwrap();
    Ok(object(json!({
        "city": name,
        "temperature_c": temperature,
        "condition": condition,
        "humidity_pct": humidity,
    })))
}

pub struct GetWeather;

impl Tool for GetWeather {
    fn name(&self) -> &str {
        "get_weather"
    }
    fn description(&self) -> &str {
        "Current weather (temperature in °C, condition, humidity) for a major world city."
    }
    fn parameters(&self) -> Value {
        one_string_param("city", "City name, e.g. \"Paris\" or \"São Paulo\".")
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "city").and_then(get_weather))
    }
}
