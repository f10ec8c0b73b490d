//! `models.toml`: the models a run asks, and how. Errors name the file, line and field.
//!
//! ```toml
//! [defaults]                       # optional; every model inherits these
//! concurrency = 4
//! generation = { temperature = 0.0, max_tokens = 1024 }
//!
//! [[model]]
//! id = "gpt-4o"                    # the name on the leaderboard
//! adapter = "openai"               # openai | command | replay
//! endpoint = "https://api.openai.com/v1"
//! model = "gpt-4o-2024-08-06"
//! api_key_env = "OPENAI_API_KEY"   # the variable's NAME; the key never goes in the file
//! requests_per_minute = 60
//! prices = { input_per_mtok = 2.5, output_per_mtok = 10.0 }
//! ```
//!
//! The full format is documented in the crate's README.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use passrate_schema::Category;
use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};

use crate::error::{ConfigError, Location};
use crate::prompt::{PromptTemplates, Template};

/// Which adapter answers for a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdapterKind {
    /// OpenAI-compatible chat completions over HTTP.
    Openai,
    /// An executable: request JSON on stdin, answer on stdout.
    Command,
    /// Answers from a JSONL file.
    Replay,
}

impl AdapterKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AdapterKind::Openai => "openai",
            AdapterKind::Command => "command",
            AdapterKind::Replay => "replay",
        }
    }
}

/// Adapter-specific settings, validated.
#[derive(Clone, Debug, PartialEq)]
pub enum AdapterConfig {
    Openai {
        /// Base URL (`…/v1`) or the full `…/chat/completions` URL.
        endpoint: String,
        /// The provider's model name.
        model: String,
        /// Name of the environment variable holding the API key (`None`: no auth header).
        api_key_env: Option<String>,
    },
    Command {
        /// Program and arguments (no shell).
        argv: Vec<String>,
    },
    Replay {
        /// Resolved against the directory of the `models.toml` that names it.
        file: PathBuf,
    },
}

impl AdapterConfig {
    pub fn kind(&self) -> AdapterKind {
        match self {
            AdapterConfig::Openai { .. } => AdapterKind::Openai,
            AdapterConfig::Command { .. } => AdapterKind::Command,
            AdapterConfig::Replay { .. } => AdapterKind::Replay,
        }
    }
}

/// Sampling parameters sent to the model (and hashed into the cache key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationParams {
    pub temperature: f64,
    pub max_tokens: u32,
    /// Samples per task: the run asks sample indices `0..samples`, one request each (many
    /// OpenAI-compatible servers ignore `n`).
    pub samples: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Provider seed; when set, sample `i` is sent `seed + i` so samples differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl Default for GenerationParams {
    fn default() -> Self {
        GenerationParams {
            temperature: 0.0,
            max_tokens: 2048,
            samples: 1,
            stop: Vec::new(),
            top_p: None,
            seed: None,
        }
    }
}

/// Politeness and reliability limits for one model.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Requests in flight at once.
    pub concurrency: u32,
    /// Token-bucket rate; `None` means unlimited.
    pub requests_per_minute: Option<f64>,
    /// Bucket size: requests that may start back to back before the rate applies.
    pub burst: u32,
    /// Per attempt (connect, send, full response).
    pub timeout: Duration,
    /// Attempts after the first.
    pub max_retries: u32,
    /// First backoff; doubled on each retry, jittered, capped at `retry_max`.
    pub retry_base: Duration,
    pub retry_max: Duration,
    /// A longer `Retry-After` is cut to this.
    pub max_retry_after: Duration,
    /// Consecutive connection-level failures (refused, DNS, TLS, reset, timeout), across
    /// all of the model's units, that open its circuit breaker; 0 disables it.
    pub circuit_breaker_failures: u32,
    /// How long an open breaker fails attempts without sending before it lets one through.
    pub circuit_breaker_cooldown: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            concurrency: 4,
            requests_per_minute: None,
            burst: 1,
            timeout: Duration::from_secs(120),
            max_retries: 5,
            retry_base: Duration::from_secs(1),
            retry_max: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(300),
            circuit_breaker_failures: 5,
            circuit_breaker_cooldown: Duration::from_secs(30),
        }
    }
}

