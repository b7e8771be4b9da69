//! Sentence-embedding benchmark (numbers, not pass/fail): all-MiniLM-L6-v2 load time, sentences
//! per second for a mixed set through `embed_blocking` (what scoring calls) and then at forward
//! passes of 1 to 64 texts of ~20 and ~60 tokens (agent answers) and of the 256-token limit, with
//! the process's peak RSS (VmHWM) after each part.
//!
//! Needs the model (`make model`); run with `make bench` or
//! `EVALSTUDIO_EMBEDDING_MODEL=DIR cargo bench --features ssr --bench embedding`.

mod common;
use common::peak_rss_mib;

use evalstudio::eval::embedding::{embedding_model_dir, MiniLmEmbedder};
use std::time::Instant;

const CITIES: [&str; 6] = ["Paris", "London", "Tokyo", "Berlin", "Lima", "Oslo"];
const WEATHER: [&str; 4] = ["sunny", "raining", "cloudy with light wind", "snowing heavily"];

/// About 20 tokens: a short agent answer.
fn short_text(i: usize) -> String {
    format!(
        "The weather in {} is {} and {} degrees, so take a jacket.",
        CITIES[i % CITIES.len()],
        WEATHER[i % WEATHER.len()],
        i % 35
    )
}

/// About 60 tokens: a paragraph-long agent answer.
fn medium_text(i: usize) -> String {
    format!(
        "Your order A{} left our warehouse in {} on Monday and is now with the courier. It should arrive \
         within {} business days; you will get a tracking link by email. If it has not arrived by then, \
         reply here with the order number and I will open a claim for a refund or a replacement.",
        1000 + i,
        CITIES[i % CITIES.len()],
        2 + i % 5
    )
}

/// Over 256 tokens, so truncated to the limit.
fn long_text(i: usize) -> String {
    (0..12).map(|j| medium_text(i + j)).collect::<Vec<_>>().join(" ")
}

/// Sentences per second embedding `texts` in forward passes of `batch_size`.
fn throughput(model: &MiniLmEmbedder, texts: &[String], batch_size: usize) -> f64 {
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    model.embed_batch(&texts[..batch_size]).unwrap();
    let started = Instant::now();
    for batch in texts.chunks(batch_size) {
        model.embed_batch(batch).unwrap();
    }
    texts.len() as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let dir = embedding_model_dir(None).expect("no model directory: set EVALSTUDIO_EMBEDDING_MODEL");
    let started = Instant::now();
    let model = MiniLmEmbedder::load(&dir).unwrap_or_else(|err| panic!("{err}"));
    println!(
        "load {:.0} ms from {} (peak RSS so far {:.0} MiB)",
        started.elapsed().as_secs_f64() * 1000.0,
        dir.display(),
        peak_rss_mib()
    );
    println!(
        "threads available: {}",
        std::thread::available_parallelism().map_or(1, usize::from)
    );

    let short: Vec<String> = (0..256).map(short_text).collect();
    let medium: Vec<String> = (0..256).map(medium_text).collect();
    let long: Vec<String> = (0..64).map(long_text).collect();

    let mixed: Vec<&str> = short
        .iter()
        .zip(&medium)
        .flat_map(|(short, medium)| [short.as_str(), medium.as_str()])
        .chain(long.iter().take(16).map(String::as_str))
        .collect();
    model.embed_blocking(&mixed[..32]).unwrap();
    let started = Instant::now();
    model.embed_blocking(&mixed).unwrap();
    println!(
        "embed_blocking (what scoring calls), {} mixed texts: {:.1} sentences/s, peak RSS {:.0} MiB",
        mixed.len(),
        mixed.len() as f64 / started.elapsed().as_secs_f64(),
        peak_rss_mib()
    );

    println!(
        "{:>28} {:>8} {:>8} {:>8} {:>8}",
        "sentences/s at batch size", 1, 8, 32, 64
    );
    for (name, texts) in [
        ("~20 tokens", &short),
        ("~60 tokens", &medium),
        ("256 tokens", &long),
    ] {
        let rates: Vec<String> = [1, 8, 32, 64]
            .iter()
            .map(|&batch_size| format!("{:>8.1}", throughput(&model, texts, batch_size)))
            .collect();
        println!("{name:>28} {}", rates.join(" "));
    }
    println!(
        "peak RSS {:.0} MiB (64 texts of 256 tokens in one forward pass)",
        peak_rss_mib()
    );
}
