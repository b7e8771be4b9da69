//! Sentence embeddings in process: all-MiniLM-L6-v2 (a 6-layer BERT) in candle on the CPU,
//! computed as sentence-transformers does (pad to the longest text of a batch, truncate at 256
//! tokens, mean pooling over the attention mask, L2 normalisation), from model files in a local
//! directory. Server only; the metrics over these vectors are in `embedding_metrics.rs`.

mod bert;

use super::services::Embedder;
use bert::{Bert, Config};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokenizers::{Encoding, Tokenizer, TruncationParams, TruncationStrategy};

/// The environment variable naming the model directory.
pub const EMBEDDING_MODEL_ENV: &str = "EVALSTUDIO_EMBEDDING_MODEL";

/// Where `make model` puts the model, under the home directory.
const DEFAULT_MODEL_DIR: &str = ".cache/evalstudio/models/all-MiniLM-L6-v2";

/// sentence-transformers' `max_seq_length` for all-MiniLM-L6-v2 (its sentence_bert_config.json);
/// the shipped tokenizer.json says 128, which is not what the reference computes.
const MAX_TOKENS: usize = 256;

/// At most this many texts per forward pass (sentence-transformers' default batch size).
const BATCH_SIZE: usize = 32;

/// At most this many padded tokens per forward pass: 32 texts of 64 tokens, 8 of 256. Longer
/// batches are no faster per text on the CPU, and attention's memory grows with texts × tokens²
/// (32 texts of 256 tokens peak above 1 GB).
const BATCH_TOKENS: usize = 2048;

/// The files a model directory must hold.
const CONFIG_FILE: &str = "config.json";
const TOKENIZER_FILE: &str = "tokenizer.json";
const WEIGHTS_FILE: &str = "model.safetensors";

/// The model directory to load: the option's value (e.g. `--embedding-model DIR`) if given, else
/// `$EVALSTUDIO_EMBEDDING_MODEL` if set and not empty, else
/// `~/.cache/evalstudio/models/all-MiniLM-L6-v2`. `None` only when none of them applies (no option,
/// no variable, no home directory). The directory is not checked here; `MiniLmEmbedder::load` says
/// what is missing.
pub fn embedding_model_dir(option: Option<&Path>) -> Option<PathBuf> {
    resolve_model_dir(
        option,
        std::env::var_os(EMBEDDING_MODEL_ENV).map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// Whether the model's files are where `embedding_model_dir` says.
pub fn embedding_model_present() -> bool {
    embedding_model_dir(None).is_some_and(|dir| {
        [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE]
            .iter()
            .all(|file| dir.join(file).is_file())
    })
}

fn resolve_model_dir(option: Option<&Path>, env: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    let non_empty = |path: &PathBuf| !path.as_os_str().is_empty();
    option
        .map(Path::to_path_buf)
        .filter(non_empty)
        .or_else(|| env.filter(non_empty))
        .or_else(|| home.filter(non_empty).map(|home| home.join(DEFAULT_MODEL_DIR)))
}

#[derive(Debug, thiserror::Error)]
pub enum EmbeddingError {
    #[error(
        "embedding model: {path} is missing (the directory needs {CONFIG_FILE}, {TOKENIZER_FILE} and \
         {WEIGHTS_FILE} of all-MiniLM-L6-v2; `make model` puts them in ~/{DEFAULT_MODEL_DIR}, \
         {EMBEDDING_MODEL_ENV} or the embedding-model option names another directory)"
    )]
    MissingFile { path: PathBuf },
    #[error("embedding model: cannot use {path}: {message}")]
    BadFile { path: PathBuf, message: String },
    #[error("embedding: tokenizing failed: {0}")]
    Tokenize(String),
    #[error("embedding: inference failed: {0}")]
    Inference(#[from] candle_core::Error),
}

/// all-MiniLM-L6-v2 loaded once; cheap to clone (the model is shared).
#[derive(Clone)]
pub struct MiniLmEmbedder {
    model: Arc<LoadedModel>,
}

struct LoadedModel {
    bert: Bert,
    /// Truncates at `MAX_TOKENS` and does not pad: `forward` pads each batch itself.
    tokenizer: Tokenizer,
    pad_token_id: u32,
    device: Device,
}

impl MiniLmEmbedder {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `dir`. Blocking (reads
    /// ~90 MB); call it from `spawn_blocking` inside a runtime.
    pub fn load(dir: &Path) -> Result<MiniLmEmbedder, EmbeddingError> {
        let config_path = existing_file(dir, CONFIG_FILE)?;
        let tokenizer_path = existing_file(dir, TOKENIZER_FILE)?;
        let weights_path = existing_file(dir, WEIGHTS_FILE)?;
        let bad = |path: &Path, message: String| EmbeddingError::BadFile {
            path: path.to_path_buf(),
            message,
        };

        let config_text =
            std::fs::read_to_string(&config_path).map_err(|err| bad(&config_path, err.to_string()))?;
        let config: Config = serde_json::from_str(&config_text)
            .map_err(|err| bad(&config_path, format!("not a BERT config.json: {err}")))?;

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|err| bad(&tokenizer_path, format!("not a tokenizer.json: {err}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                strategy: TruncationStrategy::LongestFirst,
                ..TruncationParams::default()
            }))
            .map_err(|err| bad(&tokenizer_path, err.to_string()))?;

        // Read into memory rather than mmap: a memory map needs `unsafe` (the file must not change
        // while mapped), and the weights are copied into tensors anyway, so the buffer is freed
        // once the model is built.
        let pad_token_id = u32::try_from(config.pad_token_id).map_err(|_| {
            bad(
                &config_path,
                format!("pad_token_id {} is too large", config.pad_token_id),
            )
        })?;
        let device = Device::Cpu;
        let weights = std::fs::read(&weights_path).map_err(|err| bad(&weights_path, err.to_string()))?;
        let bert = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .and_then(|vars| Bert::load(vars, &config))
            .map_err(|err| {
                bad(
                    &weights_path,
                    format!("not BERT weights matching {CONFIG_FILE}: {err}"),
                )
            })?;

        Ok(MiniLmEmbedder {
            model: Arc::new(LoadedModel {
                bert,
                tokenizer,
                pad_token_id,
                device,
            }),
        })
    }

    /// One L2-normalised vector per text, in order. Texts of similar token counts share a forward
    /// pass (at most 32 texts and 2048 padded tokens, none padded to more than twice its length),
    /// so a long text does not make a batch of short ones pay for its length. Blocking (CPU-bound).
    pub fn embed_blocking<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        let encodings = self.model.tokenize(texts.iter().map(AsRef::as_ref).collect())?;
        let mut longest_first: Vec<usize> = (0..encodings.len()).collect();
        longest_first.sort_by_key(|&index| std::cmp::Reverse(encodings[index].len()));

        let mut vectors = vec![Vec::new(); texts.len()];
        let mut rest = longest_first.as_slice();
        while let Some(&first) = rest.first() {
            let longest = encodings[first].len();
            let size = rest
                .iter()
                .take(BATCH_SIZE.min(BATCH_TOKENS / longest).max(1))
                .take_while(|&&index| encodings[index].len() * 2 >= longest)
                .count();
            let (batch, after) = rest.split_at(size);
            let batch_encodings: Vec<&Encoding> = batch.iter().map(|&index| &encodings[index]).collect();
            for (&index, vector) in batch.iter().zip(self.model.forward(&batch_encodings)?) {
                vectors[index] = vector;
            }
            rest = after;
        }
        Ok(vectors)
    }

    /// All `texts` in one forward pass, padded to the longest. Blocking (CPU-bound).
    pub fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        let encodings = self.model.tokenize(texts.to_vec())?;
        self.model.forward(&encodings.iter().collect::<Vec<_>>())
    }
}