/// Prices in USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// One model, validated and with defaults applied.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    /// The name on the leaderboard (unique in the file).
    pub id: String,
    pub adapter: AdapterConfig,
    pub generation: GenerationParams,
    pub prompts: PromptTemplates,
    pub limits: Limits,
    pub prices: Option<Prices>,
    /// Where the model is defined (for start-up errors such as a missing API key).
    pub defined_at: Location,
    /// Where the file's value that the adapter reaches is written (a replay's `file`, a
    /// command's `command`, an endpoint), for errors when the adapter is built.
    pub adapter_at: Location,
}

/// A parsed `models.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelsConfig {
    pub models: Vec<ModelConfig>,
}

impl ModelsConfig {
    /// Reads and validates a file; relative replay paths resolve against its directory.
    pub fn load(path: &Path) -> Result<ModelsConfig, ConfigError> {
        let text = fs_err::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        ModelsConfig::parse(&text, &path.display().to_string(), base)
    }

    /// Parses `text`; `file` names it in errors; `base_dir` resolves relative paths.
    pub fn parse(text: &str, file: &str, base_dir: &Path) -> Result<ModelsConfig, ConfigError> {
        let tree = DeTable::parse(text).map_err(|e| ConfigError::Syntax {
            location: Location::at_offset(file, text, e.span().map(|s| s.start)),
            message: e.message().trim().to_string(),
        })?;
        let deserializer =
            toml::de::Deserializer::parse(text).map_err(|e| ConfigError::Syntax {
                location: Location::at_offset(file, text, e.span().map(|s| s.start)),
                message: e.message().trim().to_string(),
            })?;
        let raw: RawFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let field = e.path().to_string();
            let segments = path_segments(e.path());
            let inner = e.into_inner();
            let offset = inner
                .span()
                .map(|s| s.start)
                .or_else(|| span_of(tree.get_ref(), &segments));
            ConfigError::Field {
                location: Location::at_offset(file, text, offset),
                field,
                message: inner.message().trim().to_string(),
            }
        })?;
        let ctx = Ctx {
            file,
            text,
            tree: tree.get_ref(),
        };
        let mut seen = HashSet::new();
        let mut models = Vec::with_capacity(raw.model.len());
        for (index, model) in raw.model.into_iter().enumerate() {
            let resolved = resolve_model(&ctx, index, model, &raw.defaults, base_dir)?;
            if !seen.insert(resolved.id.clone()) {
                return Err(ctx.field_error(
                    &[
                        Seg::Key("model".into()),
                        Seg::Index(index),
                        Seg::Key("id".into()),
                    ],
                    format!("duplicate model id `{}`", resolved.id),
                ));
            }
            models.push(resolved);
        }
        Ok(ModelsConfig { models })
    }

    pub fn get(&self, id: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.id == id)
    }

    /// Checks that every API key variable the file names is set (through `env`), so a run
    /// fails at start-up rather than at its first request.
    pub fn check_environment(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        for model in &self.models {
            model.api_key(env)?;
        }
        Ok(())
    }
}

impl ModelConfig {
    /// The API key from the named environment variable (`Ok(None)` when none is named).
    pub fn api_key(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<String>, ConfigError> {
        let AdapterConfig::Openai {
            api_key_env: Some(var),
            ..
        } = &self.adapter
        else {
            return Ok(None);
        };
        match env(var) {
            Some(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
            _ => Err(ConfigError::MissingApiKey {
                location: self.defined_at.clone(),
                model: self.id.clone(),
                var: var.clone(),
            }),
        }
    }
}

/// Reads the process environment (the usual `env` argument).
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

// ---- raw (as written) --------------------------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    defaults: RawCommon,
    #[serde(default)]
    model: Vec<RawModel>,
}

/// Settings a model may take from `[defaults]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCommon {
    concurrency: Option<u32>,
    requests_per_minute: Option<f64>,
    burst: Option<u32>,
    timeout_s: Option<f64>,
    max_retries: Option<u32>,
    retry_base_s: Option<f64>,
    retry_max_s: Option<f64>,
    max_retry_after_s: Option<f64>,
    circuit_breaker_failures: Option<u32>,
    circuit_breaker_cooldown_s: Option<f64>,
    generation: Option<RawGeneration>,
    prompts: Option<RawPrompts>,
}

