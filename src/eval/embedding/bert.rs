//! The BERT encoder all-MiniLM-L6-v2 is (Hugging Face's `BertModel`, inference only): token,
//! position and segment embeddings, then self-attention layers, on candle's tensors. Written
//! here, after candle-transformers' `models::bert`, rather than depending on that crate: it
//! compiles every model candle knows (83,000 lines at opt-level 3), and this is the one we run.

use candle_core::{DType, Result, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, Module, VarBuilder};
use serde::Deserialize;

/// What a BERT `config.json` says that inference needs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Config {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    hidden_act: HiddenAct,
    max_position_embeddings: usize,
    type_vocab_size: usize,
    layer_norm_eps: f64,
    pub pad_token_id: usize,
}

/// The activations BERT configs name (Hugging Face's `ACT2FN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum HiddenAct {
    /// The exact GELU (with erf), what all-MiniLM-L6-v2 uses.
    Gelu,
    #[serde(alias = "gelu_new", alias = "gelu_pytorch_tanh")]
    GeluApproximate,
    Relu,
}

impl HiddenAct {
    fn apply(self, xs: &Tensor) -> Result<Tensor> {
        match self {
            HiddenAct::Gelu => xs.gelu_erf(),
            HiddenAct::GeluApproximate => xs.gelu(),
            HiddenAct::Relu => xs.relu(),
        }
    }
}

/// The encoder: each token's vector after the last layer.
pub struct Bert {
    embeddings: Embeddings,
    layers: Vec<Layer>,
}

impl Bert {
    /// The weights under `embeddings.` and `encoder.layer.N.` (or the same under `bert.`, as
    /// checkpoints with a head store them).
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Bert> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let layers = (0..config.num_hidden_layers)
            .map(|index| Layer::load(vb.pp(format!("encoder.layer.{index}")), config))
            .collect::<Result<_>>()?;
        Ok(Bert {
            embeddings: Embeddings::load(vb.pp("embeddings"), config)?,
            layers,
        })
    }

    /// `token_ids` and `mask` are (batch, tokens); the mask is 1 for real tokens, 0 for padding.
    pub fn forward(&self, token_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let mut hidden = self.embeddings.forward(token_ids)?;
        // Padding gets the lowest float added to its attention scores, so softmax gives it none.
        let mask = mask.unsqueeze(1)?.unsqueeze(1)?.to_dtype(DType::F32)?;
        let mask = (mask.ones_like()? - &mask)?.broadcast_mul(&Tensor::new(f32::MIN, mask.device())?)?;
        for layer in &self.layers {
            hidden = layer.forward(&hidden, &mask)?;
        }
        Ok(hidden)
    }
}

struct Embeddings {
    words: Embedding,
    positions: Embedding,
    segments: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(vb: VarBuilder, config: &Config) -> Result<Embeddings> {
        let size = config.hidden_size;
        Ok(Embeddings {
            words: embedding(config.vocab_size, size, vb.pp("word_embeddings"))?,
            positions: embedding(config.max_position_embeddings, size, vb.pp("position_embeddings"))?,
            segments: embedding(config.type_vocab_size, size, vb.pp("token_type_embeddings"))?,
            norm: layer_norm(size, config.layer_norm_eps, vb.pp("LayerNorm"))?,
        })
    }

    /// Every token is of the first segment (id 0), as for a single sentence.
    fn forward(&self, token_ids: &Tensor) -> Result<Tensor> {
        let (_, length) = token_ids.dims2()?;
        let words = self.words.forward(token_ids)?;
        let segments = self.segments.forward(&token_ids.zeros_like()?)?;
        let positions = Tensor::arange(0u32, length as u32, token_ids.device())?;
        let sum = (words + segments)?.broadcast_add(&self.positions.forward(&positions)?)?;
        self.norm.forward(&sum)
    }
}

/// One encoder layer: self-attention and a feed-forward block, each added to its input and
/// normalised.
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    act: HiddenAct,
    out: Linear,
    out_norm: LayerNorm,
    heads: usize,
    head_size: usize,
}

impl Layer {
    fn load(vb: VarBuilder, config: &Config) -> Result<Layer> {
        let size = config.hidden_size;
        let eps = config.layer_norm_eps;
        let attention = vb.pp("attention");
        Ok(Layer {
            query: linear(size, size, attention.pp("self.query"))?,
            key: linear(size, size, attention.pp("self.key"))?,
            value: linear(size, size, attention.pp("self.value"))?,
            attention_out: linear(size, size, attention.pp("output.dense"))?,
            attention_norm: layer_norm(size, eps, attention.pp("output.LayerNorm"))?,
            intermediate: linear(size, config.intermediate_size, vb.pp("intermediate.dense"))?,
            act: config.hidden_act,
            out: linear(config.intermediate_size, size, vb.pp("output.dense"))?,
            out_norm: layer_norm(size, eps, vb.pp("output.LayerNorm"))?,
            heads: config.num_attention_heads,
            head_size: size / config.num_attention_heads,
        })
    }

    fn forward(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let attended = self.attention(hidden, mask)?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&attended)? + hidden)?)?;
        let inner = self.act.apply(&self.intermediate.forward(&attended)?)?;
        self.out_norm.forward(&(self.out.forward(&inner)? + attended)?)
    }

    /// Scaled dot-product attention over every head; (batch, tokens, hidden) in and out.
    fn attention(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let query = self.per_head(&self.query.forward(hidden)?)?;
        let key = self.per_head(&self.key.forward(hidden)?)?;
        let value = self.per_head(&self.value.forward(hidden)?)?;
        let scores = (query.matmul(&key.t()?)? / (self.head_size as f64).sqrt())?;
        let weights = candle_nn::ops::softmax(&scores.broadcast_add(mask)?, D::Minus1)?;
        weights
            .matmul(&value)?
            .transpose(1, 2)?
            .contiguous()?
            .flatten_from(D::Minus2)
    }

    /// (batch, tokens, hidden) as (batch, heads, tokens, head size).
    fn per_head(&self, xs: &Tensor) -> Result<Tensor> {
        let (batch, tokens, _) = xs.dims3()?;
        xs.reshape((batch, tokens, self.heads, self.head_size))?
            .transpose(1, 2)?
            .contiguous()
    }
}