impl LoadedModel {
    /// Token ids with [CLS] and [SEP], at most `MAX_TOKENS`, unpadded.
    fn tokenize(&self, texts: Vec<&str>) -> Result<Vec<Encoding>, EmbeddingError> {
        self.tokenizer
            .encode_batch(texts, true)
            .map_err(|err| EmbeddingError::Tokenize(err.to_string()))
    }

    /// One forward pass over `encodings` padded to the longest, then sentence-transformers'
    /// Pooling (mean over the real tokens) and Normalize (torch divides by max(norm, 1e-12)).
    fn forward(&self, encodings: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        let Some(longest) = encodings.iter().map(|encoding| encoding.len()).max() else {
            return Ok(Vec::new());
        };
        let mut token_ids = Vec::with_capacity(encodings.len() * longest);
        let mut mask = Vec::with_capacity(encodings.len() * longest);
        for encoding in encodings {
            let padding = longest - encoding.len();
            token_ids.extend(
                encoding
                    .get_ids()
                    .iter()
                    .copied()
                    .chain(std::iter::repeat_n(self.pad_token_id, padding)),
            );
            mask.extend(std::iter::repeat_n(1u32, encoding.len()).chain(std::iter::repeat_n(0, padding)));
        }
        let shape = (encodings.len(), longest);
        let token_ids = Tensor::from_vec(token_ids, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
        let hidden = self.bert.forward(&token_ids, &mask)?;

        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let mean = summed.broadcast_div(&mask.sum(1)?.clamp(1e-9, f32::MAX)?)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
        Ok(mean.broadcast_div(&norm)?.to_vec2::<f32>()?)
    }
}

fn existing_file(dir: &Path, name: &str) -> Result<PathBuf, EmbeddingError> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(EmbeddingError::MissingFile { path })
    }
}