// Spelled out rather than `#[serde(flatten)] RawCommon`: flatten disables
// `deny_unknown_fields`, and a misspelt key must be an error.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    id: String,
    adapter: AdapterKind,
    endpoint: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    command: Option<Vec<String>>,
    file: Option<String>,
    prices: Option<Prices>,
    concurrency: Option<u32>,
    requests_per_minute: Option<f64>,
    burst: Option<u32>,
    timeout_s: Option<f64>,
    max_retries: Option<u32>,
    retry_base_s: Option<f64>,
    retry_max_s: Option<f64>,
    max_retry_after_s: Option<f64>,
    circuit_breaker_failures: Option<u32>,
    circuit_breaker_cooldown_s: Option<f64>,
    generation: Option<RawGeneration>,
    prompts: Option<RawPrompts>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawGeneration {
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    samples: Option<u32>,
    stop: Option<Vec<String>>,
    top_p: Option<f64>,
    seed: Option<u64>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawPrompts {
    system: Option<String>,
    function_completion: Option<String>,
    algorithm_implementation: Option<String>,
    bug_fixing: Option<String>,
    code_translation: Option<String>,
    documentation_generation: Option<String>,
    unit_test_writing: Option<String>,
    refactoring: Option<String>,
}

impl RawPrompts {
    fn category(&self, category: Category) -> Option<&String> {
        match category {
            Category::FunctionCompletion => self.function_completion.as_ref(),
            Category::AlgorithmImplementation => self.algorithm_implementation.as_ref(),
            Category::BugFixing => self.bug_fixing.as_ref(),
            Category::CodeTranslation => self.code_translation.as_ref(),
            Category::DocumentationGeneration => self.documentation_generation.as_ref(),
            Category::UnitTestWriting => self.unit_test_writing.as_ref(),
            Category::Refactoring => self.refactoring.as_ref(),
        }
    }
}

// ---- locating fields in the source -------------------------------------------------------

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn path_segments(path: &serde_path_to_error::Path) -> Vec<Seg> {
    path.iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => Some(Seg::Index(*index)),
            serde_path_to_error::Segment::Map { key } => Some(Seg::Key(key.clone())),
            serde_path_to_error::Segment::Enum { variant } => Some(Seg::Key(variant.clone())),
            serde_path_to_error::Segment::Unknown => None,
        })
        .collect()
}

/// Byte offset of the deepest existing prefix of `path` in the parsed document.
fn span_of(table: &DeTable<'_>, path: &[Seg]) -> Option<usize> {
    let mut best = None;
    let mut current: Option<&DeValue<'_>> = None;
    for (i, seg) in path.iter().enumerate() {
        let next = match (seg, current, i) {
            (Seg::Key(key), None, 0) => table.get(key.as_str()),
            (Seg::Key(key), Some(DeValue::Table(t)), _) => t.get(key.as_str()),
            (Seg::Index(index), Some(DeValue::Array(a)), _) => a.get(*index),
            _ => None,
        };
        let Some(next) = next else { break };
        best = Some(next.span().start);
        current = Some(next.get_ref());
    }
    best
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    tree: &'a DeTable<'a>,
}

impl Ctx<'_> {
    fn location(&self, path: &[Seg]) -> Location {
        Location::at_offset(self.file, self.text, span_of(self.tree, path))
    }

    fn field_error(&self, path: &[Seg], message: String) -> ConfigError {
        let mut field = String::new();
        for seg in path {
            match seg {
                Seg::Key(key) => {
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(key);
                }
                Seg::Index(index) => field.push_str(&format!("[{index}]")),
            }
        }
        ConfigError::Field {
            location: self.location(path),
            field,
            message,
        }
    }
}

// ---- validation --------------------------------------------------------------------------

