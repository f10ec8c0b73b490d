//! From a model's raw answer to candidate code, with format compliance and its reasons.
//!
//! [`extract`] takes the answer's bytes (any encoding damage, any size) and an
//! [`ExtractRequest`] describing the task, finds the code (fenced blocks, unfenced code,
//! echoed prompts, completion-style continuations of the prompt), keeps the entry point with
//! the imports and helpers it uses, drops script code, and checks the task's format rules
//! with tree-sitter. A non-compliant answer gets a stable [`Reason`] and a human detail.
//!
//! [`structure`] offers what graders need beyond that: doc comments, comment-free code and
//! syntax-tree fingerprints; [`literal`] reads documentation examples' literal calls;
//! [`measure`] gives the structural metrics refactoring targets are set and checked in;
//! [`mutants`] makes the syntax-tree mutants test suites are measured against.
//! [`bench`] measures throughput over the bundled real answers.

pub mod bench;
mod continuation;
pub mod corpus;
mod detect;
mod engine;
mod items;
pub mod literal;
pub mod maintain;
mod markdown;
pub mod measure;
pub mod mutants;
mod signature;
pub mod structure;
pub mod stub;
mod syntax;
mod text;

use passrate_schema::{Category, Language, Reason, Signature, Variant};
use serde::Serialize;

pub use detect::detect_language;
pub use signature::declared_signature;
pub use structure::{
    Fingerprint, FunctionFacts, doc_comment, fingerprint, function_facts, program_fingerprint,
    strip_comments,
};
pub use syntax::{MAX_PARSE_BYTES, PARSE_TIMEOUT, ParseError};

/// Version of the extraction rules; recorded with every verdict. Bump it whenever a change
/// can turn an answer's code or compliance out differently.
pub const EXTRACTOR_VERSION: &str = "1.2.0";

/// What the answer must contain.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractRequest {
    pub language: Language,
    /// The function (or method) the tests call. For class-level tasks it may name the class.
    pub entry_point: String,
    /// Java: the class that holds the entry point (method-only answers are wrapped in it).
    /// Python/JavaScript: set for class-level tasks, where the answer must define this class.
    pub class_name: Option<String>,
    /// Parameter count (and for Java, types) to check; `None` skips the check.
    pub signature: Option<Signature>,
    pub category: Category,
    /// For completion-style models: the code prompt the answer continues. When the answer
    /// alone does not define the entry point, prompt + answer is judged.
    pub prompt: Option<String>,
}

impl ExtractRequest {
    /// A function-completion request without signature check.
    pub fn new(language: Language, entry_point: impl Into<String>) -> ExtractRequest {
        ExtractRequest {
            language,
            entry_point: entry_point.into(),
            class_name: None,
            signature: None,
            category: Category::FunctionCompletion,
            prompt: None,
        }
    }

    /// The request for a task's variant in one language.
    pub fn for_variant(
        language: Language,
        category: Category,
        variant: &Variant,
    ) -> ExtractRequest {
        ExtractRequest {
            language,
            entry_point: variant.entry_point.clone(),
            class_name: variant.class_name.clone(),
            signature: Some(variant.signature.clone()),
            category,
            prompt: None,
        }
    }

    /// The request a model's answer to a task is judged with (by `run` and `check` alike):
    /// [`ExtractRequest::for_variant`], plus the prompt for the categories whose prompt is
    /// code a completion-style model continues (a signature and docstring).
    pub fn for_answer(language: Language, category: Category, variant: &Variant) -> ExtractRequest {
        let mut request = ExtractRequest::for_variant(language, category, variant);
        if matches!(
            category,
            Category::FunctionCompletion | Category::AlgorithmImplementation
        ) {
            request.prompt = Some(variant.prompt.clone());
        }
        request
    }
}

/// Where the extracted code came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// No code was taken.
    None,
    /// A fenced markdown block (or several).
    Fenced,
    /// Code-looking lines between prose.
    Unfenced,
    /// The whole answer is the code.
    WholeAnswer,
    /// The task prompt followed by the answer (completion-style models).
    PromptContinuation,
}

/// The result of extraction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Extraction {
    /// The answer as text (invalid UTF-8 replaced, line endings normalised).
    pub raw: String,
    /// The code to run: the entry point, its helpers and imports. Best effort when not
    /// compliant (may be empty).
    pub code: String,
    pub compliant: bool,
    /// Why the answer is not compliant (`None` when it is).
    pub reason: Option<Reason>,
    /// A human explanation of `reason`.
    pub detail: Option<String>,
    /// Normalisations applied on the way (pruned script code, wrapped methods, …).
    pub notes: Vec<String>,
    pub origin: Origin,
    pub extractor_version: &'static str,
}

/// Extracts the candidate code for `req` from a raw answer and checks its format.
/// Never panics; the cost is bounded by [`MAX_PARSE_BYTES`] and [`PARSE_TIMEOUT`] per parse.
pub fn extract(req: &ExtractRequest, raw: &[u8]) -> Extraction {
    engine::extract(req, raw)
}