impl Embedder for MiniLmEmbedder {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
        let embedder = self.clone();
        let texts = texts.to_vec();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                embedder.embed_blocking(&texts).map_err(|err| err.to_string())
            })
            .await
            .map_err(|err| format!("embedding: the inference task failed: {err}"))?
        })
    }
}

/// The model in a directory, loaded on first use: loading takes ~0.2 s and ~185 MiB, which
/// servers and runs that never score an embedding metric should not pay. A failed load is
/// remembered and reported by every call.
pub struct LazyMiniLm {
    dir: PathBuf,
    model: tokio::sync::OnceCell<Result<MiniLmEmbedder, String>>,
}

impl LazyMiniLm {
    pub fn new(dir: PathBuf) -> LazyMiniLm {
        LazyMiniLm {
            dir,
            model: tokio::sync::OnceCell::new(),
        }
    }

    /// The model where `embedding_model_dir` says it is (none without a home directory).
    pub fn from_environment() -> Option<Arc<dyn Embedder>> {
        let embedder: Arc<dyn Embedder> = Arc::new(LazyMiniLm::new(embedding_model_dir(None)?));
        Some(embedder)
    }
}

impl Embedder for LazyMiniLm {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
        Box::pin(async move {
            let model = self
                .model
                .get_or_init(|| async {
                    let dir = self.dir.clone();
                    tokio::task::spawn_blocking(move || MiniLmEmbedder::load(&dir).map_err(|e| e.to_string()))
                        .await
                        .unwrap_or_else(|err| Err(format!("embedding: loading the model failed: {err}")))
                })
                .await;
            match model {
                Ok(model) => model.embed(texts).await,
                Err(message) => Err(message.clone()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_dir_prefers_the_option_then_the_variable_then_home() {
        let option = Path::new("/opt/minilm");
        let env = || Some(PathBuf::from("/env/minilm"));
        let home = || Some(PathBuf::from("/home/dev"));
        assert_eq!(
            resolve_model_dir(Some(option), env(), home()),
            Some(option.to_path_buf())
        );
        assert_eq!(resolve_model_dir(None, env(), home()), env());
        assert_eq!(
            resolve_model_dir(None, None, home()),
            Some(PathBuf::from(
                "/home/dev/.cache/evalstudio/models/all-MiniLM-L6-v2"
            ))
        );
        assert_eq!(
            resolve_model_dir(Some(Path::new("")), Some(PathBuf::new()), home()),
            Some(PathBuf::from(
                "/home/dev/.cache/evalstudio/models/all-MiniLM-L6-v2"
            )),
            "empty values count as unset"
        );
        assert_eq!(resolve_model_dir(None, None, None), None);
    }

    #[test]
    fn load_names_the_missing_file_and_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let error = MiniLmEmbedder::load(dir.path()).err().unwrap();
        assert!(
            matches!(&error, EmbeddingError::MissingFile { path } if *path == dir.path().join("config.json"))
        );
        let message = error.to_string();
        assert!(
            message.contains(&dir.path().join("config.json").display().to_string()),
            "{message}"
        );
        assert!(message.contains(EMBEDDING_MODEL_ENV), "{message}");

        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
        let error = MiniLmEmbedder::load(dir.path()).err().unwrap();
        assert!(
            matches!(&error, EmbeddingError::MissingFile { path } if *path == dir.path().join("model.safetensors"))
        );
    }

    #[test]
    fn load_names_a_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["config.json", "tokenizer.json", "model.safetensors"] {
            std::fs::write(dir.path().join(name), "not json").unwrap();
        }
        let bad_file = |name: &str| match MiniLmEmbedder::load(dir.path()).err().unwrap() {
            EmbeddingError::BadFile { path, message } if path == dir.path().join(name) => message,
            other => panic!("expected {name} to be reported as bad, got {other}"),
        };
        assert!(bad_file("config.json").contains("not a BERT config.json"));

        std::fs::write(dir.path().join("config.json"), MINILM_CONFIG).unwrap();
        assert!(bad_file("tokenizer.json").contains("not a tokenizer.json"));

        std::fs::write(dir.path().join("tokenizer.json"), ONE_TOKEN_TOKENIZER).unwrap();
        assert!(bad_file("model.safetensors").contains("not BERT weights"));
    }

    /// all-MiniLM-L6-v2's config.json.
    const MINILM_CONFIG: &str = r#"{
        "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": 384, "initializer_range": 0.02,
        "intermediate_size": 1536, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
        "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 6, "pad_token_id": 0,
        "position_embedding_type": "absolute", "type_vocab_size": 2, "use_cache": true, "vocab_size": 30522
    }"#;

    /// The smallest valid tokenizer.json: WordPiece knowing only its unknown token.
    const ONE_TOKEN_TOKENIZER: &str = r###"{
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
        "pre_tokenizer": null, "post_processor": null, "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0}}
    }"###;
}