fn resolve_model(
    ctx: &Ctx<'_>,
    index: usize,
    raw: RawModel,
    defaults: &RawCommon,
    base_dir: &Path,
) -> Result<ModelConfig, ConfigError> {
    let at = |key: &str| {
        vec![
            Seg::Key("model".into()),
            Seg::Index(index),
            Seg::Key(key.into()),
        ]
    };
    // Where a value came from: the model's own table, else `[defaults]`.
    let origin = |key: &str, own: bool| {
        if own {
            at(key)
        } else {
            vec![Seg::Key("defaults".into()), Seg::Key(key.into())]
        }
    };
    let bad = |path: Vec<Seg>, message: String| ctx.field_error(&path, message);

    if raw.id.trim().is_empty() || raw.id.chars().any(char::is_control) {
        return Err(bad(
            at("id"),
            "must be a non-empty name without control characters".into(),
        ));
    }

    let unused = |key: &str, present: bool| -> Result<(), ConfigError> {
        if present {
            Err(bad(
                at(key),
                format!("is not used by the `{}` adapter", raw.adapter.as_str()),
            ))
        } else {
            Ok(())
        }
    };
    let adapter =
        match raw.adapter {
            AdapterKind::Openai => {
                unused("command", raw.command.is_some())?;
                unused("file", raw.file.is_some())?;
                let endpoint = raw.endpoint.clone().ok_or_else(|| {
                    bad(
                        at("adapter"),
                        "the `openai` adapter needs `endpoint`".into(),
                    )
                })?;
                if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
                    return Err(bad(
                        at("endpoint"),
                        format!("must be an http:// or https:// URL, got `{endpoint}`"),
                    ));
                }
                let model = raw.model.clone().ok_or_else(|| {
                    bad(at("adapter"), "the `openai` adapter needs `model`".into())
                })?;
                if let Some(var) = &raw.api_key_env
                    && (var.is_empty() || var.contains(['=', '\0']) || var.starts_with("sk-"))
                {
                    return Err(bad(
                        at("api_key_env"),
                        "must be the NAME of an environment variable, not the key".into(),
                    ));
                }
                AdapterConfig::Openai {
                    endpoint,
                    model,
                    api_key_env: raw.api_key_env.clone(),
                }
            }
            AdapterKind::Command => {
                unused("endpoint", raw.endpoint.is_some())?;
                unused("api_key_env", raw.api_key_env.is_some())?;
                unused("file", raw.file.is_some())?;
                unused("model", raw.model.is_some())?;
                let argv = raw.command.clone().unwrap_or_default();
                if argv.first().is_none_or(|program| program.is_empty()) {
                    return Err(bad(
                        at("command"),
                        "the `command` adapter needs `command = [\"program\", \"arg\", …]`".into(),
                    ));
                }
                AdapterConfig::Command { argv }
            }
            AdapterKind::Replay => {
                unused("endpoint", raw.endpoint.is_some())?;
                unused("api_key_env", raw.api_key_env.is_some())?;
                unused("command", raw.command.is_some())?;
                unused("model", raw.model.is_some())?;
                let file = raw.file.clone().ok_or_else(|| {
                    bad(at("adapter"), "the `replay` adapter needs `file`".into())
                })?;
                AdapterConfig::Replay {
                    file: base_dir.join(file),
                }
            }
        };

    let mut limits = Limits::default();
    if let Some(n) = raw.concurrency.or(defaults.concurrency) {
        if n == 0 {
            return Err(bad(
                origin("concurrency", raw.concurrency.is_some()),
                "must be at least 1".into(),
            ));
        }
        limits.concurrency = n;
    }
    if let Some(rpm) = raw.requests_per_minute.or(defaults.requests_per_minute) {
        if !(rpm.is_finite() && rpm > 0.0) {
            return Err(bad(
                origin("requests_per_minute", raw.requests_per_minute.is_some()),
                "must be a positive number".into(),
            ));
        }
        limits.requests_per_minute = Some(rpm);
    }
    if let Some(burst) = raw.burst.or(defaults.burst) {
        if burst == 0 {
            return Err(bad(
                origin("burst", raw.burst.is_some()),
                "must be at least 1".into(),
            ));
        }
        limits.burst = burst;
    }
    if let Some(n) = raw.max_retries.or(defaults.max_retries) {
        limits.max_retries = n;
    }
    if let Some(n) = raw
        .circuit_breaker_failures
        .or(defaults.circuit_breaker_failures)
    {
        limits.circuit_breaker_failures = n;
    }
    let seconds = [
        ("timeout_s", raw.timeout_s, defaults.timeout_s, true),
        (
            "retry_base_s",
            raw.retry_base_s,
            defaults.retry_base_s,
            false,
        ),
        ("retry_max_s", raw.retry_max_s, defaults.retry_max_s, false),
        (
            "max_retry_after_s",
            raw.max_retry_after_s,
            defaults.max_retry_after_s,
            false,
        ),
        (
            "circuit_breaker_cooldown_s",
            raw.circuit_breaker_cooldown_s,
            defaults.circuit_breaker_cooldown_s,
            false,
        ),
    ];
    for (key, own, default, positive) in seconds {
        let Some(value) = own.or(default) else {
            continue;
        };
        let ok = value.is_finite() && value >= 0.0 && (!positive || value > 0.0) && value < 1e7;
        if !ok {
            let rule = if positive { "positive" } else { "non-negative" };
            return Err(bad(
                origin(key, own.is_some()),
                format!("must be a {rule} number of seconds"),
            ));
        }
        let duration = Duration::from_secs_f64(value);
        match key {
            "timeout_s" => limits.timeout = duration,
            "retry_base_s" => limits.retry_base = duration,
            "retry_max_s" => limits.retry_max = duration,
            "circuit_breaker_cooldown_s" => limits.circuit_breaker_cooldown = duration,
            _ => limits.max_retry_after = duration,
        }
    }

    let adapter_key = match raw.adapter {
        AdapterKind::Openai => "endpoint",
        AdapterKind::Command => "command",
        AdapterKind::Replay => "file",
    };
    let generation = resolve_generation(ctx, index, &raw, defaults)?;
    let prompts = resolve_prompts(ctx, index, &raw, defaults)?;

    if let Some(prices) = raw.prices {
        for (key, value) in [
            ("input_per_mtok", prices.input_per_mtok),
            ("output_per_mtok", prices.output_per_mtok),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                let mut path = at("prices");
                path.push(Seg::Key(key.into()));
                return Err(bad(path, "must be a non-negative price".into()));
            }
        }
    }

    Ok(ModelConfig {
        id: raw.id,
        adapter,
        generation,
        prompts,
        limits,
        prices: raw.prices,
        defined_at: ctx.location(&[Seg::Key("model".into()), Seg::Index(index)]),
        adapter_at: ctx.location(&at(adapter_key)),
    })
}

fn resolve_generation(
    ctx: &Ctx<'_>,
    index: usize,
    raw: &RawModel,
    defaults: &RawCommon,
) -> Result<GenerationParams, ConfigError> {
    let own = raw.generation.clone().unwrap_or_default();
    let base = defaults.generation.clone().unwrap_or_default();
    let path = |key: &str, is_own: bool| {
        let mut p = if is_own {
            vec![Seg::Key("model".into()), Seg::Index(index)]
        } else {
            vec![Seg::Key("defaults".into())]
        };
        p.push(Seg::Key("generation".into()));
        p.push(Seg::Key(key.into()));
        p
    };
    let mut params = GenerationParams::default();
    if let Some(t) = own.temperature.or(base.temperature) {
        if !(t.is_finite() && (0.0..=2.0).contains(&t)) {
            return Err(ctx.field_error(
                &path("temperature", own.temperature.is_some()),
                format!("must be between 0 and 2, got {t}"),
            ));
        }
        params.temperature = t;
    }
    if let Some(n) = own.max_tokens.or(base.max_tokens) {
        if n == 0 {
            return Err(ctx.field_error(
                &path("max_tokens", own.max_tokens.is_some()),
                "must be at least 1".into(),
            ));
        }
        params.max_tokens = n;
    }
    if let Some(n) = own.samples.or(base.samples) {
        if n == 0 {
            return Err(ctx.field_error(
                &path("samples", own.samples.is_some()),
                "must be at least 1".into(),
            ));
        }
        params.samples = n;
    }
    if let Some(p) = own.top_p.or(base.top_p) {
        if !(p.is_finite() && p > 0.0 && p <= 1.0) {
            return Err(ctx.field_error(
                &path("top_p", own.top_p.is_some()),
                format!("must be in (0, 1], got {p}"),
            ));
        }
        params.top_p = Some(p);
    }
    params.stop = own.stop.or(base.stop).unwrap_or_default();
    params.seed = own.seed.or(base.seed);
    Ok(params)
}

fn resolve_prompts(
    ctx: &Ctx<'_>,
    index: usize,
    raw: &RawModel,
    defaults: &RawCommon,
) -> Result<PromptTemplates, ConfigError> {
    let own = raw.prompts.clone().unwrap_or_default();
    let base = defaults.prompts.clone().unwrap_or_default();
    let path = |key: &str, is_own: bool| {
        let mut p = if is_own {
            vec![Seg::Key("model".into()), Seg::Index(index)]
        } else {
            vec![Seg::Key("defaults".into())]
        };
        p.push(Seg::Key("prompts".into()));
        p.push(Seg::Key(key.into()));
        p
    };
    let mut templates = PromptTemplates::builtin();
    if let Some(system) = own.system.as_ref().or(base.system.as_ref()) {
        templates.system = if system.is_empty() {
            None
        } else {
            Some(system.clone())
        };
    }
    let mut overrides = BTreeMap::new();
    for category in Category::ALL {
        let is_own = own.category(category).is_some();
        if let Some(text) = own.category(category).or(base.category(category)) {
            let template = Template::parse(text)
                .map_err(|message| ctx.field_error(&path(category.as_str(), is_own), message))?;
            overrides.insert(category, template);
        }
    }
    templates.per_category.extend(overrides);
    Ok(templates)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ModelsConfig, ConfigError> {
        ModelsConfig::parse(text, "models.toml", Path::new("/etc/passrate"))
    }

    #[test]
    fn defaults_apply_and_models_override_them() {
        let config = parse(
            r#"
[defaults]
concurrency = 2
timeout_s = 30
generation = { temperature = 0.2, max_tokens = 512 }

[[model]]
id = "a"
adapter = "openai"
endpoint = "http://localhost:8000/v1"
model = "m"
generation = { temperature = 0.7 }

[[model]]
id = "b"
adapter = "replay"
file = "answers.jsonl"
concurrency = 8
"#,
        )
        .unwrap();
        let a = config.get("a").unwrap();
        assert_eq!(a.limits.concurrency, 2);
        assert_eq!(a.limits.timeout, Duration::from_secs(30));
        assert_eq!(a.generation.temperature, 0.7);
        assert_eq!(a.generation.max_tokens, 512);
        let b = config.get("b").unwrap();
        assert_eq!(b.limits.concurrency, 8);
        assert_eq!(
            b.adapter,
            AdapterConfig::Replay {
                file: PathBuf::from("/etc/passrate/answers.jsonl")
            }
        );
        assert_eq!(b.defined_at.line, Some(14));
    }

    #[test]
    fn circuit_breaker_limits_have_defaults_and_can_be_set() {
        let config = parse(
            "[defaults]\ncircuit_breaker_cooldown_s = 2.5\n\n[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\n\n[[model]]\nid = \"b\"\nadapter = \"replay\"\nfile = \"y\"\ncircuit_breaker_failures = 0\n",
        )
        .unwrap();
        let a = &config.get("a").unwrap().limits;
        assert_eq!(a.circuit_breaker_failures, 5);
        assert_eq!(a.circuit_breaker_cooldown, Duration::from_millis(2_500));
        let b = &config.get("b").unwrap().limits;
        assert_eq!(b.circuit_breaker_failures, 0);
        assert_eq!(
            Limits::default().circuit_breaker_cooldown,
            Duration::from_secs(30)
        );

        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\ncircuit_breaker_cooldown_s = -1\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "models.toml:5:30: field `model[0].circuit_breaker_cooldown_s`: must be a non-negative number of seconds"
        );
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\ncircuit_breaker = 3\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("circuit_breaker"), "{err}");
    }

    #[test]
    fn a_wrong_type_names_line_and_field() {
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\n\n[[model]]\nid = \"b\"\nadapter = \"replay\"\nfile = \"y\"\ngeneration = { temperature = \"hot\" }\n",
        )
        .unwrap_err();
        let ConfigError::Field {
            location, field, ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!(field, "model[1].generation.temperature");
        assert_eq!(location.line, Some(10));
        assert!(err.to_string().starts_with("models.toml:10:"), "{err}");
    }

    #[test]
    fn an_unknown_field_is_an_error_with_its_line() {
        let err =
            parse("[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\ntemprature = 1\n")
                .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("models.toml:5"), "{text}");
        assert!(text.contains("temprature"), "{text}");
    }

    #[test]
    fn an_unknown_adapter_is_named() {
        let err = parse("[[model]]\nid = \"a\"\nadapter = \"grpc\"\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("models.toml:3"), "{text}");
        assert!(text.contains("model[0].adapter"), "{text}");
        assert!(text.contains("grpc"), "{text}");
    }

    #[test]
    fn a_missing_field_names_the_model_table() {
        let err = parse("[[model]]\nadapter = \"replay\"\nfile = \"x\"\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`id`"), "{text}");
        assert!(text.contains("models.toml:1"), "{text}");
    }

    #[test]
    fn semantic_errors_name_line_and_field() {
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"openai\"\nendpoint = \"localhost:8000\"\nmodel = \"m\"\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "models.toml:4:12: field `model[0].endpoint`: must be an http:// or https:// URL, got `localhost:8000`"
        );
        let err = parse(
            "[defaults]\ngeneration = { temperature = 3.5 }\n[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("models.toml:2:30: field `defaults.generation.temperature`"),
            "{err}"
        );
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\n[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"y\"\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("models.toml:6:6: field `model[1].id`: duplicate"),
            "{err}"
        );
    }

    #[test]
    fn a_key_in_place_of_the_variable_name_is_refused() {
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"openai\"\nendpoint = \"https://x\"\nmodel = \"m\"\napi_key_env = \"sk-abc123\"\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("model[0].api_key_env"), "{err}");
        assert!(err.to_string().contains("NAME"), "{err}");
    }

    #[test]
    fn fields_the_adapter_does_not_use_are_refused() {
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\nendpoint = \"http://x\"\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("model[0].endpoint`: is not used by the `replay` adapter"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_template_placeholder_names_line_and_category() {
        let err = parse(
            "[[model]]\nid = \"a\"\nadapter = \"replay\"\nfile = \"x\"\n[model.prompts]\nbug_fixing = \"Fix {{code}}\"\n",
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("models.toml:6:"), "{text}");
        assert!(text.contains("model[0].prompts.bug_fixing"), "{text}");
        assert!(text.contains("code"), "{text}");
    }

    #[test]
    fn invalid_toml_names_the_line() {
        let err = parse("[[model]]\nid = \"a\nadapter = \"replay\"\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err}");
        assert!(err.to_string().starts_with("models.toml:2"), "{err}");
    }

    #[test]
    fn a_missing_api_key_variable_fails_at_start_up() {
        let config = parse(
            "[[model]]\nid = \"a\"\nadapter = \"openai\"\nendpoint = \"https://x\"\nmodel = \"m\"\napi_key_env = \"PASSRATE_TEST_KEY\"\n",
        )
        .unwrap();
        let err = config.check_environment(&|_| None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "models.toml:1:1: model `a`: environment variable `PASSRATE_TEST_KEY` (named by `api_key_env`) is not set or empty"
        );
        assert!(config.check_environment(&|_| Some(String::new())).is_err());
        let key = config.models[0]
            .api_key(&|name| (name == "PASSRATE_TEST_KEY").then(|| "k-1".to_string()))
            .unwrap();
        assert_eq!(key.as_deref(), Some("k-1"));
    }
}
